package oryx

// Predictive entropy at every position, in the Scorer's bounded memory: the first pass of the entropy
// budget policy (oryx/schedule/budget.go) reads the linear readout's next-token distribution at each position.
//
//	h      = Hidden(tokens, modes)                 [B, T, D], once
//	x      = h[b, pos[b, c]]                       [B, C, D], one tile of positions
//	logits = x · W_head[ids]ᵀ                      [B, C, Vc], one tile of vocabulary ids
//	H      = log Σ e^l − Σ e^l·l / Σ e^l           [B, C], nats, by a running (max, Σe^(l−max), Σe^(l−max)·l)
//
// over the model's full output width (padded vocabulary rows included, as scoring does).

import (
	"fmt"
	"math"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/layers"
)

// newEntropyExec compiles (lazily, per shape) the entropy fold of one tile of positions and vocabulary ids.
func newEntropyExec(be backends.Backend, ctx *context.Context, m *Model) (*context.Exec, error) {
	return context.NewExec(be, ctx, func(ctx *context.Context, in []*Node) []*Node {
		return m.entropyVocabTile(ctx, in[0], in[1], in[2], in[3], in[4], in[5])
	})
}

// entropyVocabTile folds the consecutive vocabulary ids ids [Vc] (ids ≥ Vocab are padding) into the
// running state of positions pos [B, C] of h [B, T, D]: mx (the max logit), sum (Σ e^(l−mx)) and w
// (Σ e^(l−mx)·l), all [B, C] in the score dtype; returns the new state in that order.
func (m *Model) entropyVocabTile(ctx *context.Context, h, pos, ids, mx, sum, w *Node) []*Node {
	g := h.Graph()
	v := m.Config.Vocab
	sd := ScoreDType(m.computeDType())
	wt := Gather(m.HeadWeight(ctx, g), ExpandAxes(MinScalar(ids, v-1), -1)) // [Vc, D]
	logits := ConvertDType(DotGeneral(layers.GatherRows(h, pos), []int{2}, nil, wt, []int{1}, nil), sd)
	dims := logits.Shape().Dimensions
	real := LessThan(BroadcastToDims(Reshape(ids, 1, 1, dims[2]), dims...), Const(g, int32(v)))
	logits = Where(real, logits, Scalar(g, sd, math.Inf(-1)))
	m2 := Max(mx, ReduceMax(logits, -1))
	scale := Exp(Sub(mx, m2))
	e := Exp(Sub(logits, ExpandAxes(m2, -1)))
	el := Where(real, Mul(e, logits), ZerosLike(e)) // padding: 0, not 0·(−∞)
	return []*Node{m2, Add(Mul(sum, scale), ReduceSum(e, -1)), Add(Mul(w, scale), ReduceSum(el, -1))}
}

// Entropies runs b rows of t tokens (tokens and modes as in Score) and returns the entropy of the
// next-token distribution at every position ([b, t], row-major, nats).
func (s *Scorer) Entropies(tokens, modes []int32, b, t int) ([]float64, error) {
	h, err := s.forward(tokens, modes, b, t)
	if err != nil {
		return nil, err
	}
	defer h.FinalizeAll()
	return s.entropyAll(h, b, t)
}

// ScoreEntropy is Score and Entropies from one forward: log p and greedy at pos ([b, n]), and the entropy
// at every position ([b, t]).
func (s *Scorer) ScoreEntropy(tokens, modes []int32, b, t int, pos, targets []int32, n int) (logp []float64, greedy []bool, entropy []float64, err error) {
	if err := s.checkInput(tokens, modes, b, t); err != nil {
		return nil, nil, nil, err
	}
	if err := s.checkTargets(b, t, pos, targets, n); err != nil {
		return nil, nil, nil, err
	}
	h, err := s.forward(tokens, modes, b, t)
	if err != nil {
		return nil, nil, nil, err
	}
	defer h.FinalizeAll()
	if logp, greedy, err = s.scoreAt(h, b, pos, targets, n); err != nil {
		return nil, nil, nil, err
	}
	entropy, err = s.entropyAll(h, b, t)
	return logp, greedy, entropy, err
}

// entropyAll computes the entropy at every position of h [b, t, D], in tiles of positions and vocabulary
// ids that fit the Scorer's budget (Tiles).
func (s *Scorer) entropyAll(h *tensors.Tensor, b, t int) ([]float64, error) {
	v := s.model.Config.Vocab
	sd := ScoreDType(s.model.computeDType())
	c, vc := s.Tiles(b, t)
	vc = min(vc, v)
	out := make([]float64, b*t)
	fill := func(x float64) *tensors.Tensor { return filledScores(sd, x, b, c) }
	for lo := 0; lo < t; lo += c {
		cp := make([]int32, b*c) // positions past t read position 0 and are dropped
		for r := range b {
			for j := range c {
				if p := lo + j; p < t {
					cp[r*c+j] = int32(p)
				}
			}
		}
		pt := tensors.FromFlatDataAndDimensions(cp, b, c)
		state := []*tensors.Tensor{fill(math.Inf(-1)), fill(0), fill(0)}
		for vlo := 0; vlo < v; vlo += vc {
			ids := make([]int32, vc)
			for i := range ids {
				ids[i] = int32(vlo + i)
			}
			outs, err := s.entropy.Exec(h, pt, tensors.FromFlatDataAndDimensions(ids, vc), state[0], state[1], state[2])
			tensordata.FinalizeAll(state)
			if err != nil {
				pt.FinalizeAll()
				return nil, fmt.Errorf("oryx.Scorer: entropy at positions %d..%d, vocabulary ids %d..%d: %w", lo, min(lo+c, t)-1, vlo, min(vlo+vc, v)-1, err)
			}
			state = outs
		}
		pt.FinalizeAll()
		mx, sum, w := tensordata.Float64s(state[0]), tensordata.Float64s(state[1]), tensordata.Float64s(state[2])
		tensordata.FinalizeAll(state)
		for r := range b {
			for j := range c {
				if p := lo + j; p < t {
					i := r*c + j
					out[r*t+p] = math.Log(sum[i]) + mx[i] - w[i]/sum[i]
				}
			}
		}
	}
	return out, nil
}
