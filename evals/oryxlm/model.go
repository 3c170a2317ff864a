// Package oryxlm evaluates an oryx model through the harness: it implements harness.Model over a checkpoint,
// scoring loglikelihood requests with the parallel forward and generating with the engine (prefill + steps),
// under a mode schedule.
package oryxlm

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// Mixed is the Schedule value of the paper's mixed setting: every request runs in linear mode up to its
// AttentionFrom token (set by the task: the question suffix, or the continuation) and in attention mode from
// there on, generated tokens included (oryx spec "linear-until:P" per request). It is not the block-random
// modes of training and validation (schedule.BlockRandom, train.ValBlockRandom).
const Mixed = "mixed"

// Options configures a Model.
type Options struct {
	// MaxLength is lm-eval's max_length (0 = 2048, the mamba_ssm wrapper's).
	MaxLength int
	// Schedule is Mixed or an oryx schedule spec (schedule.ParseSpec grammar: "attention", "linear",
	// "attention-last:N", ranges, "budget:F:POLICY"...); "" means "attention" [choice: the Transformer
	// reading]. Single-mixer variants run their only mixer whatever it says. Random specs (block, sequence)
	// are accepted for loglikelihood tasks (seed 0) but not for generation. Budgets (oryx/schedule/budget.go) place
	// exactly BudgetCount(F, T) attention tokens in each request of T tokens: budget:F:question reads the
	// task's split (AttentionFrom, passed by the harness in mixed mode), budget:F:random one seeded stream
	// per request, budget:F:entropy runs a linear pass first (policy.go).
	Schedule string
	// Batch is the number of requests per forward or generation batch (0 = 8).
	Batch int
	// ScoreMemMB bounds, in MiB, the memory of one tile of the vocabulary projection and log-softmax when
	// scoring (oryx.Scorer; 0 = oryx.DefaultScoreMemBytes, 512 MiB): scores are computed only at the scored
	// positions, in tiles of positions (and of the vocabulary) that fit, never as [Batch, T, Vocab] logits.
	// The attention logits of every forward (scoring and prefill) are cut into query blocks within the same bound
	// (oryx.Model.AttentionMemBytes).
	ScoreMemMB int
	// GenMemMB bounds, in MiB, the memory of one generation batch: the KV caches and states of its rows at the
	// batch's capacity plus the prefill's activations (infer.GenerationRowBytes per row). GenerateUntil cuts
	// its batches below Batch to fit, down to one row (0 = DefaultGenMemMB). The weights and the attention
	// tile (ScoreMemMB) come on top.
	GenMemMB int
	// Log, when set, receives a line each time GenerateUntil picks a new generation batch size or capacity.
	Log io.Writer
	// DenseScoring scores with the dense [Batch, T, Vocab] logits and their log-softmax (memory O(Batch·T·
	// Vocab)) and dense T×T attention: the reference the tiled path is tested against.
	DenseScoring bool
}

// DefaultGenMemMB is the default Options.GenMemMB [choice: 4 GiB keeps the 130m preset at NIAH 8K at 2 rows
// (≈ 1.5 GiB each) and leaves most of a 16–24 GB machine to the weights and the rest; batches of short prompts
// stay at Batch].
const DefaultGenMemMB = 4096

// Model is an oryx model behind the harness.Model interface.
type Model struct {
	model   *oryx.Model
	ctx     *context.Context
	backend backends.Backend
	tok     tokenizers.Tokenizer
	opts    Options

	scorer  *oryx.Scorer  // the tiled scorer
	dense   *context.Exec // the dense scorer (Options.DenseScoring)
	engines []keyedEngine // engines by (batch, capacity), last used last; only the last one holds KV caches
	genPlan [2]int        // the last (batch, capacity) reported to Options.Log

	spec   schedule.Spec    // the schedule when it is a spec (not Mixed)
	budget *schedule.Budget // the schedule when it is a budget:F:POLICY spec

	// FLOPs accumulates the forward FLOPs spent (schedule.ScheduleFLOPs of every sequence run, dense form; for
	// generation the prefill plus one token per step; both passes of an entropy budget). FLOPsGathered is
	// the same work in the gathered form (attention only at attention tokens; policy.go). LinearPassTokens
	// counts the tokens the entropy budget read in its extra linear pass and trial steps. Callers reset
	// them between tasks (ResetCounters).
	FLOPs, FLOPsGathered float64
	LinearPassTokens     int64
}

// Close releases the compiled graphs and the engines' state (KV caches); the model stays usable — what it
// needs next is made again on first use. Call it when done with a model in a process that goes on (a study
// evaluates many models in one process).
func (m *Model) Close() {
	if m.scorer != nil {
		m.scorer.Finalize()
		m.scorer = nil
	}
	if m.dense != nil {
		m.dense.Finalize()
		m.dense = nil
	}
	for _, ke := range m.engines {
		ke.eng.Finalize()
	}
	m.engines = nil
}

// ResetCounters sets FLOPs, FLOPsGathered and LinearPassTokens to 0.
func (m *Model) ResetCounters() { m.FLOPs, m.FLOPsGathered, m.LinearPassTokens = 0, 0, 0 }

// SetSchedule switches the schedule (Mixed or a spec, as Options.Schedule) keeping the compiled graphs, so
// that one model evaluates many schedules (the frontier).
func (m *Model) SetSchedule(spec string) error {
	if spec == "" {
		spec = "attention"
	}
	var budget *schedule.Budget
	var parsed schedule.Spec
	if spec != Mixed {
		var err error
		if parsed, err = schedule.ParseSpec(spec); err != nil {
			return fmt.Errorf("oryxlm: schedule: %w", err)
		}
		if b, ok := parsed.Budget(); ok {
			budget = &b
		}
	}
	m.opts.Schedule, m.spec, m.budget = spec, parsed, budget
	return nil
}

var _ harness.Model = (*Model)(nil)

// Load opens the checkpoint in dir for evaluation with tok, which must fit the model's vocabulary.
func Load(dir string, tok tokenizers.Tokenizer, opts Options) (*Model, error) {
	m, ctx, err := oryx.LoadCheckpointRetrying(dir, nil) // a training may be saving into it
	if err != nil {
		return nil, err
	}
	return New(m, ctx, tok, opts)
}

// New wraps a model whose weights live in ctx.
func New(m *oryx.Model, ctx *context.Context, tok tokenizers.Tokenizer, opts Options) (*Model, error) {
	if tok == nil {
		return nil, errors.New("oryxlm: nil tokenizer")
	}
	if tok.VocabSize() > m.Config.Vocab {
		return nil, fmt.Errorf("oryxlm: tokenizer %s has %d ids but the model's vocabulary is %d", tok.Name(), tok.VocabSize(), m.Config.Vocab)
	}
	if opts.MaxLength == 0 {
		opts.MaxLength = 2048
	}
	if opts.Batch == 0 {
		opts.Batch = 8
	}
	if opts.Schedule == "" {
		opts.Schedule = "attention"
	}
	if opts.MaxLength < 2 || opts.Batch < 1 {
		return nil, fmt.Errorf("oryxlm: MaxLength %d and Batch %d must be ≥ 2 and ≥ 1", opts.MaxLength, opts.Batch)
	}
	if opts.GenMemMB == 0 {
		opts.GenMemMB = DefaultGenMemMB
	}
	if opts.GenMemMB < 0 {
		return nil, fmt.Errorf("oryxlm: GenMemMB (--gen-mem-mb) %d must be ≥ 0 (0 = the default %d MiB)", opts.GenMemMB, DefaultGenMemMB)
	}
	if opts.ScoreMemMB < 0 {
		return nil, fmt.Errorf("oryxlm: ScoreMemMB (--score-mem-mb) %d must be ≥ 0 (0 = the default %d MiB)", opts.ScoreMemMB, oryx.DefaultScoreMemBytes>>20)
	}
	be, err := oryx.Backend()
	if err != nil {
		return nil, err
	}
	// A copy of the model whose attention, too, keeps within the budget at long contexts (NIAH at 8K: the
	// dense T×T logits of a batch would take gigabytes); the weights stay shared in ctx.
	mc := *m
	if mc.AttentionMemBytes == 0 && !opts.DenseScoring {
		mc.AttentionMemBytes = oryx.DefaultScoreMemBytes
		if opts.ScoreMemMB > 0 {
			mc.AttentionMemBytes = int64(opts.ScoreMemMB) << 20
		}
	}
	lm := &Model{model: &mc, ctx: ctx, backend: be, tok: tok, opts: opts}
	if err := lm.SetSchedule(opts.Schedule); err != nil {
		return nil, err
	}
	return lm, nil
}

// Tokenizer implements harness.Model.
func (m *Model) Tokenizer() tokenizers.Tokenizer { return m.tok }

// MaxLength implements harness.Model.
func (m *Model) MaxLength() int { return m.opts.MaxLength }

// PrefixToken implements harness.Model: the tokenizers the project reads have no BOS in lm-eval's sense
// for NeoX/bytes (EOS is used), and SentencePiece's BOS is id 1.
func (m *Model) PrefixToken() int {
	if bos, ok := m.tok.(interface{ BOS() int }); ok && bos.BOS() >= 0 {
		return bos.BOS()
	}
	return m.tok.EOS()
}

// Config returns the model's architecture.
func (m *Model) Config() oryx.Config { return m.model.Config }

// Schedule returns the schedule in use (Mixed or a spec).
func (m *Model) Schedule() string { return m.opts.Schedule }

// specFor returns the schedule spec of a request whose attention part starts at attnFrom: under Mixed
// "linear-until:attnFrom", else the model's.
func (m *Model) specFor(attnFrom int) (schedule.Spec, error) {
	if m.opts.Schedule == Mixed {
		return schedule.ParseSpec("linear-until:" + strconv.Itoa(max(attnFrom, 0)))
	}
	return m.spec, nil
}
