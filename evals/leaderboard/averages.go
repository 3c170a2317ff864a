package leaderboard

import (
	"encoding/json"
	"math"

	"github.com/oryx-go/oryx/evals/harness"
)

// MetricRef names one metric of one task.
type MetricRef struct{ Task, Metric string }

// String renders "task/metric".
func (r MetricRef) String() string { return r.Task + "/" + r.Metric }

// AverageDef defines one of the papers' averages: the mean, in percent, of the member metrics.
type AverageDef struct {
	Name        string
	Group       string // the task group it summarises (the results file reports it under "groups")
	Description string
	Members     []MetricRef
}

// Averages are the averages every ResultsFile carries:
//
//   - gdn_lm_avg, the "Avg." of the GDN paper's language-modelling table: [choice] the mean of its eight
//     accuracy columns, LAMBADA acc, PIQA acc, HellaSwag acc_norm, WinoGrande acc, ARC-e acc, ARC-c
//     acc_norm, SIQA acc, BoolQ acc; the perplexity columns (Wiki, LAMBADA) do not enter.
//   - mamba_lm_avg, the "Average" of the Mamba paper's zero-shot table: the mean of LAMBADA acc, HellaSwag
//     acc_norm, PIQA acc, ARC-e acc, ARC-c acc_norm, WinoGrande acc (Mamba-2's extra OpenBookQA column is
//     not evaluated here: no local data).
//   - recall_avg, the "Avg." of the GDN paper's recall table: the mean contains of SWDE, FDA, SQuAD,
//     TriviaQA, NQ (based_nq_2048) and DROP.
//   - niah_avg: the mean score of S-NIAH-1/2/3 and MK-NIAH-1 over their lengths.
//
// An average is null (with the missing members listed) unless every member metric is present.
var Averages = []AverageDef{
	{Name: "gdn_lm_avg", Group: "lm", Description: "GDN table: mean of the 8 accuracy columns (percent)", Members: []MetricRef{
		{"lambada_openai", "acc"}, {"piqa", "acc"}, {"hellaswag", "acc_norm"}, {"winogrande", "acc"},
		{"arc_easy", "acc"}, {"arc_challenge", "acc_norm"}, {"social_iqa", "acc"}, {"boolq", "acc"}}},
	{Name: "mamba_lm_avg", Group: "lm", Description: "Mamba table: mean of the 6 accuracy columns (percent)", Members: []MetricRef{
		{"lambada_openai", "acc"}, {"hellaswag", "acc_norm"}, {"piqa", "acc"}, {"arc_easy", "acc"},
		{"arc_challenge", "acc_norm"}, {"winogrande", "acc"}}},
	{Name: "recall_avg", Group: "recall", Description: "GDN recall table: mean contains (percent)", Members: []MetricRef{
		{"based_swde", "contains"}, {"based_fda", "contains"}, {"based_squad", "contains"},
		{"based_triviaqa", "contains"}, {"based_nq_2048", "contains"}, {"based_drop", "contains"}}},
	{Name: "niah_avg", Group: "niah", Description: "RULER: mean score of S-NIAH-1/2/3 and MK-NIAH-1 (percent)", Members: []MetricRef{
		{"niah_single_1", "score"}, {"niah_single_2", "score"}, {"niah_single_3", "score"}, {"niah_multikey_1", "score"}}},
}

// Average is one computed average.
type Average struct {
	// Value is the mean in percent; NaN (JSON null) when a member is missing or the run is excluded.
	Value   float64  `json:"-"`
	Members []string `json:"members"`
	Missing []string `json:"missing,omitempty"`
	// Excluded says why a computable average is left out (a partial run, see MergeOptions).
	Excluded string `json:"excluded,omitempty"`
}

type averageJSON struct {
	Value    *float64 `json:"value"`
	Members  []string `json:"members"`
	Missing  []string `json:"missing,omitempty"`
	Excluded string   `json:"excluded,omitempty"`
}

// MarshalJSON writes {"value": v or null, "members": [...], "missing": [...]}.
func (a Average) MarshalJSON() ([]byte, error) {
	j := averageJSON{Members: a.Members, Missing: a.Missing, Excluded: a.Excluded}
	if !math.IsNaN(a.Value) && !math.IsInf(a.Value, 0) {
		j.Value = &a.Value
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *Average) UnmarshalJSON(b []byte) error {
	var j averageJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*a = Average{Value: math.NaN(), Members: j.Members, Missing: j.Missing, Excluded: j.Excluded}
	if j.Value != nil {
		a.Value = *j.Value
	}
	return nil
}

// ComputeAverages computes every average of Averages over the tasks' results.
func ComputeAverages(tasks map[string]*harness.Result) map[string]Average {
	out := map[string]Average{}
	for _, def := range Averages {
		a := Average{}
		sum := 0.0
		for _, m := range def.Members {
			a.Members = append(a.Members, m.String())
			if v, ok := metricValue(tasks, m); ok {
				sum += v
			} else {
				a.Missing = append(a.Missing, m.String())
			}
		}
		a.Value = math.NaN()
		if len(a.Missing) == 0 {
			a.Value = 100 * sum / float64(len(def.Members))
		}
		out[def.Name] = a
	}
	return out
}

func metricValue(tasks map[string]*harness.Result, m MetricRef) (float64, bool) {
	r, ok := tasks[m.Task]
	if !ok || r == nil {
		return 0, false
	}
	v, ok := r.Metrics[m.Metric]
	if !ok || math.IsNaN(v.Value) {
		return 0, false
	}
	return v.Value, true
}
