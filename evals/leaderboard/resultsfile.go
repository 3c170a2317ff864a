package leaderboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oryx-go/oryx/internal/atomicfile"

	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/internal/safefile"
)

// RunInfo is the metadata of one evaluation run, filled by the caller.
type RunInfo struct {
	Model          string   `json:"model"`                // model name, e.g. "oryx-gdn-360m"
	Variant        string   `json:"variant"`              // mixer variant, e.g. "gdn", "mamba2"
	Size           string   `json:"size"`                 // preset, e.g. "360m"
	Parameters     int64    `json:"parameters"`           // parameter count
	Checkpoint     string   `json:"checkpoint,omitempty"` // checkpoint directory
	CheckpointStep int64    `json:"checkpoint_step"`
	CheckpointHash string   `json:"checkpoint_hash,omitempty"` // the weights' identity (oryx.CheckpointHash)
	TokensSeen     int64    `json:"tokens_seen"`               // training tokens of the checkpoint
	Schedule       string   `json:"schedule"`                  // "mixed", or the --schedule spec the model ran
	Backend        string   `json:"backend"`                   // e.g. "go", "xla:cuda"
	Tokenizer      string   `json:"tokenizer,omitempty"`       // tokenizer name
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
	// Groups are the task groups the run was asked for by name ("--tasks lm"): lm-eval's layout gets a row
	// for each of them (with its averages). Tasks asked for one by one belong to no group there, as in
	// lm-eval, whatever group the project files them under (harness.RequestedGroups).
	Groups []string `json:"groups,omitempty"`
	// Failed maps the tasks that failed to their error (the run's other tasks are kept).
	Failed map[string]string `json:"failed,omitempty"`
}

// ResultsFile is the result file of one run. Its JSON form is lm-evaluation-harness 0.4's results layout (see
// MarshalJSON), with the project's own fields under "oryx".
type ResultsFile struct {
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
	// Foreign: read from a results file lm-eval wrote (no "oryx" part): what only the project records (the
	// variant, step, tokens seen, schedule, attention fraction) is unknown, not zero.
	Foreign bool
}

// NewResultsFile assembles a results file from the run's metadata and its task results (a later result of the
// same task replaces an earlier one; nil results are skipped).
func NewResultsFile(info RunInfo, results []*harness.Result) *ResultsFile {
	r := &ResultsFile{RunInfo: info, Tasks: map[string]*harness.Result{}}
	for _, res := range results {
		if res != nil {
			r.Tasks[res.Task] = res
		}
	}
	r.refresh()
	return r
}

// refresh recomputes the attention figures and the averages from the tasks.
func (r *ResultsFile) refresh() {
	tok, att := map[string]int64{}, map[string]int64{}
	for _, res := range r.Tasks {
		if res.Tokens == 0 {
			continue // unknown: a results file lm-eval wrote has no token counts
		}
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
	r.AttentionFraction = math.NaN() // several groups (AttentionByGroup), or none known
	if len(tok) == 1 && allTok > 0 {
		r.AttentionFraction = float64(allAtt) / float64(allTok)
	}
	r.Averages = ComputeAverages(r.Tasks)
}

// Partial reports whether some task scored fewer documents than its protocol has (a --limit run).
func (r *ResultsFile) Partial() bool {
	for _, res := range r.Tasks {
		if res != nil && res.Docs < res.TotalDocs-res.Dropped {
			return true
		}
	}
	return false
}

// taskNames returns the task names sorted.
func (r *ResultsFile) taskNames() []string {
	names := make([]string, 0, len(r.Tasks))
	for n := range r.Tasks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

type nSamples struct {
	Original  int `json:"original"`
	Effective int `json:"effective"`
}

// MarshalJSON writes lm-evaluation-harness 0.4.13's results layout (what its EvaluationTracker writes to
// results_<date>.json), on one line (WriteFile indents it as lm-eval does):
//
//   - results: per task "name", "alias", "sample_len" (the documents scored), "<metric>,none" and
//     "<metric>_stderr,none" ("N/A" where lm-eval has no stderr); per task group of the run ("lm",
//     "recall", "niah") a row too, with its averages as fractions ("gdn_lm_avg,none", ...) and
//     "sample_count" when every member is present;
//   - groups: the group rows that have averages; group_subtasks: each group's tasks in the run;
//   - configs: each task's lm-eval task YAML fields (harness.RegisterConfig: dataset_path is the Hugging
//     Face dataset), num_fewshot 0, the metric list with aggregation and higher_is_better, metadata.version,
//     and "data_file", the local parquet file read;
//   - versions (tasks as numbers, groups "N/A": they have no version), n-shot (0: every task is zero-shot),
//     higher_is_better, n-samples (original: the protocol's documents, effective: the ones scored);
//   - config: model "oryx", model_args, parameters, batch size, device (= backend), limit,
//     bootstrap_iters, and the backend and schedule;
//   - date (Unix seconds), task_hashes (of the logged samples), model_source, model_name,
//     model_name_sanitized (lm-eval's sanitize_model_name), total_evaluation_time_seconds, and
//     EvaluationTracker's other keys;
//   - oryx: the run metadata (RunInfo), partial, the attention fraction (null when the run spans several
//     task groups) and per group, every task's full record (harness.Result: metrics with n, counts,
//     effective max length, token segments, FLOPs, notes) and the papers' averages (percent).
//
// Numbers are written as Python writes them (1.0, not 1); non-finite values as the strings "NaN", "+Inf",
// "-Inf".
func (r *ResultsFile) MarshalJSON() ([]byte, error) {
	d, err := r.layout()
	if err != nil {
		return nil, err
	}
	return harness.PyJSON(d, -1)
}

// layoutTables are the per-task and per-group objects of the lm-eval layout, built by taskRows and
// groupRows.
type layoutTables struct {
	res, configs, versions, nShot, hib, nSamp, hashes harness.Doc
	groups, groupSubtasks                             harness.Doc
	subtasks                                          map[string][]string        // group → its tasks in the run
	groupHib                                          map[string]map[string]bool // group → metric → higher is better
}

// layout builds the lm-eval layout of the run (see MarshalJSON).
func (r *ResultsFile) layout() (harness.Doc, error) {
	tb := &layoutTables{res: harness.Doc{}, configs: harness.Doc{}, versions: harness.Doc{}, nShot: harness.Doc{},
		hib: harness.Doc{}, nSamp: harness.Doc{}, hashes: harness.Doc{}, groups: harness.Doc{}, groupSubtasks: harness.Doc{},
		subtasks: map[string][]string{}, groupHib: map[string]map[string]bool{}}
	r.taskRows(tb)
	r.groupRows(tb)
	sortDoc(tb.versions)
	sortDoc(tb.nShot)
	sortDoc(tb.hib)
	f := harness.Doc{{Key: "results", Value: tb.res}}
	if len(tb.groups) > 0 {
		f = append(f, harness.DocField{Key: "groups", Value: tb.groups})
	}
	var date any
	if t, err := time.Parse(time.RFC3339, r.Date); err == nil {
		date = float64(t.UnixNano()) / 1e9
	}
	var seconds any
	if r.Seconds > 0 {
		seconds = harness.PyFloatRepr(r.Seconds)
	}
	f = append(f, harness.DocField{Key: "group_subtasks", Value: tb.groupSubtasks}, harness.DocField{Key: "configs", Value: tb.configs},
		harness.DocField{Key: "versions", Value: tb.versions}, harness.DocField{Key: "n-shot", Value: tb.nShot},
		harness.DocField{Key: "higher_is_better", Value: tb.hib}, harness.DocField{Key: "n-samples", Value: tb.nSamp},
		harness.DocField{Key: "config", Value: r.runConfig()}, harness.DocField{Key: "git_hash", Value: nil},
		harness.DocField{Key: "date", Value: date}, harness.DocField{Key: "task_hashes", Value: tb.hashes},
		harness.DocField{Key: "model_source", Value: "oryx"}, harness.DocField{Key: "model_name", Value: r.Model},
		harness.DocField{Key: "model_name_sanitized", Value: SanitizeModelName(r.Model)},
		harness.DocField{Key: "system_instruction", Value: nil}, harness.DocField{Key: "system_instruction_sha", Value: nil},
		harness.DocField{Key: "fewshot_as_multiturn", Value: false}, harness.DocField{Key: "chat_template", Value: nil},
		harness.DocField{Key: "chat_template_sha", Value: nil}, harness.DocField{Key: "total_evaluation_time_seconds", Value: seconds})
	o := &oryxSection{RunInfo: r.RunInfo, Partial: r.Partial(), AttentionFraction: json.RawMessage("null"),
		AttentionByGroup: r.AttentionByGroup, Tasks: r.Tasks, Averages: r.Averages}
	if !math.IsNaN(r.AttentionFraction) {
		o.AttentionFraction, _ = json.Marshal(r.AttentionFraction)
	}
	od, err := asDoc(o)
	if err != nil {
		return nil, err
	}
	return append(f, harness.DocField{Key: "oryx", Value: od}), nil
}

// taskRows adds each task's entries (in name order) to tb: its results row, config, version, n-shot,
// higher_is_better, n-samples and task hash; and notes its group's members and metrics.
func (r *ResultsFile) taskRows(tb *layoutTables) {
	for _, name := range r.taskNames() {
		t := r.Tasks[name]
		row := harness.Doc{{Key: "name", Value: name}, {Key: "alias", Value: name}, {Key: "sample_len", Value: t.Docs}}
		metrics := make([]string, 0, len(t.Metrics))
		for m := range t.Metrics {
			metrics = append(metrics, m)
		}
		sort.Strings(metrics)
		th := harness.Doc{}
		var metricList []any
		for _, m := range metrics {
			v := t.Metrics[m]
			var se any = "N/A"
			if !math.IsNaN(v.Stderr) {
				se = number(v.Stderr)
			}
			row = append(row, harness.DocField{Key: m + ",none", Value: number(v.Value)},
				harness.DocField{Key: m + "_stderr,none", Value: se})
			agg, higher, _ := metricKind(m)
			th = append(th, harness.DocField{Key: m, Value: higher})
			metricList = append(metricList, harness.Doc{{Key: "metric", Value: m}, {Key: "aggregation", Value: agg},
				{Key: "higher_is_better", Value: higher}})
		}
		tb.res = append(tb.res, harness.DocField{Key: name, Value: row})
		tb.configs = append(tb.configs, harness.DocField{Key: name, Value: taskConfig(name, t, metricList)})
		tb.versions = append(tb.versions, harness.DocField{Key: name, Value: t.Version})
		tb.nShot = append(tb.nShot, harness.DocField{Key: name, Value: 0})
		tb.hib = append(tb.hib, harness.DocField{Key: name, Value: th})
		tb.nSamp = append(tb.nSamp, harness.DocField{Key: name, Value: harness.Doc{{Key: "original", Value: t.TotalDocs - t.Dropped},
			{Key: "effective", Value: t.Docs}}})
		if t.TaskHash != "" {
			tb.hashes = append(tb.hashes, harness.DocField{Key: name, Value: t.TaskHash})
		}
		if t.Group != "" && slices.Contains(r.Groups, t.Group) {
			tb.subtasks[t.Group] = append(tb.subtasks[t.Group], name)
			if tb.groupHib[t.Group] == nil {
				tb.groupHib[t.Group] = map[string]bool{}
			}
			for _, f := range th {
				tb.groupHib[t.Group][f.Key] = f.Value.(bool)
			}
		}
	}
}

// taskConfig is task name's "configs" entry: its registered lm-eval YAML fields (or its name and output
// type), lm-eval's defaults where those have none, the data file read and the max length.
func taskConfig(name string, t *harness.Result, metricList []any) harness.Doc {
	cfg := harness.ConfigOf(name)
	if cfg == nil {
		cfg = harness.Doc{{Key: "task", Value: name}}
		if t.OutputType != "" {
			cfg = append(cfg, harness.DocField{Key: "output_type", Value: t.OutputType})
		}
	}
	for _, f := range (harness.Doc{{Key: "target_delimiter", Value: " "}, {Key: "fewshot_delimiter", Value: "\n\n"},
		{Key: "num_fewshot", Value: 0}, {Key: "metric_list", Value: metricList}, {Key: "repeats", Value: 1},
		{Key: "metadata", Value: harness.Doc{{Key: "version", Value: t.Version}}}}) {
		if _, ok := cfg.Get(f.Key); !ok { // lm-eval's defaults, where the task's YAML has none
			cfg = append(cfg, f)
		}
	}
	if t.Data != "" {
		cfg = append(cfg, harness.DocField{Key: "data_file", Value: t.Data})
	}
	if t.MaxLength > 0 {
		cfg = append(cfg, harness.DocField{Key: "max_length", Value: t.MaxLength})
	}
	return cfg
}

// groupRows adds each task group's entries (in name order) to tb: its results row (and "groups" row when
// it has averages), version, n-shot, higher_is_better and group_subtasks.
func (r *ResultsFile) groupRows(tb *layoutTables) {
	groupNames := make([]string, 0, len(tb.subtasks))
	for g := range tb.subtasks {
		groupNames = append(groupNames, g)
	}
	sort.Strings(groupNames)
	for _, g := range groupNames {
		row := harness.Doc{{Key: "name", Value: g}, {Key: "alias", Value: g}}
		count := harness.Doc{}
		docs := 0
		for _, t := range tb.subtasks[g] {
			docs += r.Tasks[t].Docs
		}
		for _, d := range Averages {
			if a, ok := r.Averages[d.Name]; ok && d.Group == g && !math.IsNaN(a.Value) {
				row = append(row, harness.DocField{Key: d.Name + ",none", Value: a.Value / 100},
					harness.DocField{Key: d.Name + "_stderr,none", Value: "N/A"})
				count = append(count, harness.DocField{Key: d.Name + ",none", Value: docs})
				tb.groupHib[g][d.Name] = true
			}
		}
		if len(count) > 0 {
			row = append(row[:2], append(harness.Doc{{Key: "sample_len", Value: docs}}, row[2:]...)...)
			row = append(row, harness.DocField{Key: "sample_count", Value: count})
			tb.groups = append(tb.groups, harness.DocField{Key: g, Value: row})
		}
		tb.res = append(tb.res, harness.DocField{Key: g, Value: row})
		tb.versions = append(tb.versions, harness.DocField{Key: g, Value: "N/A"})
		tb.nShot = append(tb.nShot, harness.DocField{Key: g, Value: 0})
		gh := harness.Doc{}
		for _, m := range sortedKeys(tb.groupHib[g]) {
			gh = append(gh, harness.DocField{Key: m, Value: tb.groupHib[g][m]})
		}
		tb.hib = append(tb.hib, harness.DocField{Key: g, Value: gh})
		tb.groupSubtasks = append(tb.groupSubtasks, harness.DocField{Key: g, Value: tb.subtasks[g]})
	}
}

// runConfig is the run's "config" object: model "oryx", model_args, parameters, batch size, device (the
// backend), limit, bootstrap_iters, backend and schedule; unset settings are null.
func (r *ResultsFile) runConfig() harness.Doc {
	var limit any
	if r.Limit > 0 {
		limit = r.Limit
	}
	var params any
	if r.Parameters > 0 {
		params = r.Parameters
	}
	var batch any
	if r.BatchSize > 0 {
		batch = r.BatchSize
	}
	var device any
	if r.Backend != "" {
		device = r.Backend
	}
	return harness.Doc{{Key: "model", Value: "oryx"}, {Key: "model_args", Value: r.modelArgs()},
		{Key: "model_num_parameters", Value: params}, {Key: "batch_size", Value: batch}, {Key: "batch_sizes", Value: []any{}},
		{Key: "device", Value: device}, {Key: "use_cache", Value: nil}, {Key: "limit", Value: limit},
		{Key: "bootstrap_iters", Value: r.BootstrapIters}, {Key: "gen_kwargs", Value: nil},
		{Key: "backend", Value: r.Backend}, {Key: "schedule", Value: r.Schedule}}
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

// asDoc turns a JSON-marshalable value into the values harness.PyJSON writes, numbers kept as Go wrote
// them (json.Number), objects in Go's key order.
func asDoc(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return x, nil
}

func sortDoc(d harness.Doc) { sort.SliceStable(d, func(i, j int) bool { return d[i].Key < d[j].Key }) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// modelArgs renders lm-eval's model_args string for the run.
func (r *ResultsFile) modelArgs() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("checkpoint", r.Checkpoint)
	add("schedule", r.Schedule)
	add("tokenizer", r.Tokenizer)
	if n := r.taskMaxLength(); n > 0 {
		add("max_length", fmt.Sprint(n))
	}
	return strings.Join(parts, ",")
}

// taskMaxLength is the max_length the run's tasks ran at when they share one (each task's configs entry
// states its own), else 0. RunInfo.MaxLength is the longest the model was built for (8192 for NIAH) even
// where every task ran at lm-eval's 2048.
func (r *ResultsFile) taskMaxLength() int {
	n := 0
	for _, t := range r.Tasks {
		switch {
		case t.MaxLength <= 0:
		case n == 0:
			n = t.MaxLength
		case n != t.MaxLength:
			return 0
		}
	}
	return n
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

var unsanitaryRE = regexp.MustCompile(`["<>:/|\\?*\[\]]+`)

// SanitizeModelName is lm-eval 0.4.13's sanitize_model_name: runs of the characters "<>:/|\?*[] and '"'
// replaced by "__" (the folder name of its results and samples files).
func SanitizeModelName(s string) string { return unsanitaryRE.ReplaceAllString(s, "__") }

// UnmarshalJSON reads what MarshalJSON writes, and results files written by lm-evaluation-harness itself
// (no "oryx" part), 0.4.0 to 0.4.13: the tasks' "<metric>,none" values and stderrs ("N/A" and non-finite
// values accepted, also as Python's bare NaN and Infinity), n-samples when present (0.4.0 had none),
// versions as numbers, numeric strings or anything else ("N/A", 0.4.0's "Yaml": no version, 0), the rows of
// groups (the keys of "groups", and of "group_subtasks" with members) left out — they aggregate the tasks
// beside them —, model_name (else model_args, a string or a dict), config.limit and date.
func (r *ResultsFile) UnmarshalJSON(b []byte) error {
	var f struct {
		Results       map[string]map[string]json.RawMessage `json:"results"`
		Groups        map[string]json.RawMessage            `json:"groups"`
		GroupSubtasks map[string][]string                   `json:"group_subtasks"`
		NSamples      map[string]nSamples                   `json:"n-samples"`
		Versions      map[string]json.RawMessage            `json:"versions"`
		ModelName     string                                `json:"model_name"`
		Date          json.RawMessage                       `json:"date"`
		Config        struct {
			ModelArgs json.RawMessage `json:"model_args"`
			Limit     json.RawMessage `json:"limit"`
		} `json:"config"`
		Oryx *struct {
			RunInfo
			AttentionFraction json.RawMessage            `json:"attention_fraction"`
			AttentionByGroup  map[string]float64         `json:"attention_fraction_by_group"`
			Tasks             map[string]*harness.Result `json:"tasks"`
		} `json:"oryx"`
	}
	if err := json.Unmarshal(quotePythonNonFinite(b), &f); err != nil {
		return err
	}
	if f.Results == nil {
		return fmt.Errorf("no \"results\"")
	}
	*r = ResultsFile{Tasks: map[string]*harness.Result{}, Foreign: f.Oryx == nil}
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
		r.Model = modelArgsText(f.Config.ModelArgs)
	}
	if l, err := parseNumber(f.Config.Limit); err == nil && !math.IsNaN(l) {
		r.Limit = int(l)
	}
	if d, err := parseNumber(f.Date); err == nil && !math.IsNaN(d) && !math.IsInf(d, 0) {
		r.Date = time.Unix(0, int64(d*1e9)).UTC().Format(time.RFC3339)
	}
	isGroup := func(name string) bool {
		_, g := f.Groups[name]
		return g || len(f.GroupSubtasks[name]) > 0
	}
	for name, row := range f.Results {
		if isGroup(name) {
			continue
		}
		if row == nil {
			return fmt.Errorf("results: task %q is null", name)
		}
		version, _ := parseVersion(f.Versions[name])
		res := &harness.Result{Task: name, Metrics: map[string]harness.Metric{}, Version: version, Group: harness.GroupOf(name)}
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

// parseVersion reads a task version as lm-eval writes it: a number (1.0), a numeric string ("1.0", as
// 0.4.13 writes groups'), or a word ("N/A", "Yaml"): ok false and 0.
func parseVersion(raw json.RawMessage) (float64, bool) {
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return f, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsNaN(f) {
			return f, true
		}
	}
	return 0, false
}

// modelArgsText is config.model_args as a string: as written, or a dict (newer lm-eval versions, when
// called from Python) as "k=v,..." sorted by key.
func modelArgsText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, ",")
}

// quotePythonNonFinite turns Python's bare NaN, Infinity and -Infinity (json.dumps writes them; they are
// not JSON) into the strings parseNumber reads; everything inside strings is left as it is.
func quotePythonNonFinite(b []byte) []byte {
	if !bytes.Contains(b, []byte("NaN")) && !bytes.Contains(b, []byte("Infinity")) {
		return b
	}
	var out []byte
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			out = append(out, c)
			switch c {
			case '\\':
				if i+1 < len(b) {
					i++
					out = append(out, b[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		matched := false
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(b[i:], []byte(tok)) {
				out = append(out, '"')
				out = append(out, tok...)
				out = append(out, '"')
				i += len(tok) - 1
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, c)
		}
	}
	return out
}

// parseNumber reads a JSON number, or one of "NaN", "N/A" (NaN), "+Inf", "Infinity", "-Inf", "-Infinity".
func parseNumber(raw json.RawMessage) (float64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return math.NaN(), nil
	}
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

// WriteFile writes the results file as lm-eval writes its results files (json.dumps with indent 2),
// atomically (internal/atomicfile).
func (r *ResultsFile) WriteFile(path string) error {
	d, err := r.layout()
	if err == nil {
		var b []byte
		if b, err = harness.PyJSON(d, 2); err == nil {
			return writeAtomic(path, append(b, '\n'))
		}
	}
	return fmt.Errorf("leaderboard: %s: %w", path, err)
}

// ReadResultsFile reads a results file written by WriteFile (or an lm-evaluation-harness results file); errors
// name the file.
func ReadResultsFile(path string) (*ResultsFile, error) {
	b, err := safefile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("leaderboard: %w", err)
	}
	// JSON is UTF-8; Go's decoder turns any other byte into U+FFFD, so two names differing only there would
	// read back the same.
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("leaderboard: %s: not a results file: not valid UTF-8 (at byte %d)", path, invalidUTF8At(b))
	}
	var r ResultsFile
	if err := json.Unmarshal(quotePythonNonFinite(b), &r); err != nil { // Python's bare NaN is not JSON
		return nil, fmt.Errorf("leaderboard: %s: not a results file: %w", path, err)
	}
	r.Path = path
	return &r, nil
}

// invalidUTF8At is the offset of the first byte of b that is not valid UTF-8 (len(b) if none).
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// IsOwnOutput reports whether path is one of merge's own outputs (leaderboard.json, leaderboard.md) or a
// file of that shape (a "runs" list and no "results"), which merge skips.
func IsOwnOutput(path string) bool {
	switch filepath.Base(path) {
	case "leaderboard.json", "leaderboard.md":
		return true
	}
	return CheckLeaderboardFile(path) == nil
}

// CheckLeaderboardFile returns nil when path has the shape of merge's leaderboard.json (a "runs" list and no
// "results"), else an error saying what it is not.
func CheckLeaderboardFile(path string) error {
	b, err := safefile.ReadFile(path)
	if err != nil {
		return err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	_, runs := probe["runs"]
	_, results := probe["results"]
	if !runs || results {
		return errors.New(`not a leaderboard (a "runs" list and no "results")`)
	}
	return nil
}

// CheckLeaderboardTable returns nil when path begins like the markdown table WriteFiles writes.
func CheckLeaderboardTable(path string) error {
	b, err := safefile.ReadFileMax(path, 64<<20)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(b, []byte("| Model | ")) {
		return errors.New("not a leaderboard table (it does not begin with \"| Model | \")")
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data); err != nil {
		return fmt.Errorf("leaderboard: %w", err)
	}
	return nil
}
