package layers

import (
	"math/bits"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// Gated delta rule — Gated DeltaNet's recurrence (docs/mixers.md §4):
//
//	S_t = exp(g_t) · (I − β_t k_t k_tᵀ) · S_{t−1} + β_t k_t v_tᵀ,    o_t = scale · S_tᵀ q_t
//
// Three forms: GatedDeltaRule (chunked, WY/UT form), GatedDeltaRuleStep (one token), and the token loop in
// package layers/naive. Inside a chunk (b, γ, Γ as in ssd.go; Γ⁻ the strictly lower part):
//
//	A  = (diag(β) K Kᵀ) ⊙ Γ⁻                 T = (I + A)⁻¹   (unitLowerInverse)
//	W  = T (K ⊙ βγ),  Ũ = T (V ⊙ β)           independent of the entering state S₀
//	U  = Ũ − W S₀                             the chunk's true "new values"
//	O  = scale · [(Q ⊙ γ) S₀ + ((Q Kᵀ) ⊙ Γ) U]
//	S_C = exp(b_C) S₀ + (K ⊙ exp(b_C − b))ᵀ U
//
// q and k are used as given: callers L2-normalise them (with ‖k‖ = 1 and β ∈ (0, 1] every step is a
// contraction).

// GatedDeltaRule runs the chunked gated delta rule.
//
//	q, k: [B, T, H, K]; v: [B, T, H, V]; logDecay g ≤ 0 and beta: [B, T, H]; s0: [B, H, K, V] or nil.
//	→ out [B, T, H, V], finalState [B, H, K, V].
//
// The state crosses chunks by the unrolled loop; NewGatedDeltaRule(...).InterChunk(Scan) gives the
// associative scan.
func GatedDeltaRule(q, k, v, logDecay, beta, s0 *Node, scale float64, chunk int) (out, finalState *Node) {
	return NewGatedDeltaRule(q, k, v, logDecay, beta).InitialState(s0).Scale(scale).Chunk(chunk).Done()
}

// GatedDeltaRuleBuilder configures a chunked gated-delta-rule call; create it with NewGatedDeltaRule.
type GatedDeltaRuleBuilder struct {
	q, k, v, logDecay, beta, s0 *Node
	scale                       float64
	chunk                       int
	inter                       InterChunk
}

// NewGatedDeltaRule starts a chunked gated delta rule with zero initial state, scale K^{-1/2}, chunk
// DefaultChunk and the Auto inter-chunk method (the loop: the delta rule has no Dense form).
func NewGatedDeltaRule(q, k, v, logDecay, beta *Node) *GatedDeltaRuleBuilder {
	r := &GatedDeltaRuleBuilder{q: q, k: k, v: v, logDecay: logDecay, beta: beta, chunk: DefaultChunk, inter: Auto}
	if q != nil && q.Rank() == 4 {
		r.scale = DefaultScale(q.Shape().Dim(3))
	}
	return r
}

// InitialState sets the state [B, H, K, V] before the first token; nil means zero.
func (r *GatedDeltaRuleBuilder) InitialState(s0 *Node) *GatedDeltaRuleBuilder { r.s0 = s0; return r }

// Scale sets the readout scale (default K^{-1/2}).
func (r *GatedDeltaRuleBuilder) Scale(scale float64) *GatedDeltaRuleBuilder {
	r.scale = scale
	return r
}

// Chunk sets the chunk length (> 0).
func (r *GatedDeltaRuleBuilder) Chunk(chunk int) *GatedDeltaRuleBuilder { r.chunk = chunk; return r }

// InterChunk selects how the state crosses chunks: Auto (default: Loop), Loop or Scan.
func (r *GatedDeltaRuleBuilder) InterChunk(m InterChunk) *GatedDeltaRuleBuilder {
	r.inter = m
	return r
}

// Done builds the graph and returns out [B, T, H, V] and finalState [B, H, K, V]. For T = 1 it is
// GatedDeltaRuleStep's graph (the kernel follows the static length, as for SSD).
func (r *GatedDeltaRuleBuilder) Done() (out, finalState *Node) {
	c := checker{"GatedDeltaRule"}
	b, t, h, dk, dv := c.mixerDims(r.q, r.k, r.v)
	ga, ba, sa := arg{"logDecay", r.logDecay}, arg{"beta", r.beta}, arg{"s0", r.s0}
	c.notNil(ga, ba)
	c.float(arg{"q", r.q}, ga, ba, sa)
	c.dims(ga, "[B, T, H]", b, t, h)
	c.dims(ba, "[B, T, H]", b, t, h)
	if r.s0 != nil {
		c.dims(sa, "[B, H, K, V]", b, h, dk, dv)
	}
	c.positive("chunk", r.chunk)
	if r.inter == Dense {
		argError(c.fn, "inter-chunk method dense is SSD only (the delta rule's chunk transitions are matrices): use loop or scan")
	}
	if r.inter != Loop && r.inter != Scan && r.inter != Auto {
		argError(c.fn, "unknown inter-chunk method %s", r.inter)
	}
	if t == 1 { // one token (decoding): the step form, not a chunk built around a single token
		out, finalState = GatedDeltaRuleStep(oneToken(r.q), oneToken(r.k), oneToken(r.v), oneToken(r.logDecay),
			oneToken(r.beta), r.s0, r.scale)
		return ExpandAxes(out, 1), finalState
	}

	ch := newChunking(t, r.chunk)
	q, k, v := vectorsToChunks(r.q, ch), vectorsToChunks(r.k, ch), vectorsToChunks(r.v, ch) // [B, H, N, C, ·]
	beta := scalarsToChunks(r.beta, ch)                                                     // [B, H, N, C]
	cumDecay := chunkCumsum(scalarsToChunks(r.logDecay, ch))                                // b
	chunkDecay := lastAlong(cumDecay)                                                       // b_C: [B, H, N]
	gamma := Exp(cumDecay)                                                                  // γ
	decay := decayMask(cumDecay, false)                                                     // Γ, diagonal included

	// In-chunk WY representation: everything here is independent of the entering state.
	kk := Einsum("bhnik,bhnjk->bhnij", k, k)
	strict := InsertAxes(ConvertDType(lowerMask(q.Graph(), ch.C, true), kk.DType()), 0, 0, 0) // 1 where j < i
	a := Mul(Mul(kk, decay), Mul(ExpandAxes(beta, -1), strict))                               // β_i (k_i·k_j) Γ_ij for j < i
	tInv := unitLowerInverse(a)                                                               // T = (I + A)⁻¹
	w := Einsum("bhnij,bhnjk->bhnik", tInv, Mul(k, ExpandAxes(Mul(beta, gamma), -1)))         // W: [B, H, N, C, K]
	uTilde := Einsum("bhnij,bhnjv->bhniv", tInv, Mul(v, ExpandAxes(beta, -1)))                // Ũ: [B, H, N, C, V]
	kToEnd := Mul(k, ExpandAxes(Exp(Sub(ExpandAxes(chunkDecay, -1), cumDecay)), -1))          // K̂
	qk := Mul(Einsum("bhnik,bhnjk->bhnij", q, k), decay)                                      // (Q Kᵀ) ⊙ Γ

	var entering, u *Node
	if resolveInterChunk(r.inter, r.q.Graph(), ch.N, false) == Scan {
		entering, finalState = gdnCarryScan(chunkDecay, w, uTilde, kToEnd, r.s0)
		u = Sub(uTilde, Einsum("bhnck,bhnkv->bhncv", w, entering)) // all chunks at once
	} else {
		entering, u, finalState = gdnCarryLoop(chunkDecay, w, uTilde, kToEnd, r.s0)
	}

	out = Add(Einsum("bhnck,bhnkv->bhncv", Mul(q, ExpandAxes(gamma, -1)), entering),
		Einsum("bhnij,bhnjv->bhniv", qk, u))
	return chunksToVectors(MulScalar(out, r.scale), ch), finalState
}

// gdnCarryLoop: U_n = Ũ_n − W_n S_n, S_{n+1} = exp(G_n) S_n + K̂_nᵀ U_n, unrolled over the chunks (4·C·K·V
// flops a step). Returns the entering states and the U_n, both stacked [B, H, N, ·, ·], and the final state.
func gdnCarryLoop(chunkDecay, w, uTilde, kToEnd, s0 *Node) (entering, newValues, final *Node) {
	dw, du := w.Shape().Dimensions, uTilde.Shape().Dimensions
	n := dw[chunkAxis]
	ws, uts, ks := splitChunks(w), splitChunks(uTilde), splitChunks(kToEnd)
	decays := splitChunks(Exp(ExpandAxes(chunkDecay, -1, -2))) // [B, H, 1, 1] each
	state := s0
	states, values := make([]*Node, n), make([]*Node, n)
	for i := range n {
		if state == nil { // zero entering state: U = Ũ
			states[i] = zerosState(w.Graph(), w.DType(), dw[0], dw[1], dw[4], du[4])
			values[i] = uts[i]
			state = Einsum("bhck,bhcv->bhkv", ks[i], values[i])
			continue
		}
		states[i] = state
		values[i] = Sub(uts[i], Einsum("bhck,bhkv->bhcv", ws[i], state))
		state = Add(Mul(decays[i], state), Einsum("bhck,bhcv->bhkv", ks[i], values[i]))
	}
	return stackChunks(states), stackChunks(values), state
}

// gdnCarryScan computes the same states with an associative scan over the chunks' affine maps
// S ↦ M_n S + R_n, with M_n = exp(G_n) I − K̂_nᵀ W_n [K, K] and R_n = K̂_nᵀ Ũ_n [K, V]:
// (M_a, R_a) • (M_b, R_b) = (M_b M_a, M_b R_a + R_b), identity (I, 0).
func gdnCarryScan(chunkDecay, w, uTilde, kToEnd, s0 *Node) (entering, final *Node) {
	g := w.Graph()
	dw, du := w.Shape().Dimensions, uTilde.Shape().Dimensions
	b, h, n, dk, dv := dw[0], dw[1], dw[chunkAxis], dw[4], du[4]
	eye := func(chunks int) *Node {
		i := ConvertDType(Equal(Iota(g, shapes.Make(w.DType(), dk, dk), 0), Iota(g, shapes.Make(w.DType(), dk, dk), 1)), w.DType())
		return BroadcastToDims(Reshape(i, 1, 1, 1, dk, dk), b, h, chunks, dk, dk)
	}
	trans := Sub(Mul(ExpandAxes(Exp(chunkDecay), -1, -2), eye(n)), Einsum("bhnck,bhncj->bhnkj", kToEnd, w)) // M
	offset := Einsum("bhnck,bhncv->bhnkv", kToEnd, uTilde)                                                  // R
	identity := func(d int) []*Node {
		return []*Node{eye(d), Zeros(g, shapes.Make(w.DType(), b, h, d, dk, dv))}
	}
	combine := func(a, later []*Node) []*Node {
		return []*Node{
			Einsum("bhnij,bhnjk->bhnik", later[0], a[0]),
			Add(Einsum("bhnij,bhnjv->bhniv", later[0], a[1]), later[1]),
		}
	}
	prefix := inclusiveScan([]*Node{trans, offset}, identity, combine)
	after := prefix[1] // the state after chunk n, from a zero start
	if s0 != nil {
		after = Add(Einsum("bhnij,bhjv->bhniv", prefix[0], s0), after)
	}
	final = chunkAt(after, n-1)
	first := s0
	if first == nil {
		first = zerosState(g, w.DType(), b, h, dk, dv)
	}
	entering = shiftChunks([]*Node{after}, 1, func(int) []*Node { return []*Node{ExpandAxes(first, chunkAxis)} })[0]
	return entering, final
}

// unitLowerInverse returns T = (I + A)⁻¹ for strictly lower-triangular A [..., C, C], by blockwise doubling
// on batched s×s diagonal blocks (docs/mixers.md §5, method 4):
//
//	inv([[L11, 0], [L21, L22]]) = [[X11, 0], [−X22 L21 X11, X22]]
//
// starting from 1×1 blocks X = 1 and doubling s until the block is the whole (power-of-two padded) matrix.
// Every intermediate is a block of the true inverse, so nothing grows beyond |T| and float32 stays accurate
// for near-parallel keys, unlike the power-series product ∏(I + (−A)^{2^i}) whose partial products cancel.
// About (2/3)C³ flops per chunk. Only stride-1 slices, reshapes, concatenations and einsums: differentiable
// on every backend.
func unitLowerInverse(a *Node) *Node {
	g := a.Graph()
	dims := a.Shape().Dimensions
	c := dims[len(dims)-1]
	batch := a.Shape().Size() / (c * c)
	p := 1 << bits.Len(uint(c-1)) // C padded to a power of two
	if c == 1 {
		p = 1
	}
	a = Reshape(a, batch, c, c)
	if p > c { // zero rows and columns: the inverse is [[T, 0], [0, I]]
		a = Concatenate([]*Node{a, Zeros(g, shapes.Make(a.DType(), batch, p-c, c))}, 1)
		a = Concatenate([]*Node{a, Zeros(g, shapes.Make(a.DType(), batch, p, p-c))}, 2)
	}
	x := Ones(g, shapes.Make(a.DType(), batch, p, 1, 1)) // [M, blocks, s, s]: the diagonal blocks of T
	for s := 1; s < p; s *= 2 {
		pairs := p / (2 * s)
		xp := Reshape(x, batch, pairs, 2, s, s)
		x11 := Squeeze(SliceAxis(xp, 2, AxisRange(0, 1)), 2) // [M, pairs, s, s]
		x22 := Squeeze(SliceAxis(xp, 2, AxisRange(1, 2)), 2)
		// L21 of pair p: rows of s-block 2p+1, columns of s-block 2p, i.e. the diagonal (p = q) of
		// A viewed as [M, pairs, 2, s, pairs, 2, s] at sub-indices (1, 0).
		ab := Reshape(a, batch, pairs, 2, s, pairs, 2, s)
		ab = Slice(ab, AxisRange(), AxisRange(), AxisRange(1, 2), AxisRange(), AxisRange(), AxisRange(0, 1))
		ab = Reshape(ab, batch, pairs, s, pairs, s)
		var l21 *Node
		if pairs == 1 {
			l21 = Reshape(ab, batch, 1, s, s)
		} else {
			eye := ConvertDType(Equal(Iota(g, shapes.Make(a.DType(), pairs, pairs), 0), Iota(g, shapes.Make(a.DType(), pairs, pairs), 1)), a.DType())
			l21 = Einsum("mpiqj,pq->mpij", ab, eye)
		}
		lower := Neg(Einsum("mpij,mpjk->mpik", Einsum("mpij,mpjk->mpik", x22, l21), x11))
		zeros := ZerosLike(x11)
		top := Concatenate([]*Node{x11, zeros}, 3)
		bottom := Concatenate([]*Node{lower, x22}, 3)
		x = Concatenate([]*Node{top, bottom}, 2) // [M, pairs, 2s, 2s]
	}
	t := Reshape(x, batch, p, p)
	if p > c {
		t = Slice(t, AxisRange(), AxisRange(0, c), AxisRange(0, c))
	}
	return Reshape(t, dims...)
}

// GatedDeltaRuleStep advances the gated delta rule by one token (decoding):
//
//	q, k: [B, H, K]; v: [B, H, V]; logDecay, beta: [B, H]; state: [B, H, K, V] (nil = zero)
//	S' = exp(g) S;  u = β (v − S'ᵀ k);  S_new = S' + k uᵀ;  out = scale · S_newᵀ q
//	→ out [B, H, V], newState [B, H, K, V].
func GatedDeltaRuleStep(q, k, v, logDecay, beta, state *Node, scale float64) (out, newState *Node) {
	c := checker{"GatedDeltaRuleStep"}
	b, h, dk, dv := c.stepDims(q, k, v, logDecay, state)
	betaArg := arg{"beta", beta}
	c.notNil(betaArg)
	c.float(arg{"q", q}, betaArg)
	c.dims(betaArg, "[B, H]", b, h)
	if state == nil {
		state = zerosState(q.Graph(), q.DType(), b, h, dk, dv)
	}
	decayed := Mul(Exp(ExpandAxes(logDecay, -1, -2)), state)
	u := Mul(ExpandAxes(beta, -1), Sub(v, Einsum("bhkv,bhk->bhv", decayed, k)))
	newState = Add(decayed, Einsum("bhk,bhv->bhkv", k, u))
	return MulScalar(Einsum("bhkv,bhk->bhv", newState, q), scale), newState
}
