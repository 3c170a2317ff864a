package oryx

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/oryx-go/oryx/layers"
)

// The linear readout of the block on the shared keys and values (docs/model.md §3.5–3.7):
//
//	Mamba-2: Δ = softplus(x w_Δ + b_Δ), g = −Δ·exp(A_log), S_t = e^{g} S + k (Δ v)ᵀ, o = Sᵀ q^R + D·v
//	GDN:     g = −exp(A_log)·softplus(x w_α + b_Δ), β = σ(x w_β), k̂ = k/‖k‖, q̂ = q^R/‖q^R‖,
//	         S_t = e^{g}(I − β k̂ k̂ᵀ) S + β k̂ vᵀ, o = K^{-1/2} Sᵀ q̂
//
// GDN normalises keys only here: the KV cache keeps the raw post-conv keys for attention [choice].

const (
	l2Eps    = 1e-6
	dtypeInt = dtypes.Int32
)

func shapeInt(dims ...int) shapes.Shape { return shapes.Make(dtypeInt, dims...) }

// linearGates returns the per-token log decay g ≤ 0 and the write scale (Mamba-2: Δ; GDN: β), [B, T, H], for
// x [B, T, D]; valid ([B, T], or nil) turns padded tokens into identity transitions (g = 0 and a zero write).
func (m *Model) linearGates(p blockParams, x, valid *Node) (logDecay, write *Node) {
	a, dtBias := leading(Exp(p.aLog), 3), leading(p.dtBias, 3) // per-head parameters [H] broadcast over [B, T, H]
	if m.Config.Variant.LinearMixer() == MixerMamba2 {
		write = Softplus(Add(layers.Project(x, p.dtProj, 1), dtBias)) // Δ
		logDecay = Neg(Mul(write, a))
	} else {
		logDecay = Neg(Mul(a, Softplus(Add(layers.Project(x, p.decayProj, 1), dtBias))))
		write = Sigmoid(layers.Project(x, p.betaProj, 1)) // β
	}
	if valid != nil {
		zero := ScalarZero(x.Graph(), x.DType())
		logDecay, write = Where(valid, logDecay, zero), Where(valid, write, zero)
	}
	return
}

// linearMixer is the linear readout and state: q, k [B, T, H, K], v [B, T, H, V], starting from s0
// [B, H, K, V] (nil: zero) → o [B, T, H, V] and the state after the last valid token [B, H, K, V], in the
// chunked form (layers takes the step form for T = 1). With prefixes the state after every prefix
// [B, T+1, H, K, V], the span computed token by token (the verify pass: a few tokens).
func (m *Model) linearMixer(p blockParams, x, q, k, v, valid, s0 *Node, prefixes bool) (o, state *Node) {
	if !prefixes {
		return m.linearChunked(p, x, q, k, v, valid, s0)
	}
	if s0 == nil {
		d := v.Shape().Dimensions
		s0 = Zeros(x.Graph(), shapeOf(x.DType(), d[0], d[2], k.Shape().Dim(3), d[3]))
	}
	token := func(n *Node, i int) *Node {
		if n == nil {
			return nil
		}
		return SliceAxis(n, 1, AxisRange(i, i+1))
	}
	states, outs := []*Node{s0}, make([]*Node, x.Shape().Dim(1))
	state = s0
	for i := range outs {
		outs[i], state = m.linearChunked(p, token(x, i), token(q, i), token(k, i), token(v, i), token(valid, i), state)
		states = append(states, state)
	}
	return Concatenate(outs, 1), Stack(states, 1)
}

// linearChunked is linearMixer in the chunked form.
func (m *Model) linearChunked(p blockParams, x, q, k, v, valid, s0 *Node) (o, state *Node) {
	c := m.Config
	inter, err := layers.ParseInterChunk(c.InterChunk)
	if err != nil {
		panic(fmt.Errorf("config field inter_chunk: %w", err)) // Validate accepts auto, loop and scan only
	}
	logDecay, write := m.linearGates(p, x, valid)
	if c.Variant.LinearMixer() == MixerMamba2 {
		o, state = layers.NewSSD(q, k, Mul(v, ExpandAxes(write, -1)), logDecay).InitialState(s0).Chunk(c.Chunk).InterChunk(inter).Done()
		return Add(o, Mul(v, leading(ExpandAxes(p.dSkip, -1), v.Rank()))), state
	}
	return layers.NewGatedDeltaRule(layers.NormalizeL2(q, l2Eps), layers.NormalizeL2(k, l2Eps), v, logDecay, write).
		InitialState(s0).Scale(layers.DefaultScale(c.KeyDim)).Chunk(c.Chunk).InterChunk(inter).Done()
}

// leading prepends size-1 axes to x up to rank, for broadcasting per-head parameters.
func leading(x *Node, rank int) *Node {
	if extra := rank - x.Rank(); extra > 0 {
		return InsertAxes(x, make([]int, extra)...)
	}
	return x
}
