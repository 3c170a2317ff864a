package harness

import (
	"fmt"
	"io"
	"time"
)

// Run evaluates one task on m:
//
//  1. t.Build(m, opts) builds the requests;
//  2. every request is left-truncated as lm-eval does (TruncateLL, TruncateGen) to the plan's max length
//     (the smaller of Plan.MaxLength and m.MaxLength()), counting the truncated ones;
//  3. m.LogLikelihood and m.GenerateUntil each get all requests of their type in one call (the model
//     batches); generations are cut at their stop strings (CutAtStop);
//  4. the plan scores the results; samples are written when opts.Samples is set;
//  5. the Result carries the metrics, counts, the attention fraction (Σ attention tokens / Σ tokens as
//     the model reported them) and the wall time.
func Run(m Model, t Task, opts Options) (*Result, error) {
	start := time.Now()
	name := t.Name()
	plan, err := t.Build(m, opts)
	if err != nil {
		return nil, err
	}
	maxLen := m.MaxLength()
	if plan.MaxLength > 0 {
		maxLen = min(maxLen, plan.MaxLength)
	}
	res := &Result{Task: name, Docs: plan.Docs, TotalDocs: plan.TotalDocs, Dropped: plan.Dropped,
		Requests: len(plan.LL) + len(plan.Gen), MaxLength: maxLen, Mixed: opts.Mixed, Data: plan.Data, Notes: plan.Notes}

	llReqs := make([]LLRequest, len(plan.LL))
	llTrunc := make([]bool, len(plan.LL))
	for i, it := range plan.LL {
		r, tr, err := TruncateLL(it.Req, maxLen)
		if err != nil {
			return nil, fmt.Errorf("harness: %s: document %d: %w", name, it.Doc, err)
		}
		llReqs[i], llTrunc[i] = r, tr
		if tr {
			res.Truncated++
		}
	}
	genReqs := make([]GenRequest, len(plan.Gen))
	genTrunc := make([]bool, len(plan.Gen))
	for i, it := range plan.Gen {
		r, tr, err := TruncateGen(it.Req, maxLen)
		if err != nil {
			return nil, fmt.Errorf("harness: %s: document %d: %w", name, it.Doc, err)
		}
		genReqs[i], genTrunc[i] = r, tr
		if tr {
			res.Truncated++
		}
	}

	progress := func(phase string, total int) func(int) {
		if opts.Progress == nil {
			return nil
		}
		opts.Progress(name, phase, 0, total)
		return func(done int) { opts.Progress(name, phase, done, total) }
	}
	var llRes []LLResult
	if len(llReqs) > 0 {
		if llRes, err = m.LogLikelihood(llReqs, progress("loglikelihood", len(llReqs))); err != nil {
			return nil, fmt.Errorf("harness: %s: loglikelihood: %w", name, err)
		}
		if len(llRes) != len(llReqs) {
			return nil, fmt.Errorf("harness: %s: model returned %d loglikelihood results for %d requests", name, len(llRes), len(llReqs))
		}
	}
	var genRes []GenResult
	if len(genReqs) > 0 {
		if genRes, err = m.GenerateUntil(genReqs, progress("generate_until", len(genReqs))); err != nil {
			return nil, fmt.Errorf("harness: %s: generate_until: %w", name, err)
		}
		if len(genRes) != len(genReqs) {
			return nil, fmt.Errorf("harness: %s: model returned %d generations for %d requests", name, len(genRes), len(genReqs))
		}
		for i := range genRes {
			genRes[i].Text = CutAtStop(genRes[i].Text, genReqs[i].Until)
		}
	}
	for _, r := range llRes {
		res.Tokens += int64(r.Tokens)
		res.AttentionTokens += int64(r.AttentionTokens)
	}
	for _, r := range genRes {
		res.Tokens += int64(r.TotalTokens)
		res.AttentionTokens += int64(r.AttentionTokens)
	}
	if res.Tokens > 0 {
		res.AttentionFraction = float64(res.AttentionTokens) / float64(res.Tokens)
	}

	scores, err := plan.Score(llRes, genRes)
	if err != nil {
		return nil, fmt.Errorf("harness: %s: scoring: %w", name, err)
	}
	res.Metrics = scores.Metrics
	if opts.Samples != nil {
		for i, it := range plan.LL {
			s := LLSample{Task: name, Doc: it.Doc, Request: i, Type: "loglikelihood", Context: it.Context,
				Continuation: it.Continuation, LogLikelihood: jsonFloat(llRes[i].LogLikelihood), IsGreedy: llRes[i].IsGreedy,
				ContextTokens: len(llReqs[i].Context), ContinuationTokens: len(llReqs[i].Continuation),
				Truncated: llTrunc[i], AttentionFrom: llReqs[i].AttentionFrom}
			if err := opts.Samples.Write(s); err != nil {
				return nil, err
			}
		}
		for i, it := range plan.Gen {
			s := GenSample{Task: name, Doc: it.Doc, Request: len(plan.LL) + i, Type: "generate_until", Prompt: it.Prompt,
				Generation: genRes[i].Text, Labels: it.Labels, ContextTokens: len(genReqs[i].Context),
				Truncated: genTrunc[i], AttentionFrom: genReqs[i].AttentionFrom}
			if i < len(scores.Gen) {
				s.Score = scores.Gen[i]
			}
			if err := opts.Samples.Write(s); err != nil {
				return nil, err
			}
		}
		if err := opts.Samples.Flush(); err != nil {
			return nil, err
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// RunAll runs the tasks in order and returns their results. log, when non-nil, gets one line per task
// (name, main metrics, truncated requests, attention fraction, time). It stops at the first error,
// returning the results so far with it.
func RunAll(m Model, tasks []Task, opts Options, log io.Writer) ([]*Result, error) {
	var out []*Result
	for _, t := range tasks {
		r, err := Run(m, t, opts)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if log != nil {
			fmt.Fprintln(log, r.Summary())
		}
	}
	return out, nil
}
