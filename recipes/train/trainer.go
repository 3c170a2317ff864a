package train

import (
	"fmt"
	"math"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/initializers"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
	"github.com/oryx-go/oryx/oryx"
)

// Trainer runs optimizer steps of an oryx model: forward and backward over micro-batches with gradient
// accumulation, then global-norm clipping and AdamW (optimizer.go), all in compiled graphs whose inputs are
// the token batch, the mode schedule and the learning rate. It holds no data or schedule logic: Run does.
//
// Graphs (all share the context's variables):
//
//	accumulate(tokens, targets, mask[, modes], scale)       → loss; adds the micro-batch gradient to "/grad_accum"
//	apply(tokens, targets, mask[, modes], scale, lr, n, ok)  → loss, grad norm, applied; the AdamW update
//	eval(tokens, targets[, modes])                           → the summed token loss of each sequence, and
//	                                                            whether each target is the argmax prediction
//
// tokens and targets are int32 [MicroBatch, SeqLen]; mask float32 [MicroBatch, SeqLen] (1 = the position
// trains, 0 = it contributes neither loss nor gradient; the data's loss masks, all ones for plain text);
// modes int32 [MicroBatch, SeqLen] (1 = attention) for multi-mixer variants only. With Batch == MicroBatch
// only apply runs and there is no accumulator.
//
// The micro-batch loss is the mean over its sequences of each sequence's mean over its trained positions
// (sequences with none left out; 0 when no position trains). Unmasked, that is the plain token mean. Per
// sequence, not per token, so that a mixture's MQAR row (a few answer positions) weighs as much as a text
// row (every position): with a token mean the answers would be ~1 % of the loss and recall would be learnt
// many times later. With ModeTraining "complementary" the loss is the mean of that loss under the modes and
// under the flipped modes.
type Trainer struct {
	cfg     TrainConfig
	model   *oryx.Model
	ctx     *context.Context
	backend backends.Backend

	accumulate, apply, eval *context.Exec
	dp                      *dataParallel // nil on one device
}

// StepStats is what one optimizer step measured.
type StepStats struct {
	Loss     float64 // mean token loss over the batch (as computed, before any skip)
	GradNorm float64 // global gradient norm before clipping (NaN/Inf when the step was skipped for it)
	Applied  bool    // false: the loss or a gradient was not finite and the update was skipped
}

// NewTrainer prepares the graphs for model m whose variables live in ctx (fresh, or loaded from a
// checkpoint with its optimizer state). With cfg.Precision "bf16" the model computes in bfloat16 from its
// float32 weights.
func NewTrainer(be backends.Backend, m *oryx.Model, ctx *context.Context, cfg TrainConfig) (*Trainer, error) {
	cfg, err := cfg.Resolve()
	if err != nil {
		return nil, fmt.Errorf("train.NewTrainer: %w", err)
	}
	return newTrainer(be, m, ctx, cfg)
}

// newTrainer is NewTrainer for a resolved cfg (TrainConfig.Resolve): Train's, checked when the run was.
func newTrainer(be backends.Backend, m *oryx.Model, ctx *context.Context, cfg TrainConfig) (*Trainer, error) {
	if m.DType != dtypes.Float32 && m.DType != dtypes.Float64 {
		return nil, fmt.Errorf("train.NewTrainer: model weights must be float32 or float64, got %s", m.DType)
	}
	if cfg.Precision == "bf16" {
		mm := *m
		mm.ComputeDType = dtypes.BFloat16
		m = &mm
	}
	t := &Trainer{cfg: cfg, model: m, ctx: ctx, backend: be}
	multi := m.Config.Variant.IsMultiMixer()
	split := func(in []*Node) (tokens, targets, modes *Node, rest []*Node) {
		tokens, targets, rest = in[0], in[1], in[2:]
		if multi {
			modes, rest = rest[0], rest[1:]
		}
		return
	}
	// The training graphs take the mask after the targets.
	splitMasked := func(in []*Node) (tokens, targets, mask, modes *Node, rest []*Node) {
		tokens, targets, modes, rest = split(append([]*Node{in[0], in[1]}, in[3:]...))
		return tokens, targets, in[2], modes, rest
	}
	var err error
	if cfg.MicroBatch < cfg.Batch {
		t.accumulate, err = context.NewExec(be, ctx, func(ctx *context.Context, in []*Node) []*Node {
			tokens, targets, mask, modes, rest := splitMasked(in)
			loss, params, grads := t.lossAndGrads(ctx, tokens, targets, mask, modes, rest[0])
			for i, p := range params {
				acc := gradAccumulator(ctx, p)
				acc.SetValueGraph(Add(acc.ValueGraph(loss.Graph()), grads[i]))
			}
			return []*Node{loss}
		})
		if err != nil {
			return nil, err
		}
	}
	t.apply, err = context.NewExec(be, ctx, func(ctx *context.Context, in []*Node) []*Node {
		tokens, targets, mask, modes, rest := splitMasked(in)
		scale, lr, n, okIn := rest[0], rest[1], rest[2], rest[3]
		g := tokens.Graph()
		loss, params, grads := t.lossAndGrads(ctx, tokens, targets, mask, modes, scale)
		if t.accumulate != nil {
			for i, p := range params {
				acc := gradAccumulator(ctx, p)
				grads[i] = Add(acc.ValueGraph(g), grads[i])
				acc.SetValueGraph(ZerosLike(grads[i]))
			}
		}
		// The summed micro-batch gradients of the scaled loss → the mean gradient of the loss.
		inv := Div(ScalarOne(g, dtypes.Float32), Mul(n, scale))
		for i := range grads {
			grads[i] = Mul(grads[i], inv)
		}
		grads, norm := clipByGlobalNorm(grads, cfg.ClipNorm)
		ok := LogicalAnd(okIn, LogicalAnd(IsFinite(norm), IsFinite(loss)))
		adamWUpdate(ctx, cfg, params, grads, lr, ok)
		stepVar := optimizers.GetGlobalStepVar(ctx)
		stepVar.SetValueGraph(AddScalar(stepVar.ValueGraph(g), 1))
		return []*Node{loss, norm, ok}
	})
	if err != nil {
		return nil, err
	}
	t.eval, err = context.NewExec(be, ctx, func(ctx *context.Context, in []*Node) []*Node {
		tokens, targets, modes, _ := split(in)
		logits := ConvertDType(t.model.Logits(ctx, tokens, modes), dtypes.Float32)
		hits := Equal(ArgMax(logits, -1, dtypes.Int32), ConvertDType(targets, dtypes.Int32))
		return []*Node{ReduceSum(crossEntropy(logits, targets), -1), hits}
	})
	if err != nil {
		return nil, err
	}
	if cfg.Devices > 1 {
		if t.dp, err = newDataParallel(be, cfg.Devices, multi, t.accumulate, t.apply, t.eval); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Config returns the trainer's configuration (defaults filled in).
func (t *Trainer) Config() TrainConfig { return t.cfg }

// Model returns the model being trained (with the compute dtype of the precision).
func (t *Trainer) Model() *oryx.Model { return t.model }

// Context returns the context holding the weights and the optimizer state.
func (t *Trainer) Context() *context.Context { return t.ctx }

// gradAccumulator is the float32 accumulator of parameter p's gradient over micro-batches.
func gradAccumulator(ctx *context.Context, p *context.Variable) *context.Variable {
	shape := p.Shape().Clone()
	shape.DType = dtypes.Float32
	return ctx.In("grad_accum").Checked(false).WithInitializer(initializers.Zero).
		VariableWithShape(optimizerVarName(p.ScopeAndName()), shape).SetTrainable(false)
}

// tokenLosses is the cross-entropy −log p(target) of every position, float32 [B, T].
func (t *Trainer) tokenLosses(ctx *context.Context, tokens, targets, modes *Node) *Node {
	return crossEntropy(ConvertDType(t.model.Logits(ctx, tokens, modes), dtypes.Float32), targets)
}

// uniformMode reports the one mode of every training token when the configuration fixes it: a multi-mixer
// model in mixed mode training with attention probability 1 (Attention) or 0 (Linear).
func (t *Trainer) uniformMode() (oryx.Mode, bool) {
	if !t.model.Config.Variant.IsMultiMixer() || t.cfg.ModeTraining != ModeTrainingBlockRandom {
		return 0, false
	}
	switch t.cfg.AttentionProb {
	case 1:
		return oryx.Attention, true
	case 0:
		return oryx.Linear, true
	}
	return 0, false
}

// crossEntropy is −log softmax(logits)[target] of every position: logits float32 [B, T, V], targets [B, T]
// → [B, T].
func crossEntropy(logits, targets *Node) *Node {
	max := StopGradient(ReduceAndKeep(logits, ReduceMax, -1))
	lse := Add(Log(ReduceSum(Exp(Sub(logits, max)), -1)), Squeeze(max, -1)) // [B, T]
	picked := Squeeze(TakeAlongAxisLast(logits, targets), -1)               // [B, T]
	return Sub(lse, picked)
}

// TakeAlongAxisLast gathers x [B, T, V] at idx [B, T] along the last axis → [B, T, 1].
func TakeAlongAxisLast(x, idx *Node) *Node {
	b, tt := idx.Shape().Dim(0), idx.Shape().Dim(1)
	g := x.Graph()
	bi := Iota(g, shapeInt32(b, tt, 1), 0)
	ti := Iota(g, shapeInt32(b, tt, 1), 1)
	full := Concatenate([]*Node{bi, ti, ExpandAxes(ConvertDType(idx, dtypes.Int32), -1)}, -1) // [B, T, 3]
	return ExpandAxes(Gather(x, full), -1)
}

// maskedMean is the mean over sequences (rows of losses and mask, [B, T]) of Σ_t mask·losses / Σ_t mask,
// over the sequences with a trained position (0 when there is none): masked positions contribute neither to
// the value nor, through the product, to the gradient.
func maskedMean(losses, mask *Node) *Node {
	n := ReduceSum(mask, -1)                                         // [B]
	rows := Div(ReduceSum(Mul(losses, mask), -1), MaxScalar(n, 1))   // [B]
	used := ConvertDType(GreaterThan(n, ZerosLike(n)), mask.DType()) // [B]
	return Div(ReduceAllSum(rows), MaxScalar(ReduceAllSum(used), 1))
}

// trainLoss is the micro-batch's training loss: the masked token mean under modes, or with complementary
// mode training the mean of it under modes and under the flipped modes (1 − modes).
//
// Mixed training with p = 1 or p = 0 (the study's controls) puts every token in one mode: the loss is then
// built on that readout alone (oryx.Model.LogitsInMode) — the same loss and gradients as selecting it per
// token from both readouts, at the single mixer's cost; the modes input is not read.
func (t *Trainer) trainLoss(ctx *context.Context, tokens, targets, mask, modes *Node) *Node {
	if mode, ok := t.uniformMode(); ok {
		logits := ConvertDType(t.model.LogitsInMode(ctx, tokens, mode), dtypes.Float32)
		return maskedMean(crossEntropy(logits, targets), mask)
	}
	loss := maskedMean(t.tokenLosses(ctx, tokens, targets, modes), mask)
	if modes == nil || t.cfg.ModeTraining != ModeTrainingComplementary {
		return loss
	}
	flipped := Sub(OnesLike(modes), modes)
	return MulScalar(Add(loss, maskedMean(t.tokenLosses(ctx, tokens, targets, flipped), mask)), 0.5)
}

// lossAndGrads returns the training loss of the micro-batch (trainLoss) and the float32 gradients of
// loss·scale with respect to the model's parameters.
func (t *Trainer) lossAndGrads(ctx *context.Context, tokens, targets, mask, modes, scale *Node) (*Node, []*context.Variable, []*Node) {
	loss := t.trainLoss(ctx, tokens, targets, mask, modes)
	g := loss.Graph()
	params := modelParams(ctx, g)
	values := make([]*Node, len(params))
	for i, p := range params {
		values[i] = p.ValueGraph(g)
	}
	grads := Gradient(Mul(loss, scale), values...)
	for i := range grads {
		grads[i] = ConvertDType(grads[i], dtypes.Float32)
	}
	return loss, params, grads
}

// Step runs one optimizer step over a batch: seqs holds Batch sequences of SeqLen+1 tokens (inputs
// seq[:T], targets seq[1:]); modes holds one row of SeqLen modes per sequence for multi-mixer variants (nil
// otherwise). lossScale multiplies the loss (normally cfg.LossScale; a non-finite value makes the step
// non-finite, which tests use).
func (t *Trainer) Step(seqs [][]int32, modes [][]oryx.Mode, lr float64) (StepStats, error) {
	return t.step(seqs, nil, modes, lr, t.cfg.LossScale)
}

// StepMasked is Step with loss masks: masks[i] has SeqLen entries aligned with the targets seqs[i][1:],
// true where the position trains; a nil masks, or a nil row, trains every position.
func (t *Trainer) StepMasked(seqs [][]int32, masks [][]bool, modes [][]oryx.Mode, lr float64) (StepStats, error) {
	return t.step(seqs, masks, modes, lr, t.cfg.LossScale)
}

func (t *Trainer) step(seqs [][]int32, masks [][]bool, modes [][]oryx.Mode, lr, lossScale float64) (StepStats, error) {
	c := t.cfg
	if len(seqs) != c.Batch {
		return StepStats{}, fmt.Errorf("Trainer.Step: got %d sequences, want batch %d", len(seqs), c.Batch)
	}
	n := c.Batch / c.MicroBatch
	var lossSum float64
	finite := true
	for i := 0; i < n; i++ {
		lo, hi := i*c.MicroBatch, (i+1)*c.MicroBatch
		in, err := t.inputs(seqs[lo:hi], sliceModes(modes, lo, hi))
		if err != nil {
			return StepStats{}, err
		}
		mask, err := t.maskTensor(masks, lo, hi)
		if err != nil {
			return StepStats{}, err
		}
		in = append(in[:2], append([]any{mask}, in[2:]...)...)
		scale := tensors.FromScalar(float32(lossScale))
		if i < n-1 {
			outs, err := t.exec(t.accumulate, append(in, scale)...)
			if err != nil {
				return StepStats{}, fmt.Errorf("Trainer.Step: accumulate: %w", err)
			}
			l := float64(outs[0].Value().(float32))
			finite = finite && !math.IsNaN(l) && !math.IsInf(l, 0)
			lossSum += l
			continue
		}
		outs, err := t.exec(t.apply, append(in, scale, tensors.FromScalar(float32(lr)),
			tensors.FromScalar(float32(n)), tensors.FromScalar(finite))...)
		if err != nil {
			return StepStats{}, fmt.Errorf("Trainer.Step: apply: %w", err)
		}
		lossSum += float64(outs[0].Value().(float32))
		return StepStats{
			Loss:     lossSum / float64(n),
			GradNorm: float64(outs[1].Value().(float32)),
			Applied:  outs[2].Value().(bool),
		}, nil
	}
	panic("unreachable")
}

// EvalLoss returns the summed token loss and the token count of a batch of MicroBatch sequences (SeqLen+1
// tokens each) read with modes (nil for single-mixer variants).
func (t *Trainer) EvalLoss(seqs [][]int32, modes [][]oryx.Mode) (sum float64, tokens int, err error) {
	in, err := t.inputs(seqs, modes)
	if err != nil {
		return 0, 0, err
	}
	outs, err := t.exec(t.eval, in...)
	if err != nil {
		return 0, 0, fmt.Errorf("Trainer.EvalLoss: %w", err)
	}
	for _, v := range outs[0].Value().([]float32) {
		sum += float64(v)
	}
	return sum, len(seqs) * t.cfg.SeqLen, nil
}

// EvalSequenceLosses returns each sequence's mean token loss (nats/token) for a batch of MicroBatch sequences
// (SeqLen+1 tokens each) read with modes (nil for single-mixer variants), through the graph EvalLoss runs:
// per-sequence scores of the weights in training with no graph of their own (recipes/study's trend scores its
// held-out set so at its read-out steps, paired sequence by sequence across runs).
func (t *Trainer) EvalSequenceLosses(seqs [][]int32, modes [][]oryx.Mode) ([]float64, error) {
	if len(seqs) != t.cfg.MicroBatch {
		return nil, fmt.Errorf("Trainer.EvalSequenceLosses: got %d sequences, want the micro-batch %d (one compiled shape)", len(seqs), t.cfg.MicroBatch)
	}
	in, err := t.inputs(seqs, modes)
	if err != nil {
		return nil, err
	}
	outs, err := t.exec(t.eval, in...)
	if err != nil {
		return nil, fmt.Errorf("Trainer.EvalSequenceLosses: %w", err)
	}
	sums := outs[0].Value().([]float32)
	out := make([]float64, len(sums))
	for i, v := range sums {
		out[i] = float64(v) / float64(t.cfg.SeqLen)
	}
	return out, nil
}

// EvalGreedy reads a batch of MicroBatch sequences (SeqLen+1 tokens each) with modes (nil for single-mixer
// variants) through the graph EvalLoss runs, and returns for every position whether its target is the
// model's argmax prediction ([MicroBatch][SeqLen]): accuracy probes during training cost no graph of their
// own (recipes/study's recall curves).
func (t *Trainer) EvalGreedy(seqs [][]int32, modes [][]oryx.Mode) ([][]bool, error) {
	if len(seqs) != t.cfg.MicroBatch {
		return nil, fmt.Errorf("Trainer.EvalGreedy: got %d sequences, want the micro-batch %d (one compiled shape)", len(seqs), t.cfg.MicroBatch)
	}
	in, err := t.inputs(seqs, modes)
	if err != nil {
		return nil, err
	}
	outs, err := t.exec(t.eval, in...)
	if err != nil {
		return nil, fmt.Errorf("Trainer.EvalGreedy: %w", err)
	}
	flat := outs[1].Value().([][]bool)
	return flat, nil
}

// inputs builds the tokens, targets (and modes) tensors of a micro-batch.
func (t *Trainer) inputs(seqs [][]int32, modes [][]oryx.Mode) ([]any, error) {
	b, tt := len(seqs), t.cfg.SeqLen
	tok := make([]int32, 0, b*tt)
	tgt := make([]int32, 0, b*tt)
	vocab := int32(t.model.Config.Vocab)
	for i, s := range seqs {
		if len(s) != tt+1 {
			return nil, fmt.Errorf("sequence %d has %d tokens, want seq_len+1 = %d", i, len(s), tt+1)
		}
		for j, id := range s {
			if id < 0 || id >= vocab {
				return nil, fmt.Errorf("sequence %d token %d: id %d outside the model's vocabulary [0, %d)", i, j, id, vocab)
			}
		}
		tok = append(tok, s[:tt]...)
		tgt = append(tgt, s[1:]...)
	}
	in := []any{tensors.FromFlatDataAndDimensions(tok, b, tt), tensors.FromFlatDataAndDimensions(tgt, b, tt)}
	if t.model.Config.Variant.IsMultiMixer() {
		if len(modes) != b {
			return nil, fmt.Errorf("variant %s needs one mode row per sequence: got %d rows for %d sequences",
				t.model.Config.Variant, len(modes), b)
		}
		md := make([]int32, 0, b*tt)
		for i, row := range modes {
			if len(row) != tt {
				return nil, fmt.Errorf("mode row %d has %d entries, want seq_len %d", i, len(row), tt)
			}
			for _, m := range row {
				md = append(md, int32(m))
			}
		}
		in = append(in, tensors.FromFlatDataAndDimensions(md, b, tt))
	}
	return in, nil
}

// maskTensor is the float32 [hi−lo, SeqLen] loss mask of sequences lo..hi−1 (ones where masks or its row is
// nil).
func (t *Trainer) maskTensor(masks [][]bool, lo, hi int) (*tensors.Tensor, error) {
	tt := t.cfg.SeqLen
	if masks != nil && len(masks) != t.cfg.Batch {
		return nil, fmt.Errorf("Trainer.Step: got %d loss masks, want one per sequence (%d)", len(masks), t.cfg.Batch)
	}
	m := make([]float32, 0, (hi-lo)*tt)
	for i := lo; i < hi; i++ {
		var row []bool
		if masks != nil {
			row = masks[i]
		}
		if row != nil && len(row) != tt {
			return nil, fmt.Errorf("Trainer.Step: loss mask %d has %d entries, want seq_len %d", i, len(row), tt)
		}
		for j := 0; j < tt; j++ {
			v := float32(1)
			if row != nil && !row[j] {
				v = 0
			}
			m = append(m, v)
		}
	}
	return tensors.FromFlatDataAndDimensions(m, hi-lo, tt), nil
}

func sliceModes(modes [][]oryx.Mode, lo, hi int) [][]oryx.Mode {
	if modes == nil {
		return nil
	}
	return modes[lo:hi]
}

// clipByGlobalNorm returns the gradients scaled by min(1, maxNorm/‖g‖) with ‖g‖ the norm of all of them
// together, and ‖g‖ (float32 scalar). maxNorm ≤ 0 leaves them as they are. A non-finite norm makes the
// step skipped anyway (Step), so its scaling does not matter.
func clipByGlobalNorm(grads []*Node, maxNorm float64) ([]*Node, *Node) {
	var sq *Node
	for _, gr := range grads {
		s := ReduceAllSum(Square(gr))
		if sq == nil {
			sq = s
		} else {
			sq = Add(sq, s)
		}
	}
	norm := Sqrt(sq)
	if maxNorm <= 0 {
		return grads, norm
	}
	coef := MinScalar(Div(Scalar(norm.Graph(), dtypes.Float32, maxNorm), MaxScalar(norm, 1e-30)), 1.0)
	out := make([]*Node, len(grads))
	for i, gr := range grads {
		out[i] = Mul(gr, coef)
	}
	return out, norm
}

// exec runs e on one device, or data-parallel.
func (t *Trainer) exec(e *context.Exec, args ...any) ([]*tensors.Tensor, error) {
	if t.dp == nil {
		return e.Exec(args...)
	}
	return t.dp.exec(e, args...)
}
