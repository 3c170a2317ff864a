package harness

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Metric is one aggregated metric of a task.
type Metric struct {
	// Value is the aggregate (acc in [0, 1], a perplexity, ...), as lm-eval reports it.
	Value float64
	// Stderr is lm-eval's standard error of Value; NaN where lm-eval reports "N/A" (weighted perplexities,
	// bits_per_byte, a single document, or bootstrap switched off).
	Stderr float64
	// N is the number of documents aggregated.
	N int
}

// metricJSON is Metric's JSON form: {"value": v, "stderr": s or null, "n": n}. [choice] Non-finite values
// are written as the strings "NaN", "+Inf", "-Inf" (JSON has no such numbers; a perplexity can be +Inf).
type metricJSON struct {
	Value  json.RawMessage `json:"value"`
	Stderr json.RawMessage `json:"stderr"`
	N      int             `json:"n"`
}

// MarshalJSON writes {"value", "stderr", "n"}; stderr is null when NaN.
func (m Metric) MarshalJSON() ([]byte, error) {
	st := json.RawMessage("null")
	if !math.IsNaN(m.Stderr) {
		st = jsonFloat(m.Stderr)
	}
	return json.Marshal(metricJSON{Value: jsonFloat(m.Value), Stderr: st, N: m.N})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *Metric) UnmarshalJSON(b []byte) error {
	var j metricJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	v, err := parseJSONFloat(j.Value)
	if err != nil {
		return fmt.Errorf("metric value: %w", err)
	}
	s, err := parseJSONFloat(j.Stderr)
	if err != nil {
		return fmt.Errorf("metric stderr: %w", err)
	}
	*m = Metric{Value: v, Stderr: s, N: j.N}
	return nil
}

// jsonFloat encodes f as a JSON number, or as a string for NaN and ±Inf.
func jsonFloat(f float64) json.RawMessage {
	switch {
	case math.IsNaN(f):
		return json.RawMessage(`"NaN"`)
	case math.IsInf(f, 1):
		return json.RawMessage(`"+Inf"`)
	case math.IsInf(f, -1):
		return json.RawMessage(`"-Inf"`)
	}
	b, _ := json.Marshal(f)
	return b
}

// parseJSONFloat reads a number, null (NaN) or one of the strings jsonFloat writes.
func parseJSONFloat(raw json.RawMessage) (float64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return math.NaN(), nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "NaN":
			return math.NaN(), nil
		case "+Inf", "Inf", "Infinity":
			return math.Inf(1), nil
		case "-Inf", "-Infinity":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("not a number: %q", s)
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, err
	}
	return f, nil
}

// Result is what Run returns for one task.
type Result struct {
	Task    string            `json:"task"`
	Metrics map[string]Metric `json:"metrics"`
	// Docs is the number of documents scored; TotalDocs the number in the data (before Limit); Dropped the
	// documents the task's protocol dropped (JRT: answers of length ≤ 1).
	Docs      int `json:"docs"`
	TotalDocs int `json:"total_docs"`
	Dropped   int `json:"dropped,omitempty"`
	// Requests is the number of model requests; Truncated how many were left-truncated to MaxLength.
	Requests  int `json:"requests"`
	Truncated int `json:"truncated"`
	// MaxLength is the effective max_length of the task: the requests were truncated to it and rolling
	// windows cut at it (Options.GroupMaxLength, Plan.MaxLength, Model.MaxLength()).
	MaxLength int `json:"max_length"`
	// Group is the task's registry group ("lm", "recall", "niah"; empty for none); OutputType and Version
	// are the plan's (lm-eval's output_type and task version); Limit is Options.Limit.
	Group      string  `json:"group,omitempty"`
	OutputType string  `json:"output_type,omitempty"`
	Version    float64 `json:"version"`
	Limit      int     `json:"limit,omitempty"`
	// Mixed tells whether the task set mixed-mode split points (Options.Mixed).
	Mixed bool `json:"mixed"`
	// Tokens and AttentionTokens sum the models' counts over all requests; AttentionFraction is their
	// ratio (0 when Tokens is 0).
	Tokens            int64   `json:"tokens"`
	AttentionTokens   int64   `json:"attention_tokens"`
	AttentionFraction float64 `json:"attention_fraction"`
	// Segments splits the tokens (and, where it can be told, the attention tokens) into the context, the
	// question part and the generated tokens.
	Segments Segments `json:"segments"`
	// Seconds is the wall time of the task (building, model calls, scoring).
	Seconds float64 `json:"seconds"`
	// FLOPs are the model's forward FLOPs for the task, when the model counts them (filled by the caller):
	// as the graphs compute them (an Oryx model's parallel forward runs both readouts at every token), every
	// pass counted. FLOPsGathered is the same work in the gathered form (attention only at the attention
	// tokens), the cost that falls with an attention budget.
	FLOPs         float64 `json:"flops,omitempty"`
	FLOPsGathered float64 `json:"flops_gathered,omitempty"`
	// Policy and Budget are the schedule's budget policy and fraction (a budget:F:POLICY schedule: the
	// realised fraction is AttentionFraction); LinearPassTokens counts the tokens the entropy policy read a
	// second time (its linear pass, escalated decoding steps).
	Policy           string   `json:"policy,omitempty"`
	Budget           *float64 `json:"budget,omitempty"`
	LinearPassTokens int64    `json:"linear_pass_tokens,omitempty"`
	// TaskHash is lm-eval's task hash of the logged samples (SHA-256 of every record's doc, prompt and target
	// hashes, concatenated in document order), when samples were logged.
	TaskHash string `json:"task_hash,omitempty"`
	// Data is the parquet file (or pattern) read, as an absolute path; Notes are the task's caveats
	// (approximate data, ...).
	Data  string   `json:"data,omitempty"`
	Notes []string `json:"notes,omitempty"`
	// DataHash identifies the content of Data's files when the result was computed ("sha256:..."; filled by
	// the caller, evals/evalrun): a rerun keeps the result only while it is unchanged.
	DataHash string `json:"data_hash,omitempty"`
}

// Summary renders the result on one line: the metrics (sorted by name, with ± stderr when known), the
// document and request counts, truncations, the attention fraction and the time.
func (r *Result) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:", r.Task)
	names := make([]string, 0, len(r.Metrics))
	for k := range r.Metrics {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		m := r.Metrics[k]
		fmt.Fprintf(&b, " %s=%.4f", k, m.Value)
		if !math.IsNaN(m.Stderr) {
			fmt.Fprintf(&b, "±%.4f", m.Stderr)
		}
	}
	fmt.Fprintf(&b, " (docs %d/%d", r.Docs, r.TotalDocs)
	if r.Dropped > 0 {
		fmt.Fprintf(&b, ", dropped %d", r.Dropped)
	}
	fmt.Fprintf(&b, ", requests %d, truncated %d, attention %.2f%%, %.1fs)", r.Requests, r.Truncated, 100*r.AttentionFraction, r.Seconds)
	return b.String()
}
