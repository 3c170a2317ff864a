// Package niahtask runs the niah package's RULER needle-in-a-haystack tasks through the evaluation harness:
// niah_single_1/2/3 and niah_multikey_1 (group "niah"), greedy generation of up to 128 tokens, scored by
// RULER's string_match_all, reported per target length and overall (percent).
//
// Options (harness.Config.Params): "niah.lengths" (comma-separated target lengths in tokens, default
// 1024,2048,4096,8192), "niah.samples" (samples per length, default RULER's 500; --limit also caps the
// total), "niah.fit" ("ruler" or "tight", see niah.Fit). Data: <root>/ruler_essays/essays.parquet and
// <root>/ruler_words/words.parquet (the words file is optional: niah falls back to an embedded list).
//
// Mixed mode: the haystack is read in linear mode and the question, answer prefix and generated tokens in
// attention (AttentionFrom = the sample's QuestionStart).
package niahtask

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/niah"
)

// Group is the harness group of the four tasks.
const Group = "niah"

func init() {
	var names []string
	for _, t := range niah.Tasks() {
		t := t
		harness.Register(string(t), func(cfg harness.Config) (harness.Task, error) { return &task{t: t, cfg: cfg}, nil })
		names = append(names, string(t))
	}
	harness.RegisterGroup(Group, names...)
}

type task struct {
	t   niah.Task
	cfg harness.Config
}

func (k *task) Name() string { return string(k.t) }

// config builds the niah.Config of the task from the harness config.
func (k *task) config() (niah.Config, error) {
	essays := k.cfg.Path(string(k.t), "ruler_essays/essays.parquet")
	words := k.cfg.Path("ruler_words", "ruler_words/words.parquet")
	if _, err := os.Stat(words); err != nil {
		words = "" // the embedded fallback list
	}
	c := niah.DefaultConfig(k.t, essays, words)
	if v := k.cfg.Params["niah.lengths"]; v != "" {
		c.Lengths = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				return c, fmt.Errorf("niah.lengths %q: want comma-separated positive token counts", v)
			}
			c.Lengths = append(c.Lengths, n)
		}
	}
	if v := k.cfg.Params["niah.samples"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return c, fmt.Errorf("niah.samples %q: want a positive count", v)
		}
		c.SamplesPerCell = n
	}
	if v := k.cfg.Params["niah.fit"]; v != "" {
		c.Fit = niah.Fit(v)
	}
	return c, nil
}

func (k *task) Build(m harness.Model, opts harness.Options) (*harness.Plan, error) {
	c, err := k.config()
	if err != nil {
		return nil, err
	}
	for _, l := range c.Lengths {
		if l > m.MaxLength() {
			return nil, fmt.Errorf("%s: target length %d exceeds the model's max length %d: raise --max-length or set --param niah.lengths",
				k.t, l, m.MaxLength())
		}
	}
	if opts.Limit > 0 { // spread the limit over the lengths
		c.SamplesPerCell = max(1, min(c.SamplesPerCell, (opts.Limit+len(c.Lengths)-1)/len(c.Lengths)))
	}
	samples, err := niah.Generate(c, m.Tokenizer())
	if err != nil {
		return nil, err
	}
	plan := &harness.Plan{Docs: len(samples), TotalDocs: len(samples), Data: c.EssaysPath,
		MaxLength: 0, Notes: []string{fmt.Sprintf("lengths %v, %d samples per length, fit %s", c.Lengths, c.SamplesPerCell, c.Fit)}}
	for i, s := range samples {
		from := harness.Never
		if opts.Mixed {
			from = s.QuestionStart
		}
		plan.Gen = append(plan.Gen, harness.GenItem{Doc: i, Prompt: s.Prompt, Labels: s.Answers,
			Req: harness.GenRequest{Context: s.PromptTokens, AttentionFrom: from, MaxTokens: c.MaxGenTokens}})
	}
	plan.Score = func(_ []harness.LLResult, gen []harness.GenResult) (harness.Scores, error) {
		sc := harness.Scores{Metrics: map[string]harness.Metric{}, Gen: make([]float64, len(gen))}
		byLen := map[int][]float64{}
		var all []float64
		for i, g := range gen {
			x := niah.Score(samples[i], g.Text) * 100
			sc.Gen[i] = x / 100
			byLen[samples[i].Length] = append(byLen[samples[i].Length], x)
			all = append(all, x)
		}
		sc.Metrics["score"] = harness.Metric{Value: harness.Mean(all), Stderr: harness.MeanStderr(all), N: len(all)}
		lens := make([]int, 0, len(byLen))
		for l := range byLen {
			lens = append(lens, l)
		}
		sort.Ints(lens)
		for _, l := range lens {
			xs := byLen[l]
			sc.Metrics[fmt.Sprintf("score@%d", l)] = harness.Metric{Value: harness.Mean(xs), Stderr: harness.MeanStderr(xs), N: len(xs)}
		}
		return sc, nil
	}
	return plan, nil
}
