package naive

// CausalConv1D is the causal depthwise convolution (docs/mixers.md §1), channel by channel: tap W−1 is the
// current token, and the inputs before the sequence come from state (nil: zeros),
//
//	y_t[e] = Σ_{j<W} w[e, j] · x_{t−W+1+j}[e] + bias[e]
//
// x [B, T, E], weight [E, W], bias [E] or nil, state [B, W−1, E] or nil (the inputs at times −W+1 … −1)
// → y [B, T, E] and newState [B, W−1, E], the inputs at times T−W+1 … T−1 (a prefill cut in parts, each
// from the previous part's state, equals one pass). The reference of layers.CausalConv1D and
// layers.CausalConv1DStep.
func CausalConv1D(B, T, E, W int, x, weight, bias, state []float64) (y, newState []float64) {
	y = make([]float64, B*T*E)
	newState = make([]float64, B*(W-1)*E)
	for b := range B {
		for e := range E {
			// input(s) is x_s[e] of row b, read from state for s < 0.
			input := func(s int) float64 {
				switch {
				case s >= 0:
					return x[(b*T+s)*E+e]
				case state == nil:
					return 0
				}
				return state[(b*(W-1)+W-1+s)*E+e]
			}
			for t := range T {
				var sum float64 // y_t[e] = Σ_j w[e, j] · x_{t−W+1+j}[e] + bias[e]
				if bias != nil {
					sum = bias[e]
				}
				for j := range W {
					sum += weight[e*W+j] * input(t-W+1+j)
				}
				y[(b*T+t)*E+e] = sum
			}
			for r := range W - 1 { // newState_r = x_{T−W+1+r}
				newState[(b*(W-1)+r)*E+e] = input(T - (W - 1) + r)
			}
		}
	}
	return y, newState
}
