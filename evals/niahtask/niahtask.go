// Package niahtask runs the niah package's RULER needle-in-a-haystack tasks through the evaluation harness:
// niah_single_1/2/3 and niah_multikey_1 (group "niah"), greedy generation of up to 128 tokens, scored by
// RULER's string_match_all, reported as a fraction in [0, 1] (the unit of every accuracy in the results
// file; RULER prints it ×100) overall, per target length ("score@1024") and, with a depth sweep, per
// needle depth in percent ("score@d25").
//
// Options (harness.Config.Params, --param on the command line):
//
//   - "niah.lengths": comma-separated target lengths in tokens (default 1024,2048,4096,8192);
//   - "niah.samples": samples per length, or per (length, depth) with niah.depths (default RULER's 500;
//     --limit also caps the total);
//   - "niah.depths": a needle-depth sweep in percent, comma-separated (e.g. 0,25,50,75,100), or "ruler"
//     (RULER's 40-point grid swept); unset, each sample's depth is drawn as RULER does;
//   - "niah.fit": "ruler" or "tight" (niah.Fit);
//   - "niah.words": "embedded" uses the package's small embedded key word lists instead of
//     <root>/ruler_words/words.parquet (keys then differ from RULER's; the result notes it). Without it a
//     missing words file is an error.
//
// Data: <root>/ruler_essays/essays.parquet and <root>/ruler_words/words.parquet.
//
// Mixed mode: the haystack is read in linear mode and the question, answer prefix and generated tokens in
// attention (the split point is the sample's QuestionStart).
package niahtask

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/niah"
)

// Group is the harness group of the four tasks.
const Group = "niah"

// Version is the task version reported in the results file (lm-eval's RULER tasks: 1.0).
const Version = 1.0

// Param keys.
const (
	ParamLengths = "niah.lengths"
	ParamSamples = "niah.samples"
	ParamDepths  = "niah.depths"
	ParamFit     = "niah.fit"
	ParamWords   = "niah.words"
)

func init() {
	var names []string
	for _, t := range niah.Tasks() {
		harness.Register(string(t), func(cfg harness.Config) (harness.Task, error) { return &task{t: t, cfg: cfg}, nil })
		// lm-eval 0.4.13's RULER task yaml (its documents are generated, dataset_path is empty).
		harness.RegisterConfig(string(t), harness.Doc{{Key: "tag", Value: []string{"longcxt"}}, {Key: "task", Value: string(t)},
			{Key: "dataset_path", Value: ""}, {Key: "dataset_name", Value: ""}, {Key: "output_type", Value: harness.OutputGenerateUntil},
			{Key: "test_split", Value: "test"}, {Key: "doc_to_text", Value: "{{input}}"}, {Key: "doc_to_target", Value: "{{outputs}}"},
			{Key: "target_delimiter", Value: " "}, {Key: "generation_kwargs", Value: harness.Doc{{Key: "do_sample", Value: false},
				{Key: "temperature", Value: 0.0}, {Key: "max_gen_toks", Value: 128}, {Key: "until", Value: []string{}}}}})
		names = append(names, string(t))
	}
	harness.RegisterGroup(Group, names...)
	harness.RegisterParam(ParamLengths, "NIAH target lengths in tokens, comma-separated (default 1024,2048,4096,8192)")
	harness.RegisterParam(ParamSamples, "NIAH samples per length, or per length and depth with niah.depths (default 500)")
	harness.RegisterParam(ParamDepths, "NIAH needle-depth sweep in percent, comma-separated (e.g. 0,25,50,75,100), or \"ruler\" (40 depths); default RULER's random depths")
	harness.RegisterParam(ParamFit, "NIAH fitting of an overflowing sample: ruler (default) or tight")
	harness.RegisterParam(ParamWords, "\"embedded\": NIAH keys from the embedded word lists instead of ruler_words/words.parquet (not RULER's keys)")
}

type task struct {
	t   niah.Task
	cfg harness.Config
}

func (k *task) Name() string { return string(k.t) }

// DataPath is the essays file Build reads, its Plan's Data (harness.DataSource).
func (k *task) DataPath() string { return k.cfg.Path(string(k.t), "ruler_essays/essays.parquet") }

// config builds the niah.Config of the task from the harness config, and the depth labels (depth → its
// percent as written) of a sweep.
func (k *task) config() (niah.Config, map[float64]string, error) {
	essays := k.DataPath()
	words := k.cfg.Path("ruler_words", "ruler_words/words.parquet")
	switch w := k.cfg.Params[ParamWords]; w {
	case "embedded":
		words = "" // niah's embedded lists
	case "":
		if _, err := os.Stat(words); err != nil {
			return niah.Config{}, nil, fmt.Errorf("%s: the RULER key words file %s is missing (%w); "+
				"use --param %s=embedded for the embedded lists (keys then differ from RULER's)", k.t, words, err, ParamWords)
		}
	default:
		return niah.Config{}, nil, fmt.Errorf("%s %q: the only value is \"embedded\" (default: %s)", ParamWords, w, words)
	}
	c := niah.DefaultConfig(k.t, essays, words)
	if v := k.cfg.Params[ParamLengths]; v != "" {
		c.Lengths = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				return c, nil, fmt.Errorf("%s %q: want comma-separated positive token counts", ParamLengths, v)
			}
			c.Lengths = append(c.Lengths, n)
		}
	}
	if v := k.cfg.Params[ParamSamples]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return c, nil, fmt.Errorf("%s %q: want a positive count", ParamSamples, v)
		}
		c.SamplesPerCell = n
	}
	if v := k.cfg.Params[ParamFit]; v != "" {
		if v != string(niah.FitRULER) && v != string(niah.FitTight) {
			return c, nil, fmt.Errorf("%s %q: want %s or %s", ParamFit, v, niah.FitRULER, niah.FitTight)
		}
		c.Fit = niah.Fit(v)
	}
	labels, err := parseDepths(k.cfg.Params[ParamDepths], &c)
	return c, labels, err
}

// parseDepths sets c.Depths from the niah.depths value (percent list or "ruler") and returns each depth's
// label (its percent).
func parseDepths(v string, c *niah.Config) (map[float64]string, error) {
	if v == "" {
		return nil, nil
	}
	labels := map[float64]string{}
	if v == "ruler" {
		c.Depths = niah.RulerDepths()
		for _, d := range c.Depths {
			labels[d] = strconv.FormatFloat(math.Round(d*1e8)/1e6, 'f', -1, 64)
		}
		return labels, nil
	}
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		p, err := strconv.ParseFloat(f, 64)
		if err != nil || p < 0 || p > 100 || math.IsNaN(p) {
			return nil, fmt.Errorf("%s %q: want comma-separated percents in [0, 100] or \"ruler\"", ParamDepths, v)
		}
		d := p / 100
		if _, dup := labels[d]; dup {
			return nil, fmt.Errorf("%s %q: depth %s given twice", ParamDepths, v, f)
		}
		labels[d] = strconv.FormatFloat(p, 'f', -1, 64)
		c.Depths = append(c.Depths, d)
	}
	return labels, nil
}

// Check validates the options and the lengths against maxLength before any model is loaded (harness.Checker).
func (k *task) Check(maxLength int) error {
	c, _, err := k.config()
	if err != nil {
		return err
	}
	for _, l := range c.Lengths {
		if l > maxLength {
			return fmt.Errorf("%s: target length %d exceeds the max length %d: raise --max-length or set --param %s",
				k.t, l, maxLength, ParamLengths)
		}
	}
	return nil
}

func (k *task) Build(m harness.Model, opts harness.Options) (*harness.Plan, error) {
	if err := k.Check(m.MaxLength()); err != nil {
		return nil, err
	}
	c, labels, _ := k.config()
	cells := len(c.Lengths) * max(1, len(c.Depths))
	total := cells * c.SamplesPerCell // the protocol's sample count, before --limit
	if opts.Limit > 0 {               // spread the limit over the cells
		c.SamplesPerCell = max(1, min(c.SamplesPerCell, (opts.Limit+cells-1)/cells))
	}
	samples, err := niah.Generate(c, m.Tokenizer())
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf("lengths %v, %d samples per length, fit %s", c.Lengths, c.SamplesPerCell, c.Fit)
	if c.Depths != nil {
		note = fmt.Sprintf("lengths %v, depths %v%%, %d samples per length and depth, fit %s", c.Lengths, sortedLabels(labels), c.SamplesPerCell, c.Fit)
	}
	notes := []string{note}
	if c.WordsPath == "" {
		notes = append(notes, "keys from the embedded word lists (niah.words=embedded): not RULER's keys")
	}
	plan := &harness.Plan{Docs: len(samples), TotalDocs: total, Data: c.EssaysPath, Notes: notes,
		OutputType: harness.OutputGenerateUntil, Version: Version}
	if opts.Samples != nil {
		plan.SampleDocs = map[int]harness.SampleDoc{}
	}
	for i, s := range samples {
		plan.Gen = append(plan.Gen, harness.GenItem{Doc: i, Prompt: s.Prompt, Labels: s.Answers,
			Req: harness.GenRequest{Context: s.PromptTokens, AttentionFrom: s.QuestionStart, MaxTokens: c.MaxGenTokens}})
		if plan.SampleDocs != nil {
			plan.SampleDocs[i] = harness.SampleDoc{Target: s.Answers, Doc: harness.Doc{{Key: "index", Value: s.Index},
				{Key: "length", Value: s.Length}, {Key: "depth", Value: s.Depth}, {Key: "query", Value: s.Query},
				{Key: "needles", Value: s.Needles}, {Key: "haystack_size", Value: s.HaystackSize},
				{Key: "total_length", Value: s.TotalLength}}}
		}
	}
	plan.Score = func(_ []harness.LLResult, gen []harness.GenResult) (harness.Scores, error) {
		sc := harness.Scores{Metrics: map[string]harness.Metric{}, Gen: make([]float64, len(gen))}

		byLen := map[int][]float64{}
		byDepth := map[string][]float64{}
		var all []float64
		for i, g := range gen {
			x := niah.Score(samples[i], g.Text)
			sc.Gen[i] = x
			byLen[samples[i].Length] = append(byLen[samples[i].Length], x)
			if labels != nil {
				byDepth[labels[samples[i].Depth]] = append(byDepth[labels[samples[i].Depth]], x)
			}
			all = append(all, x)
		}
		metric := func(xs []float64) harness.Metric {
			return harness.Metric{Value: harness.Mean(xs), Stderr: harness.MeanStderr(xs), N: len(xs)}
		}
		sc.Metrics["score"] = metric(all)
		for l, xs := range byLen {
			sc.Metrics[fmt.Sprintf("score@%d", l)] = metric(xs)
		}
		for d, xs := range byDepth {
			sc.Metrics["score@d"+d] = metric(xs)
		}
		if opts.Samples != nil {
			sc.PerDoc = perDocScores(samples, sc.Gen, sc.Metrics, labels)
		}
		return sc, nil
	}
	return plan, nil
}

// perDocScores is each sample's value of every metric, as lm-eval's RULER tasks log them: "score", then
// "score@<length>" and "score@d<depth>" (sorted), the sample's score for its own length and depth and −1
// for the others (lm-eval's marker of "not this length"; the aggregates leave it out). Every metric of the
// task is in every record, so that readers going through the metric list (W&B's sample tables) find it.
func perDocScores(samples []niah.Sample, scores []float64, metrics map[string]harness.Metric, labels map[float64]string) map[int]harness.Doc {
	names := make([]string, 0, len(metrics))
	for m := range metrics {
		if m != "score" {
			names = append(names, m)
		}
	}
	sort.Strings(names)
	out := make(map[int]harness.Doc, len(samples))
	for i, s := range samples {
		d := harness.Doc{{Key: "score", Value: scores[i]}}
		own := map[string]bool{fmt.Sprintf("score@%d", s.Length): true}
		if labels != nil {
			own["score@d"+labels[s.Depth]] = true
		}
		for _, m := range names {
			v := -1.0
			if own[m] {
				v = scores[i]
			}
			d = append(d, harness.DocField{Key: m, Value: v})
		}
		out[i] = d
	}
	return out
}

// sortedLabels lists the depth labels in increasing depth.
func sortedLabels(labels map[float64]string) []string {
	ds := make([]float64, 0, len(labels))
	for d := range labels {
		ds = append(ds, d)
	}
	sort.Float64s(ds)
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = labels[d]
	}
	return out
}
