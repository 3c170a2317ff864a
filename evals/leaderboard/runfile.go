package leaderboard

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/oryx-go/oryx/internal/atomicfile"

	"github.com/oryx-go/oryx/evals/harness"
)

// RunInfo is the metadata of one evaluation run, filled by the caller.
type RunInfo struct {
	Model          string   `json:"model"`                // model name, e.g. "oryx-gdn-360m"
	Variant        string   `json:"variant"`              // mixer variant, e.g. "gdn", "mamba2"
	Size           string   `json:"size"`                 // preset, e.g. "360m"
	Parameters     int64    `json:"parameters"`           // parameter count
	Checkpoint     string   `json:"checkpoint,omitempty"` // checkpoint directory
	CheckpointStep int64    `json:"checkpoint_step"`
	TokensSeen     int64    `json:"tokens_seen"`         // training tokens of the checkpoint
	Schedule       string   `json:"schedule"`            // "mixed", or the --schedule spec the model ran
	Backend        string   `json:"backend"`             // e.g. "go", "xla:cuda"
	Tokenizer      string   `json:"tokenizer,omitempty"` // tokenizer name
	MaxLength      int      `json:"max_length,omitempty"`
	FLOPs          float64  `json:"flops,omitempty"` // forward FLOPs of the whole run, when the caller counts them
	Date           string   `json:"date,omitempty"`  // when the run finished (RFC 3339)
	Notes          []string `json:"notes,omitempty"`
	// Limit is --limit (0: all documents); BatchSize and BootstrapIters the run's settings; MaxLengths the
	// max_length of each task group ("lm": 2048, "niah": 8192, ...). Seconds is the evaluation time.
	Limit          int            `json:"limit,omitempty"`
	BatchSize      int            `json:"batch_size,omitempty"`
	BootstrapIters int            `json:"bootstrap_iters,omitempty"`
	MaxLengths     map[string]int `json:"max_lengths,omitempty"`
	Seconds        float64        `json:"seconds,omitempty"`
	// Failed maps the tasks that failed to their error (the run's other tasks are kept).
	Failed map[string]string `json:"failed,omitempty"`
}

// RunFile is the result file of one run. Its JSON form is lm-evaluation-harness 0.4's results layout (see
// MarshalJSON), with the project's own fields under "oryx".
type RunFile struct {
	RunInfo
	// AttentionFraction is Σ attention tokens / Σ tokens over all tasks when the run's tasks are of one
	// family (group); NaN when they span several (AttentionByGroup then holds the figures: LM and NIAH
	// tokens are not pooled). A caller may set it for tasks it measured itself.
	AttentionFraction float64
	// AttentionByGroup is the attention fraction per task group ("" for tasks of no group).
	AttentionByGroup map[string]float64
	// Tasks maps task name → its result (metrics with value, stderr and n; counts; time).
	Tasks map[string]*harness.Result
	// Averages are the papers' averages (see Averages).
	Averages map[string]Average
	// Path is the file the run was read from (empty for a new run).
	Path string
}

// NewRunFile assembles a run file from the run's metadata and its task results (a later result of the
// same task replaces an earlier one; nil results are skipped).
func NewRunFile(info RunInfo, results []*harness.Result) *RunFile {
	r := &RunFile{RunInfo: info, Tasks: map[string]*harness.Result{}}
	for _, res := range results {
		if res != nil {
			r.Tasks[res.Task] = res
		}
	}
	r.refresh()
	return r
}

// refresh recomputes the attention figures and the averages from the tasks.
func (r *RunFile) refresh() {
	tok, att := map[string]int64{}, map[string]int64{}
	for _, res := range r.Tasks {
		tok[res.Group] += res.Tokens
		att[res.Group] += res.AttentionTokens
	}
	r.AttentionByGroup = map[string]float64{}
	var allTok, allAtt int64
	for g, n := range tok {
		if n > 0 {
			r.AttentionByGroup[g] = float64(att[g]) / float64(n)
		}
		allTok += n
		allAtt += att[g]
	}
	r.AttentionFraction = math.NaN()
	if len(tok) <= 1 {
		r.AttentionFraction = 0
		if allTok > 0 {
			r.AttentionFraction = float64(allAtt) / float64(allTok)
		}
	}
	r.Averages = ComputeAverages(r.Tasks)
}

// Partial reports whether some task scored fewer documents than its protocol has (a --limit run).
func (r *RunFile) Partial() bool {
	for _, res := range r.Tasks {
		if res != nil && res.Docs < res.TotalDocs-res.Dropped {
			return true
		}
	}
	return false
}

// taskNames returns the task names sorted.
func (r *RunFile) taskNames() []string {
	names := make([]string, 0, len(r.Tasks))
	for n := range r.Tasks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// lm-eval's results layout, top level.
type lmevalFile struct {
	Results            map[string]map[string]any  `json:"results"`
	Groups             map[string]map[string]any  `json:"groups"`
	GroupSubtasks      map[string][]string        `json:"group_subtasks"`
	Configs            map[string]taskConfig      `json:"configs"`
	Versions           map[string]float64         `json:"versions"`
	NShot              map[string]int             `json:"n-shot"`
	HigherIsBetter     map[string]map[string]bool `json:"higher_is_better"`
	NSamples           map[string]nSamples        `json:"n-samples"`
	Config             runConfig                  `json:"config"`
	Date               *float64                   `json:"date,omitempty"`
	ModelName          string                     `json:"model_name"`
	ModelNameSanitized string                     `json:"model_name_sanitized"`
	TotalSeconds       string                     `json:"total_evaluation_time_seconds,omitempty"`
	Oryx               *oryxSection               `json:"oryx,omitempty"`
}

type taskConfig struct {
	Task        string       `json:"task"`
	Group       string       `json:"group,omitempty"`
	DatasetPath string       `json:"dataset_path,omitempty"`
	OutputType  string       `json:"output_type,omitempty"`
	NumFewshot  int          `json:"num_fewshot"`
	Limit       *int         `json:"limit"`
	MaxLength   int          `json:"max_length,omitempty"`
	MetricList  []metricSpec `json:"metric_list"`
	Metadata    struct {
		Version float64 `json:"version"`
	} `json:"metadata"`
}

type metricSpec struct {
	Metric         string `json:"metric"`
	Aggregation    string `json:"aggregation"`
	HigherIsBetter bool   `json:"higher_is_better"`
}

type nSamples struct {
	Original  int `json:"original"`
	Effective int `json:"effective"`
}

type runConfig struct {
	Model              string  `json:"model"`
	ModelArgs          string  `json:"model_args"`
	ModelNumParameters int64   `json:"model_num_parameters,omitempty"`
	BatchSize          int     `json:"batch_size,omitempty"`
	BatchSizes         []int   `json:"batch_sizes"`
	Device             string  `json:"device,omitempty"`
	UseCache           *string `json:"use_cache"`
	Limit              *int    `json:"limit"`
	BootstrapIters     int     `json:"bootstrap_iters"`
	GenKwargs          *string `json:"gen_kwargs"`
	Backend            string  `json:"backend"`
	Schedule           string  `json:"schedule"`
}

// oryxSection is the project's own part of the file.
type oryxSection struct {
	RunInfo
	Partial           bool                       `json:"partial"`
	AttentionFraction json.RawMessage            `json:"attention_fraction"`
	AttentionByGroup  map[string]float64         `json:"attention_fraction_by_group"`
	Tasks             map[string]*harness.Result `json:"tasks"`
	Averages          map[string]Average         `json:"averages"`
}

// MarshalJSON writes lm-evaluation-harness 0.4's results layout:
//
//   - results: per task "<metric>,none" and "<metric>_stderr,none" ("N/A" where lm-eval has no stderr) and
//     "alias";
//   - groups: per task group of the run ("lm", "recall", "niah") its averages as fractions
//     ("gdn_lm_avg,none", ...) when every member is present, and "alias"; group_subtasks: each group's
//     tasks in the run (a task of no group maps to []);
//   - configs (task, dataset_path = the file read, output_type, num_fewshot 0, limit, max_length,
//     metric_list with aggregation and higher_is_better, metadata.version), versions, n-shot (0: every
//     task is zero-shot), higher_is_better, n-samples (original: the protocol's documents, effective: the
//     ones scored);
//   - config: model "oryx", model_args, parameters, batch size, device (= backend), limit, bootstrap_iters,
//     and the backend and schedule;
//   - date (Unix seconds), model_name, model_name_sanitized, total_evaluation_time_seconds;
//   - oryx: the run metadata (RunInfo), partial, the attention fraction (null when the run spans several
//     task groups) and per group, every task's full record (harness.Result: metrics with n, counts,
//     effective max length, token segments, FLOPs, notes) and the papers' averages (percent).
//
// Non-finite values are written as the strings "NaN", "+Inf", "-Inf".
func (r *RunFile) MarshalJSON() ([]byte, error) { return json.Marshal(r.layout()) }

// layout builds the lm-eval layout of the run (see MarshalJSON).
func (r *RunFile) layout() lmevalFile {
	f := lmevalFile{Results: map[string]map[string]any{}, Groups: map[string]map[string]any{},
		GroupSubtasks: map[string][]string{}, Configs: map[string]taskConfig{}, Versions: map[string]float64{},
		NShot: map[string]int{}, HigherIsBetter: map[string]map[string]bool{}, NSamples: map[string]nSamples{},
		ModelName: r.Model, ModelNameSanitized: sanitize(r.Model)}
	var limit *int
	if r.Limit > 0 {
		limit = &r.Limit
	}
	for _, name := range r.taskNames() {
		res := r.Tasks[name]
		row := map[string]any{"alias": name}
		cfg := taskConfig{Task: name, Group: res.Group, DatasetPath: res.Data, OutputType: res.OutputType, Limit: limit, MaxLength: res.MaxLength}
		cfg.Metadata.Version = res.Version
		hib := map[string]bool{}
		metrics := make([]string, 0, len(res.Metrics))
		for m := range res.Metrics {
			metrics = append(metrics, m)
		}
		sort.Strings(metrics)
		for _, m := range metrics {
			v := res.Metrics[m]
			row[m+",none"] = number(v.Value)
			row[m+"_stderr,none"] = "N/A"
			if !math.IsNaN(v.Stderr) {
				row[m+"_stderr,none"] = number(v.Stderr)
			}
			agg, higher, _ := metricKind(m)
			hib[m] = higher
			cfg.MetricList = append(cfg.MetricList, metricSpec{Metric: m, Aggregation: agg, HigherIsBetter: higher})
		}
		f.Results[name] = row
		f.Configs[name] = cfg
		f.Versions[name] = res.Version
		f.NShot[name] = 0
		f.HigherIsBetter[name] = hib
		f.NSamples[name] = nSamples{Original: res.TotalDocs - res.Dropped, Effective: res.Docs}
		if res.Group == "" {
			f.GroupSubtasks[name] = []string{}
		} else {
			f.GroupSubtasks[res.Group] = append(f.GroupSubtasks[res.Group], name)
		}
	}
	for g := range f.GroupSubtasks {
		if r.Tasks[g] != nil {
			continue // a task of no group
		}
		row := map[string]any{"alias": g}
		for _, d := range Averages {
			if a, ok := r.Averages[d.Name]; ok && d.Group == g && !math.IsNaN(a.Value) {
				row[d.Name+",none"] = a.Value / 100
				row[d.Name+"_stderr,none"] = "N/A"
			}
		}
		f.Groups[g] = row
	}
	f.Config = runConfig{Model: "oryx", ModelArgs: r.modelArgs(), ModelNumParameters: r.Parameters, BatchSize: r.BatchSize,
		BatchSizes: []int{}, Device: r.Backend, Limit: limit, BootstrapIters: r.BootstrapIters, Backend: r.Backend, Schedule: r.Schedule}
	if t, err := time.Parse(time.RFC3339, r.Date); err == nil {
		d := float64(t.UnixNano()) / 1e9
		f.Date = &d
	}
	if r.Seconds > 0 {
		f.TotalSeconds = fmt.Sprint(r.Seconds)
	}
	o := &oryxSection{RunInfo: r.RunInfo, Partial: r.Partial(), AttentionFraction: json.RawMessage("null"),
		AttentionByGroup: r.AttentionByGroup, Tasks: r.Tasks, Averages: r.Averages}
	if !math.IsNaN(r.AttentionFraction) {
		o.AttentionFraction, _ = json.Marshal(r.AttentionFraction)
	}
	f.Oryx = o
	return f
}

// modelArgs renders lm-eval's model_args string for the run.
func (r *RunFile) modelArgs() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("checkpoint", r.Checkpoint)
	add("schedule", r.Schedule)
	add("tokenizer", r.Tokenizer)
	if r.MaxLength > 0 {
		add("max_length", fmt.Sprint(r.MaxLength))
	}
	return strings.Join(parts, ",")
}

// number is v for JSON: a float, or a string for a non-finite value.
func number(v float64) any {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return v
}

var unsanitaryRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// sanitize is lm-eval's model_name_sanitized: the name with path separators and odd characters replaced.
func sanitize(s string) string { return unsanitaryRE.ReplaceAllString(s, "__") }

// UnmarshalJSON reads what MarshalJSON writes; a results file written by lm-evaluation-harness itself (no
// "oryx" part) is read from its results, n-samples and config ("none" filter only).
func (r *RunFile) UnmarshalJSON(b []byte) error {
	var f struct {
		Results   map[string]map[string]json.RawMessage `json:"results"`
		NSamples  map[string]nSamples                   `json:"n-samples"`
		Versions  map[string]float64                    `json:"versions"`
		ModelName string                                `json:"model_name"`
		Config    struct {
			ModelArgs string `json:"model_args"`
			Limit     *float64
		} `json:"config"`
		Oryx *struct {
			RunInfo
			AttentionFraction json.RawMessage            `json:"attention_fraction"`
			AttentionByGroup  map[string]float64         `json:"attention_fraction_by_group"`
			Tasks             map[string]*harness.Result `json:"tasks"`
		} `json:"oryx"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	if f.Results == nil {
		return fmt.Errorf("no \"results\"")
	}
	*r = RunFile{Tasks: map[string]*harness.Result{}}
	if o := f.Oryx; o != nil {
		r.RunInfo, r.Tasks = o.RunInfo, o.Tasks
		if r.Tasks == nil {
			r.Tasks = map[string]*harness.Result{}
		}
		for name, res := range r.Tasks {
			if res == nil {
				return fmt.Errorf("task %q is null", name)
			}
		}
		r.refresh()
		if af, err := parseNumber(o.AttentionFraction); err == nil && string(o.AttentionFraction) != "null" && !math.IsNaN(af) {
			r.AttentionFraction = af // as written (a caller may have set it)
		}
		return nil
	}
	r.Model = f.ModelName
	if r.Model == "" {
		r.Model = f.Config.ModelArgs
	}
	if f.Config.Limit != nil {
		r.Limit = int(*f.Config.Limit)
	}
	for name, row := range f.Results {
		if row == nil {
			return fmt.Errorf("results: task %q is null", name)
		}
		res := &harness.Result{Task: name, Metrics: map[string]harness.Metric{}, Version: f.Versions[name], Group: harness.GroupOf(name)}
		ns := f.NSamples[name]
		res.Docs, res.TotalDocs = ns.Effective, ns.Original
		for k, raw := range row {
			m, filter, ok := strings.Cut(k, ",")
			if !ok || filter != "none" || strings.HasSuffix(m, "_stderr") {
				continue
			}
			v, err := parseNumber(raw)
			if err != nil {
				return fmt.Errorf("results.%s[%q]: %w", name, k, err)
			}
			st := math.NaN()
			if sraw, ok := row[m+"_stderr,"+filter]; ok {
				if s, err := parseNumber(sraw); err == nil {
					st = s
				}
			}
			res.Metrics[m] = harness.Metric{Value: v, Stderr: st, N: ns.Effective}
		}
		r.Tasks[name] = res
	}
	r.refresh()
	return nil
}

// parseNumber reads a JSON number, or one of "NaN", "N/A" (NaN), "+Inf", "Infinity", "-Inf", "-Infinity".
func parseNumber(raw json.RawMessage) (float64, error) {
	var f float64
	if err := json.Unmarshal(raw, &f); err == nil {
		return f, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf("not a number: %s", raw)
	}
	switch s {
	case "NaN", "N/A", "nan":
		return math.NaN(), nil
	case "+Inf", "Inf", "Infinity", "inf":
		return math.Inf(1), nil
	case "-Inf", "-Infinity", "-inf":
		return math.Inf(-1), nil
	}
	return 0, fmt.Errorf("not a number: %q", s)
}

// WriteFile writes the run file as indented JSON, atomically (internal/atomicfile).
func (r *RunFile) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("leaderboard: %s: %w", path, err)
	}
	return writeAtomic(path, append(b, '\n'))
}

// ReadRunFile reads a run file written by WriteFile (or an lm-evaluation-harness results file); errors
// name the file.
func ReadRunFile(path string) (*RunFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("leaderboard: %w", err)
	}
	var r RunFile
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("leaderboard: %s: not a results file: %w", path, err)
	}
	r.Path = path
	return &r, nil
}

// IsOwnOutput reports whether path is one of merge's own outputs (leaderboard.json, leaderboard.md) or a
// file of that shape (a "runs" list and no "results"), which merge skips.
func IsOwnOutput(path string) bool {
	switch filepath.Base(path) {
	case "leaderboard.json", "leaderboard.md":
		return true
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(b, &probe) != nil {
		return false
	}
	_, runs := probe["runs"]
	_, results := probe["results"]
	return runs && !results
}

func writeAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data); err != nil {
		return fmt.Errorf("leaderboard: %w", err)
	}
	return nil
}
