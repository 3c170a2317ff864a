package oryxlm

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/oryx"
)

// lengthBucket rounds sequence lengths up so that few distinct shapes are compiled.
const lengthBucket = 64

// scoreGraph: tokens, targets, modes [B, T] int32 → the log-probability of each target (float32 [B, T],
// log-softmax over the full vocabulary width) and whether it is the argmax (bool [B, T]; ties go to the
// lowest id, as torch.argmax).
func (m *Model) scoreGraph(ctx *context.Context, tokens, targets, modes *Node) (logp, greedy *Node) {
	if !m.model.Config.Variant.IsMultiMixer() {
		modes = nil
	}
	logits := ConvertDType(m.model.Logits(ctx, tokens, modes), dtypes.Float32) // [B, T, V]
	mx := ReduceAndKeep(logits, ReduceMax, -1)
	lse := Add(Log(ReduceSum(Exp(Sub(logits, mx)), -1)), Squeeze(mx, -1))
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	g := tokens.Graph()
	bi := Iota(g, shapeInt(b, t, 1), 0)
	ti := Iota(g, shapeInt(b, t, 1), 1)
	picked := Gather(logits, Concatenate([]*Node{bi, ti, ExpandAxes(targets, -1)}, -1)) // [B, T]
	logp = Sub(picked, lse)
	greedy = Equal(ArgMax(logits, -1, dtypes.Int32), targets)
	return logp, greedy
}

// ensureScorer compiles (lazily) the scoring exec.
func (m *Model) ensureScorer() error {
	if m.scorer != nil {
		return nil
	}
	var err error
	m.scorer, err = context.NewExec(m.backend, m.ctx, func(ctx *context.Context, tok, tgt, md *Node) []*Node {
		lp, gr := m.scoreGraph(ctx, tok, tgt, md)
		return []*Node{lp, gr}
	})
	return err
}

// LogLikelihood implements harness.Model: requests are sorted by length and run in batches of
// Options.Batch through the parallel forward, each padded to a multiple of 64 tokens (padding comes after
// the real tokens, so causality keeps it out of their scores).
func (m *Model) LogLikelihood(reqs []harness.LLRequest, progress func(done int)) ([]harness.LLResult, error) {
	if err := m.ensureScorer(); err != nil {
		return nil, err
	}
	order := sortedByLength(len(reqs), func(i int) int { return len(reqs[i].Context) + len(reqs[i].Continuation) })
	out := make([]harness.LLResult, len(reqs))
	done := 0
	for lo := 0; lo < len(order); lo += m.opts.Batch {
		idx := order[lo:min(lo+m.opts.Batch, len(order))]
		if err := m.scoreBatch(reqs, idx, out); err != nil {
			return nil, err
		}
		done += len(idx)
		if progress != nil {
			progress(done)
		}
	}
	return out, nil
}

// scoreBatch scores reqs[idx...] in one forward and writes their results.
func (m *Model) scoreBatch(reqs []harness.LLRequest, idx []int, out []harness.LLResult) error {
	t := 0
	for _, i := range idx {
		r := reqs[i]
		if len(r.Context) == 0 {
			return fmt.Errorf("oryxlm: loglikelihood request %d has an empty context", i)
		}
		t = max(t, len(r.Context)+len(r.Continuation)-1)
	}
	t = (t + lengthBucket - 1) / lengthBucket * lengthBucket
	b := m.opts.Batch // a fixed batch: the last, partial one is padded with empty rows
	tok, tgt, md := make([]int32, b*t), make([]int32, b*t), make([]int32, b*t)
	vocab := m.model.Config.Vocab
	for row, i := range idx {
		r := reqs[i]
		seq := append(append([]int(nil), r.Context...), r.Continuation...)
		n := len(seq) - 1
		for p := 0; p < n; p++ {
			if seq[p] < 0 || seq[p] >= vocab || seq[p+1] < 0 || seq[p+1] >= vocab {
				return fmt.Errorf("oryxlm: request %d has a token outside the vocabulary [0, %d)", i, vocab)
			}
			tok[row*t+p] = int32(seq[p])
			tgt[row*t+p] = int32(seq[p+1])
		}
		spec := m.specFor(r.AttentionFrom)
		modes, attn, flops, err := m.rowModes(spec, n)
		if err != nil {
			return fmt.Errorf("oryxlm: request %d: %w", i, err)
		}
		for p, x := range modes {
			md[row*t+p] = int32(x)
		}
		out[i].AttentionTokens, out[i].Tokens = attn, n
		m.FLOPs += flops
	}
	res, err := m.scorer.Exec(tensors.FromFlatDataAndDimensions(tok, b, t), tensors.FromFlatDataAndDimensions(tgt, b, t),
		tensors.FromFlatDataAndDimensions(md, b, t))
	if err != nil {
		return fmt.Errorf("oryxlm: scoring: %w", err)
	}
	lp := res[0].Value().([][]float32)
	gr := res[1].Value().([][]bool)
	for row, i := range idx {
		r := reqs[i]
		n := len(r.Context) + len(r.Continuation) - 1
		var ll float64
		greedy := true
		for p := n - len(r.Continuation); p < n; p++ {
			ll += float64(lp[row][p])
			greedy = greedy && gr[row][p]
		}
		out[i].LogLikelihood, out[i].IsGreedy = ll, greedy
	}
	return nil
}

// TokenLogProbs returns log p(seq[i+1] | seq[:i+1]) for every position of each sequence (each of T+1 tokens,
// all the same length), read with the given modes (one row of T modes per sequence; ignored by single-mixer
// variants): the per-position view used by the mode-switch analysis.
func (m *Model) TokenLogProbs(seqs [][]int32, modes [][]oryx.Mode) ([][]float32, error) {
	lp, _, err := m.TokenScores(seqs, modes)
	return lp, err
}

// TokenScores is TokenLogProbs plus, per position, whether seq[i+1] is the argmax prediction.
func (m *Model) TokenScores(seqs [][]int32, modes [][]oryx.Mode) (logp [][]float32, greedy [][]bool, err error) {
	if len(seqs) == 0 {
		return nil, nil, nil
	}
	if err := m.ensureScorer(); err != nil {
		return nil, nil, err
	}
	t := len(seqs[0]) - 1
	for lo := 0; lo < len(seqs); lo += m.opts.Batch {
		hi := min(lo+m.opts.Batch, len(seqs))
		b := m.opts.Batch
		tok, tgt, md := make([]int32, b*t), make([]int32, b*t), make([]int32, b*t)
		for row := lo; row < hi; row++ {
			s := seqs[row]
			if len(s) != t+1 {
				return nil, nil, fmt.Errorf("oryxlm: TokenScores: sequence %d has %d tokens, want %d like the first", row, len(s), t+1)
			}
			if modes != nil && len(modes[row]) != t {
				return nil, nil, fmt.Errorf("oryxlm: TokenScores: mode row %d has %d entries, want %d", row, len(modes[row]), t)
			}
			for p := 0; p < t; p++ {
				tok[(row-lo)*t+p], tgt[(row-lo)*t+p] = s[p], s[p+1]
				if modes != nil {
					md[(row-lo)*t+p] = int32(modes[row][p])
				}
			}
		}
		res, err := m.scorer.Exec(tensors.FromFlatDataAndDimensions(tok, b, t), tensors.FromFlatDataAndDimensions(tgt, b, t),
			tensors.FromFlatDataAndDimensions(md, b, t))
		if err != nil {
			return nil, nil, fmt.Errorf("oryxlm: scoring: %w", err)
		}
		logp = append(logp, res[0].Value().([][]float32)[:hi-lo]...)
		greedy = append(greedy, res[1].Value().([][]bool)[:hi-lo]...)
		m.FLOPs += float64(hi-lo) * float64(t) * oryx.FLOPsPerToken(m.model.Config, t, 0.5)
	}
	return logp, greedy, nil
}
