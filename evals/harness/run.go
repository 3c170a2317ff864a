package harness

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// lengthView is a Model whose MaxLength is the task's effective length: Build sees it (wikitext's rolling
// windows are cut at it) while the model underneath takes calls up to its own, larger, length.
type lengthView struct {
	Model
	n int
}

func (v lengthView) MaxLength() int { return v.n }

// EffectiveMaxLength returns the max_length task name runs with before its plan's own cap: the group's
// entry of opts.GroupMaxLength when there is one, capped by m.MaxLength(), else m.MaxLength().
func EffectiveMaxLength(m Model, name string, opts Options) int {
	n := m.MaxLength()
	if l, ok := opts.GroupMaxLength[GroupOf(name)]; ok && l > 0 {
		n = min(n, l)
	}
	return n
}

// Run evaluates one task on m:
//
//  1. the task's effective max length is EffectiveMaxLength (then capped by Plan.MaxLength); Build sees it
//     as m.MaxLength();
//  2. t.Build(m, opts) builds the requests;
//  3. every request is left-truncated as lm-eval does (TruncateLL, TruncateGen), counting the truncated
//     ones; the split point (AttentionFrom) reaches the model only in mixed mode;
//  4. m.LogLikelihood and m.GenerateUntil each get all requests of their type in one call (the model
//     batches); generations are cut at their stop strings (CutAtStop);
//  5. the plan scores the results; one sample record per document is written when opts.Samples is set;
//  6. the Result carries the metrics, counts, the attention fraction (Σ attention tokens / Σ tokens as
//     the model reported them) and its split into context, question and generated tokens, and the time.
func Run(m Model, t Task, opts Options) (*Result, error) {
	start := time.Now()
	name := t.Name()
	maxLen := EffectiveMaxLength(m, name, opts)
	var view Model = m
	if maxLen != m.MaxLength() {
		view = lengthView{Model: m, n: maxLen}
	}
	plan, err := t.Build(view, opts)
	if err != nil {
		return nil, err
	}
	if plan.MaxLength > 0 {
		maxLen = min(maxLen, plan.MaxLength)
	}
	res := &Result{Task: name, Docs: plan.Docs, TotalDocs: plan.TotalDocs, Dropped: plan.Dropped,
		Requests: len(plan.LL) + len(plan.Gen), MaxLength: maxLen, Mixed: opts.Mixed, Data: absPath(plan.Data), Notes: plan.Notes,
		Group: GroupOf(name), OutputType: plan.OutputType, Version: plan.Version, Limit: opts.Limit,
		Segments: Segments{AttentionKnown: true}}

	reqs, err := truncateRequests(name, plan, maxLen, opts.Mixed)
	if err != nil {
		return nil, err
	}
	res.Truncated = reqs.truncated
	llRes, genRes, err := callModel(m, name, reqs, opts)
	if err != nil {
		return nil, err
	}
	res.countTokens(reqs, llRes, genRes, opts.Mixed)

	scores, err := plan.Score(llRes, genRes)
	if err != nil {
		return nil, fmt.Errorf("harness: %s: scoring: %w", name, err)
	}
	res.Metrics = scores.Metrics
	if opts.Samples != nil {
		recs := docSamples(plan, scores, reqs.ll, llRes, reqs.llTrunc, reqs.gen, genRes, reqs.genTrunc)
		if res.TaskHash, err = writeSamples(name, opts.Samples, recs); err != nil {
			return nil, err
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// truncatedRequests are a plan's requests as the model gets them: left-truncated to the max length, with
// which were truncated and where each one's split point (AttentionFrom) lay before it was overridden.
type truncatedRequests struct {
	ll        []LLRequest
	llTrunc   []bool
	llSplit   []int
	gen       []GenRequest
	genTrunc  []bool
	genSplit  []int
	truncated int // how many requests of either type were truncated
}

// truncateRequests left-truncates every request of plan to maxLen as lm-eval does (TruncateLL,
// TruncateGen). Outside mixed mode each request's AttentionFrom is moved past its end (full attention);
// the split point it had is kept for the token segments.
func truncateRequests(name string, plan *Plan, maxLen int, mixed bool) (*truncatedRequests, error) {
	q := &truncatedRequests{
		ll: make([]LLRequest, len(plan.LL)), llTrunc: make([]bool, len(plan.LL)), llSplit: make([]int, len(plan.LL)),
		gen: make([]GenRequest, len(plan.Gen)), genTrunc: make([]bool, len(plan.Gen)), genSplit: make([]int, len(plan.Gen)),
	}
	for i, it := range plan.LL {
		r, tr, err := TruncateLL(it.Req, maxLen)
		if err != nil {
			return nil, fmt.Errorf("harness: %s: document %d: %w", name, it.Doc, err)
		}
		q.llSplit[i] = r.AttentionFrom
		if !mixed {
			r.AttentionFrom = len(r.Context) + len(r.Continuation)
		}
		q.ll[i], q.llTrunc[i] = r, tr
		if tr {
			q.truncated++
		}
	}
	for i, it := range plan.Gen {
		r, tr, err := TruncateGen(it.Req, maxLen)
		if err != nil {
			return nil, fmt.Errorf("harness: %s: document %d: %w", name, it.Doc, err)
		}
		q.genSplit[i] = r.AttentionFrom
		if !mixed {
			r.AttentionFrom = len(r.Context) + r.MaxTokens
		}
		q.gen[i], q.genTrunc[i] = r, tr
		if tr {
			q.truncated++
		}
	}
	return q, nil
}

// callModel gives m all loglikelihood requests in one call and all generation requests in another (the
// model batches), checks it answered each request, and cuts generations at their stop strings.
func callModel(m Model, name string, reqs *truncatedRequests, opts Options) ([]LLResult, []GenResult, error) {
	progress := func(phase string, total int) func(int) {
		if opts.Progress == nil {
			return nil
		}
		opts.Progress(name, phase, 0, total)
		return func(done int) { opts.Progress(name, phase, done, total) }
	}
	var err error
	var llRes []LLResult
	if len(reqs.ll) > 0 {
		if llRes, err = m.LogLikelihood(reqs.ll, progress("loglikelihood", len(reqs.ll))); err != nil {
			return nil, nil, fmt.Errorf("harness: %s: loglikelihood: %w", name, err)
		}
		if len(llRes) != len(reqs.ll) {
			return nil, nil, fmt.Errorf("harness: %s: model returned %d loglikelihood results for %d requests", name, len(llRes), len(reqs.ll))
		}
	}
	var genRes []GenResult
	if len(reqs.gen) > 0 {
		if genRes, err = m.GenerateUntil(reqs.gen, progress("generate_until", len(reqs.gen))); err != nil {
			return nil, nil, fmt.Errorf("harness: %s: generate_until: %w", name, err)
		}
		if len(genRes) != len(reqs.gen) {
			return nil, nil, fmt.Errorf("harness: %s: model returned %d generations for %d requests", name, len(genRes), len(reqs.gen))
		}
		for i := range genRes {
			genRes[i].Text = CutAtStop(genRes[i].Text, reqs.gen[i].Until)
		}
	}
	return llRes, genRes, nil
}

// countTokens adds the tokens the model reported for each request to res: the totals, the attention
// fraction (Σ attention tokens / Σ tokens) and the split into context, question and generated tokens.
func (res *Result) countTokens(reqs *truncatedRequests, llRes []LLResult, genRes []GenResult, mixed bool) {
	for i, r := range llRes {
		res.Tokens += int64(r.Tokens)
		res.AttentionTokens += int64(r.AttentionTokens)
		res.Segments.add(r.Tokens, r.Tokens, reqs.llSplit[i], r.AttentionTokens, mixed)
	}
	for i, r := range genRes {
		res.Tokens += int64(r.TotalTokens)
		res.AttentionTokens += int64(r.AttentionTokens)
		res.Segments.add(r.TotalTokens, len(reqs.gen[i].Context), reqs.genSplit[i], r.AttentionTokens, mixed)
	}
	if res.Tokens > 0 {
		res.AttentionFraction = float64(res.AttentionTokens) / float64(res.Tokens)
	}
}

// writeSamples writes one sample record per document to w, flushes it, and returns the task hash: the
// hash of all records' document, prompt and target hashes in order.
func writeSamples(name string, w *SampleWriter, recs []*DocSample) (string, error) {
	var hashes strings.Builder
	for _, s := range recs {
		d, p, t, err := s.Hashes()
		if err != nil {
			return "", fmt.Errorf("harness: %s: log-samples: %w", name, err)
		}
		hashes.WriteString(d + p + t)
		if err := w.Write(s); err != nil {
			return "", err
		}
	}
	hash := HashString(hashes.String())
	if err := w.Flush(); err != nil {
		return "", err
	}
	return hash, nil
}

// docSamples groups a plan's requests by document (in the order documents first appear) into lm-eval
// sample records (see DocSample).
func docSamples(plan *Plan, scores Scores, llReqs []LLRequest, llRes []LLResult, llTrunc []bool,
	genReqs []GenRequest, genRes []GenResult, genTrunc []bool) []*DocSample {
	var order []*DocSample
	byDoc := map[int]*DocSample{}
	get := func(doc int) *DocSample {
		if s := byDoc[doc]; s != nil {
			return s
		}
		info := plan.SampleDocs[doc]
		s := &DocSample{DocID: doc, Doc: info.Doc, Target: info.Target, Metrics: scores.PerDoc[doc]}
		byDoc[doc] = s
		order = append(order, s)
		return s
	}
	rolling := plan.OutputType == OutputLoglikelihoodRolling
	for i, it := range plan.LL {
		s := get(it.Doc)
		r := llReqs[i]
		s.Requests = append(s.Requests, SampleRequest{ContextTokens: len(r.Context), ContinuationTokens: len(r.Continuation),
			Truncated: llTrunc[i], AttentionFrom: r.AttentionFrom})
		if rolling {
			if len(s.Resps) == 0 {
				s.Arguments = [][]any{plan.SampleDocs[it.Doc].Arguments}
				s.Resps = [][]any{{0.0}}
				s.FilteredResps = []any{0.0}
			}
			sum := s.FilteredResps[0].(float64) + llRes[i].LogLikelihood
			s.Resps[0] = []any{sum}
			s.FilteredResps[0] = sum
			continue
		}
		pair := []any{llRes[i].LogLikelihood, llRes[i].IsGreedy}
		s.Arguments = append(s.Arguments, []any{it.Context, it.Continuation})
		s.Resps = append(s.Resps, []any{pair})
		s.FilteredResps = append(s.FilteredResps, pair)
	}
	for i, it := range plan.Gen {
		s := get(it.Doc)
		r := genReqs[i]
		s.Requests = append(s.Requests, SampleRequest{ContextTokens: len(r.Context), GeneratedTokens: len(genRes[i].Tokens),
			Truncated: genTrunc[i], AttentionFrom: r.AttentionFrom})
		until := r.Until
		if until == nil {
			until = []string{}
		}
		s.Arguments = append(s.Arguments, []any{it.Prompt, Doc{{"until", until}, {"max_gen_toks", r.MaxTokens}, {"do_sample", false}}})
		s.Resps = append(s.Resps, []any{genRes[i].Text})
		s.FilteredResps = append(s.FilteredResps, genRes[i].Text)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].DocID < order[j].DocID })
	return order
}

// RunAll runs the tasks in order and returns their results. log, when non-nil, gets one line per task
// (name, main metrics, truncated requests, attention fraction, time). A failing task does not stop the
// others: its result is nil, and the errors of all failed tasks are returned joined, each naming its task.
func RunAll(m Model, tasks []Task, opts Options, log io.Writer) ([]*Result, error) {
	var out []*Result
	var errs []error
	for _, t := range tasks {
		r, err := Run(m, t, opts)
		if err != nil {
			errs = append(errs, fmt.Errorf("task %s: %w", t.Name(), err))
			if log != nil {
				fmt.Fprintf(log, "%s: FAILED: %v\n", t.Name(), err)
			}
		} else if log != nil {
			fmt.Fprintln(log, r.Summary())
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// absPath is a task's data path (a file, folder or glob) as its result states it: absolute, since a relative
// --data-root or --data-path is relative to a working directory the results file does not record.
func absPath(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
