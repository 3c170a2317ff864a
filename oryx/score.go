package oryx

// Scoring in bounded memory: log p(target) and "is the target the argmax" at chosen positions, without the
// dense logits [B, T, Vocab].
//
//	B batch   T tokens   N scored positions per row   C positions per tile   D d_model   V vocabulary
//	Vc vocabulary ids per tile
//
//	h      = Hidden(tokens, modes)                                    [B, T, D], once
//	x      = h[b, pos[b, c]]                                          [B, C, D], one tile of the N positions
//	logits = x · W_headᵀ                                              [B, C, V]  (or [B, C, Vc] per vocabulary tile)
//	logp   = logits[target] − logsumexp(logits)                        [B, C]
//
// The tiles run as separate executions, one after the other, so that at most one tile's [B, C, Vc]
// intermediates are alive on any backend (within one graph the pure-Go backend's parallel executor would run
// independent tiles at the same time). With the whole vocabulary in a tile the per-row arithmetic is the
// dense form's (TargetLogProbs on the same logits); split vocabularies combine tiles with the running
// (max, Σexp) of the online log-sum-exp.

import (
	"fmt"
	"math"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/layers"
)

// DefaultScoreMemBytes is the default budget for one tile's vocabulary projection and log-softmax
// [choice: 512 MiB keeps scoring a 50K vocabulary at batch 8 within a few hundred MB on top of the forward,
// with tiles of ~80 positions, large enough that the head matmul runs at full speed].
const DefaultScoreMemBytes int64 = 512 << 20

// scoreLiveArrays is how many [B, C, Vc] arrays one tile keeps alive at once (the logits in the compute
// dtype, their score-dtype copy, logits − max and its exponential), for the budget arithmetic.
const scoreLiveArrays = 4

// minScoreTile is the smallest number of positions per tile before the vocabulary is split instead (fewer
// rows make the head matmul inefficient), and the granularity tile sizes are rounded to (few compiled
// shapes).
const minScoreTile = 16

// minVocabTile is the fewest vocabulary ids per tile (a floor for absurdly small budgets; tests use it to
// split tiny vocabularies).
const minVocabTile = 8

// ScoreDType is the dtype log-probabilities are computed in: float64 for float64 models, float32 otherwise
// (bf16 logits are converted before the log-softmax, as the dense path did).
func ScoreDType(compute dtypes.DType) dtypes.DType {
	if compute == dtypes.Float64 {
		return dtypes.Float64
	}
	return dtypes.Float32
}

// ScoreTiles returns how many positions (c) and vocabulary ids (vc) one tile holds so that
// scoreLiveArrays × batch × c × vc elements of elemBytes fit memBytes: the whole vocabulary with as many
// positions as fit (at most n rounded up to minScoreTile), or, when not even minScoreTile positions fit,
// minScoreTile positions and the vocabulary split into equal parts (at least minVocabTile ids each).
func ScoreTiles(batch, n, vocab, elemBytes int, memBytes int64) (c, vc int) {
	if batch < 1 || n < 1 || vocab < 1 || elemBytes < 1 {
		panic(fmt.Errorf("oryx.ScoreTiles: batch %d, positions %d, vocab %d and element size %d must be ≥ 1", batch, n, vocab, elemBytes))
	}
	cells := max(memBytes, 1) / int64(scoreLiveArrays*elemBytes) // elements of [B, C, Vc] allowed
	nUp := roundUp(n, minScoreTile)
	c = int(min(cells/int64(batch*vocab), int64(nUp)))
	if c >= minScoreTile || c >= n {
		if c > minScoreTile {
			c -= c % minScoreTile
		}
		return c, vocab
	}
	c = min(minScoreTile, nUp)
	vc = int(max(cells/int64(batch*c), minVocabTile))
	parts := (vocab + vc - 1) / vc
	return c, (vocab + parts - 1) / parts
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// TargetLogProbs is the log-softmax gather of dense logits [B, T, V] (any float dtype; computed in dtype sd):
// log p(targets[b, t]) [B, T] and whether the target is the argmax (bool [B, T]; ties go to the lowest id,
// as torch.argmax). The dense scoring path and the full-vocabulary tiles share it.
func TargetLogProbs(logits, targets *Node, sd dtypes.DType) (logp, greedy *Node) {
	logits = ConvertDType(logits, sd)
	mx := ReduceAndKeep(logits, ReduceMax, -1)
	lse := Add(Log(ReduceSum(Exp(Sub(logits, mx)), -1)), Squeeze(mx, -1))
	b, t := targets.Shape().Dim(0), targets.Shape().Dim(1)
	g := targets.Graph()
	bi := Iota(g, shapeInt(b, t, 1), 0)
	ti := Iota(g, shapeInt(b, t, 1), 1)
	picked := Gather(logits, Concatenate([]*Node{bi, ti, ExpandAxes(ConvertDType(targets, dtypeInt), -1)}, -1))
	return Sub(picked, lse), Equal(ArgMax(logits, -1, dtypeInt), ConvertDType(targets, dtypeInt))
}

// scoreTile is one full-vocabulary tile: h [B, T, D], pos and targets [B, C] → logp [B, C] and greedy.
func (m *Model) scoreTile(ctx *context.Context, h, pos, targets *Node) (logp, greedy *Node) {
	w := m.HeadWeight(ctx, h.Graph())
	x := layers.GatherRows(h, pos)
	return TargetLogProbs(DotGeneral(x, []int{2}, nil, w, []int{1}, nil), targets, ScoreDType(m.computeDType()))
}

// scoreVocabTile folds the consecutive vocabulary ids ids [Vc] (ids ≥ Vocab are padding) into the running state of
// the positions pos [B, C]: mx, sum (the online log-sum-exp), picked (the target's logit), bestVal and
// bestIdx (the running argmax, int32), all [B, C]; returns the new state in that order.
func (m *Model) scoreVocabTile(ctx *context.Context, h, pos, targets, ids, mx, sum, picked, bestVal, bestIdx *Node) []*Node {
	g := h.Graph()
	v := m.Config.Vocab
	sd := ScoreDType(m.computeDType())
	w := Gather(m.HeadWeight(ctx, g), ExpandAxes(MinScalar(ids, v-1), -1)) // [Vc, D]
	x := layers.GatherRows(h, pos)
	logits := ConvertDType(DotGeneral(x, []int{2}, nil, w, []int{1}, nil), sd) // [B, C, Vc]
	dims := logits.Shape().Dimensions
	idsRow := BroadcastToDims(Reshape(ids, 1, 1, dims[2]), dims...) // [B, C, Vc]
	logits = Where(LessThan(idsRow, Const(g, int32(v))), logits, Scalar(g, sd, math.Inf(-1)))
	cm := ReduceMax(logits, -1)
	m2 := Max(mx, cm)
	sum2 := Add(Mul(sum, Exp(Sub(mx, m2))), ReduceSum(Exp(Sub(logits, ExpandAxes(m2, -1))), -1))
	hit := Equal(idsRow, BroadcastToDims(ExpandAxes(targets, -1), dims...))
	picked2 := Add(picked, ReduceSum(Where(hit, logits, ZerosLike(logits)), -1))
	tileArg := Add(ArgMax(logits, -1, dtypeInt), ReduceMin(ids)) // [B, C] vocabulary id (ids are consecutive)
	better := GreaterThan(cm, bestVal)                           // strict: ties keep the lower id
	return []*Node{m2, sum2, picked2, Where(better, cm, bestVal), Where(better, tileArg, bestIdx)}
}

// Scorer scores targets at chosen positions of token sequences with the memory of one tile's head and
// log-softmax bounded by a budget (ScoreTiles); the compiled graphs are cached per shape.
type Scorer struct {
	model    *Model
	memBytes int64
	hidden   *context.Exec // tokens, modes [B, T] → Hidden [B, T, D]
	tile     *context.Exec // scoreTile
	vtile    *context.Exec // scoreVocabTile
	entropy  *context.Exec // entropyVocabTile (entropy.go)
}

// NewScorer prepares a scorer for m (weights in ctx) with memBytes (≤ 0: DefaultScoreMemBytes) for one
// tile's vocabulary projection and log-softmax.
func NewScorer(be backends.Backend, ctx *context.Context, m *Model, memBytes int64) (*Scorer, error) {
	if memBytes <= 0 {
		memBytes = DefaultScoreMemBytes
	}
	s := &Scorer{model: m, memBytes: memBytes}
	var err error
	if s.hidden, err = context.NewExec(be, ctx, func(ctx *context.Context, tok, md *Node) *Node {
		return m.Hidden(ctx, tok, m.ModesOrNil(md))
	}); err != nil {
		return nil, err
	}
	if s.tile, err = context.NewExec(be, ctx, func(ctx *context.Context, h, pos, tgt *Node) []*Node {
		lp, gr := m.scoreTile(ctx, h, pos, tgt)
		return []*Node{lp, gr}
	}); err != nil {
		return nil, err
	}
	if s.vtile, err = context.NewExec(be, ctx, func(ctx *context.Context, in []*Node) []*Node {
		return m.scoreVocabTile(ctx, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8])
	}); err != nil {
		return nil, err
	}
	if s.entropy, err = newEntropyExec(be, ctx, m); err != nil {
		return nil, err
	}
	return s, nil
}

// MemBytes is the tile budget in use.
func (s *Scorer) MemBytes() int64 { return s.memBytes }

// Finalize releases the scorer's compiled graphs (on XLA, their executables); it must not be used afterwards.
func (s *Scorer) Finalize() {
	for _, x := range s.execs() {
		if x != nil {
			x.Finalize()
		}
	}
}

// execs lists the scorer's compiled graphs (Finalize releases them).
func (s *Scorer) execs() []*context.Exec {
	return []*context.Exec{s.hidden, s.tile, s.vtile, s.entropy}
}

// Tiles returns the tile sizes (positions, vocabulary ids) used for b rows of n scored positions.
func (s *Scorer) Tiles(b, n int) (c, vc int) {
	return ScoreTiles(b, n, s.model.Config.Vocab, ScoreDType(s.model.computeDType()).Size(), s.memBytes)
}

// Score reads b rows of t tokens (tokens, and modes for multi-mixer variants — nil otherwise; both
// row-major [b, t]) and returns, for each of the n entries per row of pos and targets (row-major [b, n]),
// log p(targets[i] | tokens[row, ..pos[i]]) and whether targets[i] is the argmax prediction there. A pos of
// −1 is padding (its result is 0, false).
func (s *Scorer) Score(tokens, modes []int32, b, t int, pos, targets []int32, n int) (logp []float64, greedy []bool, err error) {
	if err := s.checkInput(tokens, modes, b, t); err != nil {
		return nil, nil, err
	}
	if err := s.checkTargets(b, t, pos, targets, n); err != nil {
		return nil, nil, err
	}
	h, err := s.forward(tokens, modes, b, t)
	if err != nil {
		return nil, nil, err
	}
	defer h.FinalizeAll()
	return s.scoreAt(h, b, pos, targets, n)
}

// checkTargets validates Score's positions and targets ([b, n], row-major) for rows of t tokens.
func (s *Scorer) checkTargets(b, t int, pos, targets []int32, n int) error {
	v := s.model.Config.Vocab
	switch {
	case n < 1:
		return fmt.Errorf("oryx.Scorer: positions %d must be ≥ 1", n)
	case len(pos) != b*n || len(targets) != b*n:
		return fmt.Errorf("oryx.Scorer: pos (%d) and targets (%d) must hold %d×%d entries", len(pos), len(targets), b, n)
	}
	for i, p := range pos {
		if p < -1 || int(p) >= t {
			return fmt.Errorf("oryx.Scorer: position %d at index %d is outside [-1, %d)", p, i, t)
		}
		if p >= 0 && (targets[i] < 0 || int(targets[i]) >= v) {
			return fmt.Errorf("oryx.Scorer: target %d at index %d is outside the vocabulary [0, %d)", targets[i], i, v)
		}
	}
	return nil
}

// forward validates tokens and modes ([b, t], row-major; modes nil for single-mixer variants) and runs the
// forward to the final hidden states [b, t, D]; the caller finalizes them.
func (s *Scorer) forward(tokens, modes []int32, b, t int) (*tensors.Tensor, error) {
	if err := s.checkInput(tokens, modes, b, t); err != nil {
		return nil, err
	}
	if modes == nil {
		modes = make([]int32, b*t)
	}
	outs, err := s.hidden.Exec(tensors.FromFlatDataAndDimensions(tokens, b, t), tensors.FromFlatDataAndDimensions(modes, b, t))
	if err != nil {
		return nil, fmt.Errorf("oryx.Scorer: forward: %w", err)
	}
	return outs[0], nil
}

// checkInput validates tokens and modes ([b, t], row-major; modes nil for single-mixer variants).
func (s *Scorer) checkInput(tokens, modes []int32, b, t int) error {
	v := s.model.Config.Vocab
	switch {
	case b < 1 || t < 1:
		return fmt.Errorf("oryx.Scorer: batch %d and length %d must be ≥ 1", b, t)
	case len(tokens) != b*t || (modes != nil && len(modes) != b*t):
		return fmt.Errorf("oryx.Scorer: tokens (%d) and modes (%d) must hold %d×%d entries", len(tokens), len(modes), b, t)
	case modes == nil && s.model.Config.Variant.IsMultiMixer():
		return fmt.Errorf("oryx.Scorer: variant %s needs a mode for every token", s.model.Config.Variant)
	}
	for i, x := range tokens {
		if x < 0 || int(x) >= v {
			return fmt.Errorf("oryx.Scorer: token %d at index %d is outside the vocabulary [0, %d)", x, i, v)
		}
	}
	return nil
}

// scoreAt scores the targets at the positions pos ([b, n], row-major, −1 = padding) from the hidden states h.
func (s *Scorer) scoreAt(h *tensors.Tensor, b int, pos, targets []int32, n int) (logp []float64, greedy []bool, err error) {
	logp, greedy = make([]float64, b*n), make([]bool, b*n)
	c, vc := s.Tiles(b, n)
	for lo := 0; lo < n; lo += c {
		cp, ct := make([]int32, b*c), make([]int32, b*c) // this tile's positions (padding reads position 0)
		for r := range b {
			for j := range c {
				if k := lo + j; k < n && pos[r*n+k] >= 0 {
					cp[r*c+j], ct[r*c+j] = pos[r*n+k], targets[r*n+k]
				}
			}
		}
		lp, gr, err := s.scoreTile(h, cp, ct, b, c, vc)
		if err != nil {
			return nil, nil, fmt.Errorf("oryx.Scorer: positions %d..%d: %w", lo, min(lo+c, n)-1, err)
		}
		for r := range b {
			for j := range c {
				if k := lo + j; k < n && pos[r*n+k] >= 0 {
					logp[r*n+k], greedy[r*n+k] = lp[r*c+j], gr[r*c+j]
				}
			}
		}
	}
	return logp, greedy, nil
}

// scoreTile scores one tile of positions (row-major [b, c]) over the whole vocabulary at once or in
// vocabulary tiles of vc ids.
func (s *Scorer) scoreTile(h *tensors.Tensor, pos, targets []int32, b, c, vc int) ([]float64, []bool, error) {
	pt, tt := tensors.FromFlatDataAndDimensions(pos, b, c), tensors.FromFlatDataAndDimensions(targets, b, c)
	v := s.model.Config.Vocab
	if vc >= v {
		outs, err := s.tile.Exec(h, pt, tt)
		if err != nil {
			return nil, nil, err
		}
		defer tensordata.FinalizeAll(outs)
		return tensordata.Float64s(outs[0]), tensors.MustCopyFlatData[bool](outs[1]), nil
	}
	sd := ScoreDType(s.model.computeDType())
	fill := func(x float64) *tensors.Tensor { return filledScores(sd, x, b, c) }
	state := []*tensors.Tensor{fill(math.Inf(-1)), fill(0), fill(0), fill(math.Inf(-1)),
		tensors.FromFlatDataAndDimensions(make([]int32, b*c), b, c)}
	for lo := 0; lo < v; lo += vc {
		ids := make([]int32, vc)
		for i := range ids {
			ids[i] = int32(lo + i) // ≥ v in the last tile: padding
		}
		args := []any{h, pt, tt, tensors.FromFlatDataAndDimensions(ids, vc)}
		for _, x := range state {
			args = append(args, x)
		}
		outs, err := s.vtile.Exec(args...)
		tensordata.FinalizeAll(state)
		if err != nil {
			return nil, nil, fmt.Errorf("vocabulary ids %d..%d: %w", lo, min(lo+vc, v)-1, err)
		}
		state = outs
	}
	defer tensordata.FinalizeAll(state)
	mx, sum, picked := tensordata.Float64s(state[0]), tensordata.Float64s(state[1]), tensordata.Float64s(state[2])
	best := tensors.MustCopyFlatData[int32](state[4])
	logp, greedy := make([]float64, b*c), make([]bool, b*c)
	for i := range logp {
		logp[i] = picked[i] - (mx[i] + math.Log(sum[i]))
		greedy[i] = best[i] == targets[i]
	}
	return logp, greedy, nil
}

// filledScores is a [b, c] tensor of the scorer's dtype sd (float64 or float32) holding x everywhere: the
// initial value of a streamed reduction's running state (−∞ for maxima, 0 for sums).
func filledScores(sd dtypes.DType, x float64, b, c int) *tensors.Tensor {
	if sd == dtypes.Float64 {
		f := make([]float64, b*c)
		for i := range f {
			f[i] = x
		}
		return tensors.FromFlatDataAndDimensions(f, b, c)
	}
	f := make([]float32, b*c)
	for i := range f {
		f[i] = float32(x)
	}
	return tensors.FromFlatDataAndDimensions(f, b, c)
}
