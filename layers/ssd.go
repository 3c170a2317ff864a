package layers

import (
	. "github.com/gomlx/gomlx/pkg/core/graph"
)

// SSD — scalar-decay linear attention, the state-space dual of Mamba-2 (docs/mixers.md §3):
//
//	S_t = exp(g_t) · S_{t−1} + k_t v_tᵀ,    o_t = S_tᵀ q_t
//
// with Mamba-2's roles q = C, k = B, v = dt·x, g = dt·A (the D·x skip and gating live in the block).
//
// Three forms: SSD (chunked, for training and prefill), SSDStep (one token, for decoding), and the
// token-by-token loop in package layers/naive. Inside a chunk, with b the chunk-local cumulative log decay,
// γ_i = exp(b_i), Γ_ij = exp(b_i − b_j) (j ≤ i) and S₀ the state entering the chunk:
//
//	O      = ((Q Kᵀ) ⊙ Γ) V + (Q ⊙ γ) S₀            intra-chunk + inter-chunk
//	U      = (K ⊙ exp(b_C − b))ᵀ V                  the chunk's own contribution
//	S_next = exp(b_C) · S₀ + U                       carried by Loop or Scan (scan.go)

// DefaultChunk is the default chunk length of the chunked mixers.
const DefaultChunk = 64

// SSD runs the chunked scalar-decay recurrence.
//
//	q, k: [B, T, H, K]; v: [B, T, H, V]; logDecay g ≤ 0: [B, T, H]; s0: [B, H, K, V] or nil (zero state).
//	→ out [B, T, H, V], finalState [B, H, K, V] (the state after token T).
//
// chunk > 0 is the chunk length (T need not be a multiple). The state is carried by the unrolled loop; use
// NewSSD(...).InterChunk(Scan) for the associative scan.
func SSD(q, k, v, logDecay, s0 *Node, chunk int) (out, finalState *Node) {
	return NewSSD(q, k, v, logDecay).InitialState(s0).Chunk(chunk).Done()
}

// SSDBuilder configures a chunked SSD call; create it with NewSSD and finish with Done.
type SSDBuilder struct {
	q, k, v, logDecay, s0 *Node
	chunk                 int
	inter                 InterChunk
}

// NewSSD starts a chunked SSD over q, k: [B, T, H, K], v: [B, T, H, V], logDecay: [B, T, H], with zero
// initial state, chunk DefaultChunk and the Auto inter-chunk method.
func NewSSD(q, k, v, logDecay *Node) *SSDBuilder {
	return &SSDBuilder{q: q, k: k, v: v, logDecay: logDecay, chunk: DefaultChunk, inter: Auto}
}

// InitialState sets the state [B, H, K, V] before the first token; nil means zero.
func (s *SSDBuilder) InitialState(s0 *Node) *SSDBuilder { s.s0 = s0; return s }

// Chunk sets the chunk length (> 0).
func (s *SSDBuilder) Chunk(chunk int) *SSDBuilder { s.chunk = chunk; return s }

// InterChunk selects how the state crosses chunks: Auto (default), Loop, Scan or Dense.
func (s *SSDBuilder) InterChunk(m InterChunk) *SSDBuilder { s.inter = m; return s }

// Done builds the graph and returns out [B, T, H, V] and finalState [B, H, K, V]. For T = 1 it is SSDStep's
// graph (the same values as a one-token chunk, fewer operations): the kernel follows the static length.
func (s *SSDBuilder) Done() (out, finalState *Node) {
	c := checker{"SSD"}
	b, t, h, dk, dv := c.mixerDims(s.q, s.k, s.v)
	ga, sa := arg{"logDecay", s.logDecay}, arg{"s0", s.s0}
	c.notNil(ga)
	c.float(arg{"q", s.q}, ga, sa)
	c.dims(ga, "[B, T, H]", b, t, h)
	if s.s0 != nil {
		c.dims(sa, "[B, H, K, V]", b, h, dk, dv)
	}
	c.positive("chunk", s.chunk)
	if s.inter != Loop && s.inter != Scan && s.inter != Dense && s.inter != Auto {
		argError(c.fn, "unknown inter-chunk method %s", s.inter)
	}
	if t == 1 { // one token (decoding): the step form, not a chunk built around a single token
		out, finalState = SSDStep(oneToken(s.q), oneToken(s.k), oneToken(s.v), oneToken(s.logDecay), s.s0)
		return ExpandAxes(out, 1), finalState
	}

	ch := newChunking(t, s.chunk)
	inter := resolveInterChunk(s.inter, s.q.Graph(), ch.N, true)
	q, k, v := vectorsToChunks(s.q, ch), vectorsToChunks(s.k, ch), vectorsToChunks(s.v, ch) // [B, H, N, C, ·]
	cumDecay := chunkCumsum(scalarsToChunks(s.logDecay, ch))                                // b: [B, H, N, C]
	chunkDecay := lastAlong(cumDecay)                                                       // b_C: [B, H, N]

	// Intra-chunk: causal decayed attention without softmax.
	scores := Mul(Einsum("bhnik,bhnjk->bhnij", q, k), decayMask(cumDecay, false))
	out = Einsum("bhnij,bhnjv->bhniv", scores, v)

	// Each chunk's own contribution to the state it hands on, then the states entering every chunk.
	kToEnd := Mul(k, ExpandAxes(Exp(Sub(ExpandAxes(chunkDecay, -1), cumDecay)), -1))
	contrib := Einsum("bhnck,bhncv->bhnkv", kToEnd, v) // U: [B, H, N, K, V]
	var entering *Node
	switch inter {
	case Scan:
		entering, finalState = ssdCarryScan(chunkDecay, contrib, s.s0)
	case Dense:
		entering, finalState = ssdCarryDense(chunkDecay, contrib, s.s0)
	default:
		entering, finalState = ssdCarryLoop(chunkDecay, contrib, s.s0)
	}

	// Inter-chunk: every chunk reads the state it starts from, decayed to each of its tokens.
	qDecayed := Mul(q, ExpandAxes(Exp(cumDecay), -1))
	out = Add(out, Einsum("bhnck,bhnkv->bhncv", qDecayed, entering))
	return chunksToVectors(out, ch), finalState
}

// ssdCarryLoop: S_{n+1} = exp(G_n) S_n + U_n, unrolled. G: [B, H, N]; U: [B, H, N, K, V]; s0 nil or
// [B, H, K, V]. Returns the states entering each chunk [B, H, N, K, V] and the final state.
func ssdCarryLoop(chunkDecay, contrib, s0 *Node) (entering, final *Node) {
	d := contrib.Shape().Dimensions
	n := d[chunkAxis]
	state := s0
	if state == nil {
		state = zerosState(contrib.Graph(), contrib.DType(), d[0], d[1], d[3], d[4])
	}
	states := make([]*Node, n)
	decays := splitChunks(Exp(ExpandAxes(chunkDecay, -1, -2))) // [B, H, 1, 1] each
	contribs := splitChunks(contrib)
	for i := range n {
		states[i] = state
		if i == 0 && s0 == nil {
			state = contribs[0]
			continue
		}
		state = Add(Mul(decays[i], state), contribs[i])
	}
	return stackChunks(states), state
}

// ssdCarryScan computes the same states with an associative scan over the chunk summaries (G_n, U_n):
// (G_a, U_a) • (G_b, U_b) = (G_a + G_b, exp(G_b) U_a + U_b), identity (0, 0). With the inclusive prefix
// (P^G_n, P^U_n), the state after chunk n is exp(P^G_n) s0 + P^U_n.
func ssdCarryScan(chunkDecay, contrib, s0 *Node) (entering, final *Node) {
	g := contrib.Graph()
	d := contrib.Shape().Dimensions
	identity := func(n int) []*Node {
		return []*Node{
			Zeros(g, withDim(chunkDecay, chunkAxis, n)),
			Zeros(g, withDim(contrib, chunkAxis, n)),
		}
	}
	combine := func(a, b []*Node) []*Node {
		return []*Node{Add(a[0], b[0]), Add(Mul(Exp(ExpandAxes(b[0], -1, -2)), a[1]), b[1])}
	}
	prefix := inclusiveScan([]*Node{chunkDecay, contrib}, identity, combine)
	// The state after chunk n, then shifted by one chunk: the state entering chunk n.
	after := prefix[1]
	if s0 != nil {
		after = Add(Mul(Exp(ExpandAxes(prefix[0], -1, -2)), ExpandAxes(s0, chunkAxis)), after)
	}
	final = chunkAt(after, d[chunkAxis]-1)
	first := s0
	if first == nil {
		first = zerosState(g, contrib.DType(), d[0], d[1], d[3], d[4])
	}
	entering = shiftChunks([]*Node{after}, 1, func(int) []*Node { return []*Node{ExpandAxes(first, chunkAxis)} })[0]
	return entering, final
}

// ssdCarryDense computes the same states without a loop (docs/mixers.md §3c, dense chunk-segsum). With
// c_n = G_0 + … + G_{n−1} (c_0 = 0), the state entering chunk n, n = 0…N (N: after the last chunk), is
//
//	S_n = exp(c_n) s0 + Σ_{m<n} exp(c_n − c_{m+1}) U_m
//
// i.e. one [N+1, N] lower-triangular decay matrix times the stacked U: a single DotGeneral. The exponents
// c_n − c_{m+1} (m < n) are sums of log decays, ≤ 0, and the masked ones are set before Exp (docs/mixers.md §7).
func ssdCarryDense(chunkDecay, contrib, s0 *Node) (entering, final *Node) {
	g := contrib.Graph()
	dt := contrib.DType()
	n := contrib.Shape().Dim(chunkAxis)
	after := chunkCumsum(chunkDecay)                                                            // c_{m+1}: [B, H, N]
	before := Concatenate([]*Node{ZerosLike(SliceAxis(after, -1, AxisRange(0, 1))), after}, -1) // c_n: [B, H, N+1]
	exponent := Sub(ExpandAxes(before, -1), ExpandAxes(after, -2))                              // [B, H, N+1, N]
	bias := Where(ShapedLowerTriangular(g, n+1, n, -1), ScalarZero(g, dt), Scalar(g, dt, maskedExponent))
	weights := Exp(Add(exponent, InsertAxes(bias, 0, 0)))   // 0 where m ≥ n
	states := Einsum("bhnm,bhmkv->bhnkv", weights, contrib) // [B, H, N+1, K, V]
	if s0 != nil {
		states = Add(states, Mul(ExpandAxes(Exp(before), -1, -2), ExpandAxes(s0, chunkAxis)))
	}
	return SliceAxis(states, chunkAxis, AxisRange(0, n)), chunkAt(states, n)
}

// SSDStep advances the SSD recurrence by one token (decoding):
//
//	q, k: [B, H, K]; v: [B, H, V]; logDecay: [B, H]; state: [B, H, K, V] (nil = zero)
//	→ out [B, H, V] = S_tᵀ q_t, newState [B, H, K, V] = exp(g_t) S_{t−1} + k_t v_tᵀ.
func SSDStep(q, k, v, logDecay, state *Node) (out, newState *Node) {
	c := checker{"SSDStep"}
	b, h, dk, dv := c.stepDims(q, k, v, logDecay, state)
	if state == nil {
		state = zerosState(q.Graph(), q.DType(), b, h, dk, dv)
	}
	decay := Exp(ExpandAxes(logDecay, -1, -2))
	newState = Add(Mul(decay, state), Einsum("bhk,bhv->bhkv", k, v))
	return Einsum("bhkv,bhk->bhv", newState, q), newState
}
