package infer

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/oryx"
)

// Engine runs a model for inference: a batch of rows, each with its KV cache (capacity tokens), linear state
// and conv inputs. Prefill runs the parallel form over the prompts; Step decodes one token per row with the
// mode given for each row. The state lives in tensors between calls (graph inputs and outputs in the order
// of State.Flatten).
type Engine struct {
	model    *oryx.Model
	ctx      *context.Context
	backend  backends.Backend
	batch    int
	capacity int

	prefill       *context.Exec
	steps         map[int]*context.Exec         // steps that read attention, by the cache rows they read (readRows; 0: all), made on first use
	empty         *context.Exec                 // the empty state (Reset)
	prefillLinear *context.Exec                 // every prompt token in linear mode: no attention readout (multi-mixer variants)
	segments      map[segmentKind]*context.Exec // a long prompt's segment graphs (prefillsegments.go), made on first use
	segmentKeys   int                           // the cache rows a segment's attention reads grow in steps of this (0: by backend)
	stepLinear    *context.Exec                 // all rows in linear mode: no attention read (variants with a linear mixer)
	attnMem       int64                         // the prefill's bound on one attention query block (prefillModel)
	state         []*tensors.Tensor
	pos           []int            // host copy of State.Pos
	lastLogits    [][]float64      // the logits of the last call, at full precision
	spec          *specExecs       // speculative decoding's graphs (speculative.go), built on first use
	escalation    *escalationExecs // StepEscalate's graphs and the entropy budget's prompt pass (escalate.go), made on first use

	// PrefillProgress, when set, is called after each segment of a prefill read in segments (batches longer
	// than one segment: prefillsegments.go) with the prompt tokens read so far and the longest prompt's length.
	PrefillProgress func(done, total int)
}

// NewEngine prepares an engine for batch rows with a KV cache of capacity tokens. ctx holds the weights
// (created on first use if absent, e.g. random weights for tests; normally loaded from a checkpoint).
func NewEngine(be backends.Backend, ctx *context.Context, m *oryx.Model, batch, capacity int) (*Engine, error) {
	if batch <= 0 || capacity <= 0 {
		return nil, fmt.Errorf("infer.NewEngine: batch and capacity must be > 0, got %d and %d", batch, capacity)
	}
	if err := oryx.CheckDecodeMemory(m.Config, batch, capacity); err != nil {
		return nil, fmt.Errorf("infer.NewEngine: %w", err)
	}
	e := &Engine{model: m, ctx: ctx, backend: be, batch: batch, capacity: capacity}
	pm := prefillModel(m)
	e.attnMem = pm.AttentionMemBytes
	var err error
	e.prefill, err = context.NewExec(be, ctx, func(ctx *context.Context, in []*Node) []*Node {
		logits, st := prefillGraph(ctx, pm, in[0], pm.ModesOrNil(in[1]), in[2], capacity, false)
		return append([]*Node{logits}, st.Flatten()...)
	})
	if err != nil {
		return nil, err
	}
	if m.Config.Variant.IsMultiMixer() {
		e.prefillLinear, err = context.NewExec(be, ctx, func(ctx *context.Context, in []*Node) []*Node {
			logits, st := prefillGraph(ctx, pm, in[0], nil, in[2], capacity, true)
			return append([]*Node{logits}, st.Flatten()...)
		})
		if err != nil {
			return nil, err
		}
	}
	if m.Config.Variant.LinearMixer() != oryx.NoLinear {
		e.stepLinear, err = context.NewExec(be, ctx, func(ctx *context.Context, in []*Node) []*Node {
			logits, st, _ := stepGraph(ctx, m, in[0], nil, m.Unflatten(in[2:]), true, 0)
			return append([]*Node{logits}, st.Flatten()...)
		})
		if err != nil {
			return nil, err
		}
	}
	return e, e.Reset()
}

// Reset empties the state (positions 0). Its graph is kept: a prefill read in segments starts with a Reset.
// The old state is released first, so that the two never take memory together.
func (e *Engine) Reset() error {
	e.Free()
	if e.empty == nil {
		exec, err := context.NewExec(e.backend, e.ctx, func(ctx *context.Context, g *Graph) []*Node {
			return e.model.EmptyState(g, e.batch, e.capacity).Flatten()
		})
		if err != nil {
			return err
		}
		e.empty = exec
	}
	outs, err := e.empty.Exec()
	if err != nil {
		return err
	}
	e.setState(outs)
	return nil
}

func (e *Engine) setState(st []*tensors.Tensor) {
	for _, t := range e.state {
		t.FinalizeAll()
	}
	e.state = st
	e.pos = make([]int, e.batch)
	for i, p := range tensors.MustCopyFlatData[int32](st[0]) {
		e.pos[i] = int(p)
	}
}

// Positions returns each row's number of tokens so far.
func (e *Engine) Positions() []int { return append([]int(nil), e.pos...) }

// Capacity is the KV-cache size in tokens.
func (e *Engine) Capacity() int { return e.capacity }

// Batch is the number of rows.
func (e *Engine) Batch() int { return e.batch }

// Prefill replaces the state with the one after prompts (one per row, lengths may differ, each ≥ 1) read with
// the given modes (modes[b] has len(prompts[b]) entries; 1 = attention), and returns the logits [B][Vocab]
// after each row's last prompt token.
func (e *Engine) Prefill(prompts [][]int32, modes [][]oryx.Mode) ([][]float32, error) {
	if len(prompts) != e.batch {
		return nil, fmt.Errorf("Engine.Prefill: %d prompts for a batch of %d rows", len(prompts), e.batch)
	}
	t := 0
	for b, p := range prompts {
		if len(p) == 0 {
			return nil, fmt.Errorf("Engine.Prefill: prompt %d is empty", b)
		}
		if len(p) > e.capacity {
			return nil, fmt.Errorf("Engine.Prefill: prompt %d has %d tokens, more than the cache capacity %d", b, len(p), e.capacity)
		}
		if modes != nil && len(modes[b]) != len(p) {
			return nil, fmt.Errorf("Engine.Prefill: prompt %d has %d tokens but %d modes", b, len(p), len(modes[b]))
		}
		if err := e.checkTokens(p); err != nil {
			return nil, fmt.Errorf("Engine.Prefill: prompt %d: %w", b, err)
		}
		t = max(t, len(p))
	}
	if modes == nil && e.model.Config.Variant.IsMultiMixer() {
		return nil, fmt.Errorf("Engine.Prefill: variant %s needs a mode for every prompt token", e.model.Config.Variant)
	}
	if pt := prefillLength(t, e.capacity); pt <= prefillOneShotMax {
		return e.prefillPadded(prompts, modes, pt)
	}
	return e.prefillSegments(prompts, modes, t, 0)
}

// prefillPadded runs Prefill's graph on the prompts padded to t tokens (≥ the longest; prompts checked by Prefill).
func (e *Engine) prefillPadded(prompts [][]int32, modes [][]oryx.Mode, t int) ([][]float32, error) {
	tok, md := make([]int32, e.batch*t), make([]int32, e.batch*t)
	lengths := make([]int32, e.batch)
	for b, p := range prompts {
		copy(tok[b*t:], p)
		for i := range p {
			if modes != nil {
				md[b*t+i] = int32(modes[b][i])
			}
		}
		lengths[b] = int32(len(p))
	}
	if err := CheckPrefillMemory(e.model.Config, e.batch, t, e.capacity, e.attnMem); err != nil {
		return nil, fmt.Errorf("Engine.Prefill: %w", err)
	}
	exec := e.prefill
	if e.prefillLinear != nil && allLinear(md) {
		exec = e.prefillLinear
	}
	e.Free() // the prefill replaces the state: the old one must not take memory beside the new one
	outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(tok, e.batch, t),
		tensors.FromFlatDataAndDimensions(md, e.batch, t), tensors.FromFlatDataAndDimensions(lengths, e.batch))
	if err != nil {
		return nil, fmt.Errorf("Engine.Prefill: %w (the state was released: Reset or Prefill again)", err)
	}
	e.setState(outs[1:])
	return e.logitsRows(outs[0]), nil
}

// allLinear reports whether every mode in md is Linear.
func allLinear(md []int32) bool {
	for _, x := range md {
		if x != int32(oryx.Linear) {
			return false
		}
	}
	return true
}

// prefillModel is m as the engine's prefill runs it: when m sets no bound on the attention logits
// (AttentionMemBytes 0, the dense T×T form), a copy bounded by PrefillAttentionMemBytes, so that a long prompt's
// attention runs in query blocks (O(T) memory per block instead of O(T²); layers.CausalAttentionQueryBlocks, the
// same values) while prompts whose dense logits fit that bound keep the dense form unchanged.
func prefillModel(m *oryx.Model) *oryx.Model {
	if m.AttentionMemBytes > 0 {
		return m
	}
	pm := *m
	pm.AttentionMemBytes = PrefillAttentionMemBytes
	return &pm
}

// PrefillAttentionMemBytes bounds one attention query block of the engine's prefill when the model sets no
// bound: the evaluation's default (oryx.DefaultScoreMemBytes).
const PrefillAttentionMemBytes = oryx.DefaultScoreMemBytes

// prefillBucket: Prefill pads its batch to a multiple of this many tokens (the longest prompt rounded up,
// at most the capacity), so that prompts of nearby lengths share one compiled prefill graph. Without it each
// distinct longest-prompt length compiles a graph (XLA CPU: seconds each for the tiny model; the mini needle's
// 60 prompts span 8 lengths). Padding is the ragged-batch path every prefill already takes: padded positions
// are invalid tokens that change neither the state nor the returned logits (TestPrefillPaddingInvariant).
const prefillBucket = 64

// prefillLength is the padded prefill length of a batch whose longest prompt has t ≤ capacity tokens.
func prefillLength(t, capacity int) int {
	return min((t+prefillBucket-1)/prefillBucket*prefillBucket, capacity)
}

// Step feeds one token per row with its mode and returns the logits [B][Vocab] for the next token. It fails
// with a clear error, changing nothing, when a row's cache is full.
func (e *Engine) Step(tokens []int32, modes []oryx.Mode) ([][]float32, error) {
	if len(tokens) != e.batch || (modes != nil && len(modes) != e.batch) {
		return nil, fmt.Errorf("Engine.Step: want %d tokens and modes, got %d and %d", e.batch, len(tokens), len(modes))
	}
	if modes == nil && e.model.Config.Variant.IsMultiMixer() {
		return nil, fmt.Errorf("Engine.Step: variant %s needs a mode for every row", e.model.Config.Variant)
	}
	if err := e.checkTokens(tokens); err != nil {
		return nil, fmt.Errorf("Engine.Step: %w", err)
	}
	for b, p := range e.pos {
		if p >= e.capacity {
			return nil, fmt.Errorf("Engine.Step: the KV cache of row %d is full (%d of %d tokens): create the engine with a larger capacity", b, p, e.capacity)
		}
	}
	md := make([]int32, e.batch)
	for b := range md {
		if modes != nil {
			md[b] = int32(modes[b])
		}
	}
	exec := e.stepLinear
	if exec == nil || !allLinear(md) {
		var err error
		if exec, err = e.stepExec(readRows(slices.Max(e.pos)+1, e.capacity)); err != nil {
			return nil, fmt.Errorf("Engine.Step: %w", err)
		}
	}
	args := []any{tensors.FromFlatDataAndDimensions(append([]int32(nil), tokens...), e.batch), tensors.FromFlatDataAndDimensions(md, e.batch)}
	// The state is donated: the backend updates the caches in place (a token's cache write is O(1)).
	args, err := e.appendDonated(args, e.state)
	if err != nil {
		return nil, err
	}
	outs, err := exec.Exec(args...)
	if err != nil {
		e.state = nil // donated: gone
		return nil, fmt.Errorf("Engine.Step: %w (the state was lost: Reset or Prefill before the next Step)", err)
	}
	e.state = nil // donated to the step, replaced by its outputs
	e.setState(outs[1:])
	return e.logitsRows(outs[0]), nil
}

// minReadRows is the fewest cache rows a decode step's attention reads (readRows).
const minReadRows = 256

// readRows is how many cache rows a step (or a verify pass) reads when its longest row will hold n tokens: the
// smallest power of two ≥ n, at least minReadRows — or 0, the whole cache, when that reaches the capacity. The
// attention of a step then costs what is filled, not what is allocated (an engine with 84 tokens in a
// 16,384-slot cache reads 256 rows), with one compiled graph per power of two (log₂(capacity/256) + 1 graphs
// at most). Rows past a row's length are masked either way: the logits are those of the whole-cache read.
func readRows(n, capacity int) int {
	rows := minReadRows
	for rows < n {
		rows *= 2
	}
	if rows >= capacity {
		return 0
	}
	return rows
}

// stepExec returns the step graph whose attention reads the caches' first keys rows (0: all), made on first
// use.
func (e *Engine) stepExec(keys int) (*context.Exec, error) {
	if x := e.steps[keys]; x != nil {
		return x, nil
	}
	m := e.model
	x, err := context.NewExec(e.backend, e.ctx, func(ctx *context.Context, in []*Node) []*Node {
		logits, st, _ := stepGraph(ctx, m, in[0], m.ModesOrNil(in[1]), m.Unflatten(in[2:]), false, keys)
		return append([]*Node{logits}, st.Flatten()...)
	})
	if err != nil {
		return nil, err
	}
	if e.steps == nil {
		e.steps = map[int]*context.Exec{}
	}
	e.steps[keys] = x
	return x, nil
}

// appendDonated appends ts to args as buffers donated to the next execution (the backend may write its
// outputs into them; the tensors are not usable afterwards).
func (e *Engine) appendDonated(args []any, ts []*tensors.Tensor) ([]any, error) {
	for _, t := range ts {
		d, err := DonateTensorBuffer(t, e.backend, 0)
		if err != nil {
			return nil, err
		}
		args = append(args, d)
	}
	return args, nil
}

func (e *Engine) checkTokens(tokens []int32) error {
	for i, t := range tokens {
		if t < 0 || int(t) >= e.model.Config.Vocab {
			return fmt.Errorf("token %d at index %d is outside the vocabulary [0, %d)%s", t, i, e.model.Config.Vocab,
				oryx.ByteTokenizerVocabHint(int(t), e.model.Config.Vocab))
		}
	}
	return nil
}

// logitsRows copies logits [B, V] (any float dtype) to float32 host rows and keeps them at full precision.
func (e *Engine) logitsRows(t *tensors.Tensor) [][]float32 {
	defer t.FinalizeAll()
	v := e.model.Config.Vocab
	flat := tensordata.Float64s(t)
	last := make([][]float64, e.batch)
	for b := range last {
		last[b] = flat[b*v : (b+1)*v]
	}
	return e.keepLogits(last)
}

// keepLogits keeps last ([B][Vocab]) as LastLogits and returns its float32 copy for sampling.
func (e *Engine) keepLogits(last [][]float64) [][]float32 {
	e.lastLogits = last
	rows := make([][]float32, len(last))
	for b, l := range last {
		rows[b] = make([]float32, len(l))
		for i, x := range l {
			rows[b][i] = float32(x)
		}
	}
	return rows
}

// LastLogits returns the logits of the last Prefill or Step at the model's precision (float64 models keep
// all their digits here; the float32 rows returned by those calls are for sampling).
func (e *Engine) LastLogits() [][]float64 { return e.lastLogits }

// State returns a copy of the current state tensors (in State.Flatten order), for tests and snapshots.
func (e *Engine) State() [][]float64 {
	out := make([][]float64, len(e.state))
	for i, t := range e.state {
		out[i] = tensordata.Float64s(t)
	}
	return out
}
