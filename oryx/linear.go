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

// linearGates returns the per-token log decay g ≤ 0 and the write scale (Mamba-2: Δ; GDN: β) for x [B, T, D]
// or [B, D]; valid (same leading shape, or nil) turns padded tokens into identity transitions (g = 0 and a
// zero write).
func (m *Model) linearGates(p blockParams, x, valid *Node) (logDecay, write *Node) {
	eq := "btd,hd->bth"
	if x.Rank() == 2 {
		eq = "bd,hd->bh"
	}
	rank := x.Rank() // the gates are [B, T, H] or [B, H]: per-head parameters [H] broadcast over the rest
	a, dtBias := leading(Exp(p.aLog), rank), leading(p.dtBias, rank)
	if m.Config.Variant.LinearMixer() == MixerMamba2 {
		write = Softplus(Add(Einsum(eq, x, p.dtProj), dtBias)) // Δ
		logDecay = Neg(Mul(write, a))
	} else {
		logDecay = Neg(Mul(a, Softplus(Add(Einsum(eq, x, p.decayProj), dtBias))))
		write = Sigmoid(Einsum(eq, x, p.betaProj)) // β
	}
	if valid != nil {
		zero := ScalarZero(x.Graph(), x.DType())
		logDecay, write = Where(valid, logDecay, zero), Where(valid, write, zero)
	}
	return
}

// linearMixer is the chunked (parallel) linear readout: q, k [B, T, H, K], v [B, T, H, V] → o [B, T, H, V]
// and the state [B, H, K, V] after the last valid token, starting from s0 [B, H, K, V] (nil: zero).
func (m *Model) linearMixer(p blockParams, x, q, k, v, valid, s0 *Node) (o, state *Node) {
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

// linearStep is one token of the linear readout: q, k [B, H, K], v [B, H, V], state [B, H, K, V].
func (m *Model) linearStep(p blockParams, x, q, k, v, state *Node) (o, newState *Node) {
	logDecay, write := m.linearGates(p, x, nil)
	if m.Config.Variant.LinearMixer() == MixerMamba2 {
		o, newState = layers.SSDStep(q, k, Mul(v, ExpandAxes(write, -1)), logDecay, state)
		return Add(o, Mul(v, leading(ExpandAxes(p.dSkip, -1), v.Rank()))), newState
	}
	return layers.GatedDeltaRuleStep(layers.NormalizeL2(q, l2Eps), layers.NormalizeL2(k, l2Eps), v, logDecay, write,
		state, layers.DefaultScale(m.Config.KeyDim))
}

// leading prepends size-1 axes to x up to rank, for broadcasting per-head parameters.
func leading(x *Node, rank int) *Node {
	if extra := rank - x.Rank(); extra > 0 {
		return InsertAxes(x, make([]int, extra)...)
	}
	return x
}
