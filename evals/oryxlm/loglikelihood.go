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

// denseScoreGraph is the dense scorer (Options.DenseScoring, the test oracle): tokens, targets, modes [B, T]
// int32 → the log-probability of each target ([B, T], log-softmax over the full vocabulary width, in
// oryx.ScoreDType) and whether it is the argmax (bool [B, T]), from the logits [B, T, Vocab].
func (m *Model) denseScoreGraph(ctx *context.Context, tokens, targets, modes *Node) (logp, greedy *Node) {
	if !m.model.Config.Variant.IsMultiMixer() {
		modes = nil
	}
	return oryx.TargetLogProbs(m.model.Logits(ctx, tokens, modes), targets, oryx.ScoreDType(m.computeDType()))
}

// computeDType is the dtype the model's graphs compute in.
func (m *Model) computeDType() dtypes.DType {
	if m.model.ComputeDType != dtypes.InvalidDType {
		return m.model.ComputeDType
	}
	return m.model.DType
}

// ensureScorer prepares (lazily) the tiled scorer, or the dense one under Options.DenseScoring.
func (m *Model) ensureScorer() error {
	var err error
	switch {
	case m.opts.DenseScoring && m.dense == nil:
		m.dense, err = context.NewExec(m.backend, m.ctx, func(ctx *context.Context, tok, tgt, md *Node) []*Node {
			lp, gr := m.denseScoreGraph(ctx, tok, tgt, md)
			return []*Node{lp, gr}
		})
	case !m.opts.DenseScoring && m.scorer == nil:
		m.scorer, err = oryx.NewScorer(m.backend, m.ctx, m.model, int64(m.opts.ScoreMemMB)<<20)
	}
	return err
}

// score runs b rows of t tokens (tok, md row-major [b, t]) and returns log p(tgt[i]) and whether it is the
// argmax at the positions pos[i] ([b, n] row-major, −1 = padding → 0, false).
func (m *Model) score(tok, md []int32, b, t int, pos, tgt []int32, n int) ([]float64, []bool, error) {
	if err := m.ensureScorer(); err != nil {
		return nil, nil, err
	}
	if !m.opts.DenseScoring {
		return m.scorer.Score(tok, md, b, t, pos, tgt, n)
	}
	dt := make([]int32, b*t) // the dense path scores every position: targets at the scored ones
	for r := range b {
		for k := range n {
			if p := pos[r*n+k]; p >= 0 {
				dt[r*t+int(p)] = tgt[r*n+k]
			}
		}
	}
	res, err := m.dense.Exec(tensors.FromFlatDataAndDimensions(tok, b, t), tensors.FromFlatDataAndDimensions(dt, b, t),
		tensors.FromFlatDataAndDimensions(md, b, t))
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		for _, x := range res {
			x.FinalizeAll()
		}
	}()
	var all []float64
	switch res[0].DType() {
	case dtypes.Float64:
		all = tensors.MustCopyFlatData[float64](res[0])
	default:
		for _, x := range tensors.MustCopyFlatData[float32](res[0]) {
			all = append(all, float64(x))
		}
	}
	allGr := tensors.MustCopyFlatData[bool](res[1])
	lp, gr := make([]float64, b*n), make([]bool, b*n)
	for r := range b {
		for k := range n {
			if p := pos[r*n+k]; p >= 0 {
				lp[r*n+k], gr[r*n+k] = all[r*t+int(p)], allGr[r*t+int(p)]
			}
		}
	}
	return lp, gr, nil
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

// scoreBatch scores reqs[idx...] in one forward and writes their results. Only the continuation's
// positions are scored (their hidden states gathered before the vocabulary projection).
func (m *Model) scoreBatch(reqs []harness.LLRequest, idx []int, out []harness.LLResult) error {
	t, n := 0, 1
	for _, i := range idx {
		r := reqs[i]
		if len(r.Context) == 0 {
			return fmt.Errorf("oryxlm: loglikelihood request %d has an empty context", i)
		}
		t = max(t, len(r.Context)+len(r.Continuation)-1)
		n = max(n, len(r.Continuation))
	}
	t = (t + lengthBucket - 1) / lengthBucket * lengthBucket
	b := m.opts.Batch // a fixed batch: the last, partial one is padded with empty rows
	tok := make([]int32, b*t)
	pos, tgt := make([]int32, b*n), make([]int32, b*n)
	for k := range pos {
		pos[k] = -1
	}
	rows := make([]rowSpec, b)
	vocab := m.model.Config.Vocab
	for row, i := range idx {
		r := reqs[i]
		seq := append(append([]int(nil), r.Context...), r.Continuation...)
		nIn := len(seq) - 1
		for p := 0; p < nIn; p++ {
			if seq[p] < 0 || seq[p] >= vocab || seq[p+1] < 0 || seq[p+1] >= vocab {
				return fmt.Errorf("oryxlm: request %d has a token outside the vocabulary [0, %d)", i, vocab)
			}
			tok[row*t+p] = int32(seq[p])
		}
		for k := range r.Continuation {
			p := nIn - len(r.Continuation) + k
			pos[row*n+k], tgt[row*n+k] = int32(p), int32(seq[p+1])
		}
		rows[row] = rowSpec{n: nIn, attnFrom: r.AttentionFrom, seed: requestSeed(i)}
	}
	lp, gr, _, attn, err := m.scorePadded(tok, b, t, rows, pos, tgt, n)
	if err != nil {
		return fmt.Errorf("oryxlm: scoring: %w", err)
	}
	for row, i := range idx {
		var ll float64
		greedy := true
		for k := range reqs[i].Continuation {
			ll += lp[row*n+k]
			greedy = greedy && gr[row*n+k]
		}
		out[i].LogLikelihood, out[i].IsGreedy = ll, greedy
		out[i].AttentionTokens, out[i].Tokens = attn[row], rows[row].n
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

// TokenScores is TokenLogProbs plus, per position, whether seq[i+1] is the argmax prediction. nil modes
// read every token in linear mode.
func (m *Model) TokenScores(seqs [][]int32, modes [][]oryx.Mode) (logp [][]float32, greedy [][]bool, err error) {
	if modes == nil && len(seqs) > 0 {
		modes = make([][]oryx.Mode, len(seqs))
		for i := range modes {
			modes[i] = make([]oryx.Mode, max(len(seqs[0])-1, 0))
		}
	}
	logp, greedy, _, _, err = m.tokenScores(seqs, modes, nil)
	return logp, greedy, err
}

// tokenScores scores every position of seqs (T+1 tokens each) with explicit modes, or (modes nil) under the
// schedule with the question positions question (PolicyScores).
func (m *Model) tokenScores(seqs [][]int32, modes [][]oryx.Mode, question [][]bool) (logp [][]float32, greedy [][]bool, used [][]oryx.Mode, attn []int, err error) {
	if len(seqs) == 0 {
		return nil, nil, nil, nil, nil
	}
	t := len(seqs[0]) - 1
	if t < 1 {
		return nil, nil, nil, nil, fmt.Errorf("oryxlm: TokenScores: sequences need at least 2 tokens, the first has %d", len(seqs[0]))
	}
	for lo := 0; lo < len(seqs); lo += m.opts.Batch {
		hi := min(lo+m.opts.Batch, len(seqs))
		b := m.opts.Batch
		tok := make([]int32, b*t)
		pos, tgt := make([]int32, b*t), make([]int32, b*t)
		for k := range pos {
			pos[k] = -1 // rows past the last sequence are padding
		}
		rows := make([]rowSpec, b)
		for row := lo; row < hi; row++ {
			s := seqs[row]
			if len(s) != t+1 {
				return nil, nil, nil, nil, fmt.Errorf("oryxlm: TokenScores: sequence %d has %d tokens, want %d like the first", row, len(s), t+1)
			}
			r := rowSpec{n: t, attnFrom: t, seed: requestSeed(row)}
			if modes != nil {
				if len(modes[row]) != t {
					return nil, nil, nil, nil, fmt.Errorf("oryxlm: TokenScores: mode row %d has %d entries, want %d", row, len(modes[row]), t)
				}
				r.modes = modes[row]
			}
			if question != nil {
				if len(question[row]) != t {
					return nil, nil, nil, nil, fmt.Errorf("oryxlm: PolicyScores: question row %d has %d entries, want %d", row, len(question[row]), t)
				}
				r.question = question[row]
			}
			rows[row-lo] = r
			for p := 0; p < t; p++ {
				i := (row-lo)*t + p
				tok[i], tgt[i], pos[i] = s[p], s[p+1], int32(p)
			}
		}
		lp, gr, md, at, err := m.scorePadded(tok, b, t, rows, pos, tgt, t)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("oryxlm: scoring: %w", err)
		}
		for row := range hi - lo {
			r := make([]float32, t)
			for p := range r {
				r[p] = float32(lp[row*t+p])
			}
			logp = append(logp, r)
			greedy = append(greedy, gr[row*t:(row+1)*t])
			used = append(used, md[row])
			attn = append(attn, at[row])
		}
	}
	return logp, greedy, used, attn, nil
}
