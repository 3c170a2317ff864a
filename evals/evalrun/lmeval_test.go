package evalrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/lmeval"
	"github.com/oryx-go/oryx/evals/lmeval/lmevaltest"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

// The Hugging Face column layouts of the LM tasks' datasets (the columns lm-eval sees, in their order).
type (
	fxPIQA    = lmevaltest.PIQA
	fxHella   = lmevaltest.HellaSwag
	fxWino    = lmevaltest.WinoGrande
	fxChoices = lmevaltest.ARCChoices
	fxARC     = lmevaltest.ARC
	fxSIQA    = lmevaltest.SocialIQA
	fxBoolQ   = lmevaltest.BoolQ
	fxText    = lmevaltest.Text
	fxPage    = lmevaltest.Page
)

// writeLMFixtures writes small parquet files of the nine LM tasks under root (lmeval.DefaultPaths), with
// the text features the hashes must survive: non-ASCII, quotes, backslashes, tabs, U+2028, bracketed
// HellaSwag artefacts.
func writeLMFixtures(t *testing.T, root string) map[string]string {
	files := map[string]string{}
	write := func(task string, rows any) {
		p := filepath.Join(root, lmeval.DefaultPaths[task])
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		var err error
		switch r := rows.(type) {
		case []fxPIQA:
			err = hfparquet.WriteFile(p, r)
		case []fxHella:
			err = hfparquet.WriteFile(p, r)
		case []fxWino:
			err = hfparquet.WriteFile(p, r)
		case []fxARC:
			err = hfparquet.WriteFile(p, r)
		case []fxSIQA:
			err = hfparquet.WriteFile(p, r)
		case []fxBoolQ:
			err = hfparquet.WriteFile(p, r)
		case []fxText:
			err = hfparquet.WriteFile(p, r)
		case []fxPage:
			err = hfparquet.WriteFile(p, r)
		}
		require.NoError(t, err)
		files[task] = p
	}
	piqa := func(goal, s1, s2 string, label int64) fxPIQA {
		return fxPIQA{Goal: goal, Sol1: s1, Sol2: s2, Label: label}
	}
	write(lmeval.PIQA, []fxPIQA{piqa("How do I boil water?", "Heat it in a pot.", "Freeze it.", 0),
		piqa("Open a jar \"quickly\"", "Twist the lid\\cap", "Hit it — hard", 1), piqa("Clean é glass", "Use\tcloth", "Use sand\u2028", 0),
		piqa("Extra", "a", "b", 1)})
	hella := func(ind int32, act, a, b, ctx string, endings []string, label string) fxHella {
		return fxHella{Ind: ind, ActivityLabel: act, CtxA: a, CtxB: b, Ctx: ctx, Endings: endings, Label: label}
	}
	write(lmeval.HellaSwag, []fxHella{hella(0, "Removing ice", "A man is", "standing outside [title] with a shovel.", "x",
		[]string{"he digs [header] the snow.", "  he  flies.", "he sings.", "he runs [step]."}, "0"),
		hella(1, "Baking", "She mixes", "FLOUR and sugar.", "y", []string{"she bakes.", "she swims.", "she reads.", "she sleeps."}, "2"),
		hella(2, "Running", "They run", "fast.", "z", []string{"a", "b", "c", "d"}, "3")})
	wino := func(s, o1, o2, a string) fxWino { return fxWino{Sentence: s, Option1: o1, Option2: o2, Answer: a} }
	write(lmeval.WinoGrande, []fxWino{wino("The trophy doesn't fit in the suitcase because the _ is too big.", "trophy", "suitcase", "1"),
		wino("Sarah lent Maria money because _ was generous.", "Sarah", "Maria", "1"), wino("He _ it.", "ate", "saw", "2")})
	arcRow := func(id, q string, text, labels []string, key string) fxARC {
		return fxARC{ID: id, Question: q, Choices: fxChoices{Text: text, Label: labels}, AnswerKey: key}
	}
	arc := []fxARC{arcRow("Mercury_1", "Which is a gas?", []string{"ice", "steam", "rock"}, []string{"A", "B", "C"}, "B"),
		arcRow("Mercury_2", "2 + 2 = ?", []string{"3", "4", "5", "22"}, []string{"1", "2", "3", "4"}, "2"),
		arcRow("Mercury_3", "Pick \"the\" one", []string{"x", "y"}, []string{"A", "B"}, "A")}
	write(lmeval.ARCEasy, arc)
	write(lmeval.ARCChallenge, append(arc[1:], arc[0]))
	siqa := func(c, q, a, b, cc, l string) fxSIQA {
		return fxSIQA{Context: c, Question: q, AnswerA: a, AnswerB: b, AnswerC: cc, Label: l}
	}
	write(lmeval.SocialIQA, []fxSIQA{siqa("Tracy walked in.", "What did Tracy do?", "walk", "run", "sit", "1"),
		siqa("Kai ate.", "Why?", "hungry", "sad", "late", "3"), siqa("A", "B", "c", "d", "e", "2")})
	boolq := func(q, p string, idx int32, l int64) fxBoolQ {
		return fxBoolQ{Question: q, Passage: p, Idx: idx, Label: l}
	}
	write(lmeval.BoolQ, []fxBoolQ{boolq("is the sky blue", "The sky -- blue", 0, 1), boolq("is ice hot", "Ice is cold.", 1, 0),
		boolq("q", "p", 2, 1)})
	write(lmeval.Lambada, []fxText{{Text: "the cat sat on the mat"}, {Text: "she said \"hello\" to the dog"},
		{Text: "über café naïve"}, {Text: "x y"}})
	write(lmeval.WikiText, []fxPage{{Page: " = Title = \n Hello world @-@ wide . It 's \" quoted \" ( here ) .\n"},
		{Page: " = = Sub = = \n More text , here ; there : 5 @,@ 000 .\n"}, {Page: " = Third = \n 3 @.@ 5 ° C and N items .\n"}})
	return files
}

// TestLMEvalReadsTheFiles: lm-eval 0.4.13's own code on what `go run ./evals --log-samples` writes (needs
// `make py-tools`; testdata/lmeval_files.py does the Python side):
//   - the Zeno uploader's loaders find results_<date>.json and samples_<task>_<date>.jsonl in
//     <out dir>/<model_name_sanitized>/ and every field they read is there; W&B's sample table gets every
//     metric of the metric list, NIAH's per-length ones included;
//   - EvaluationTracker saves the results with the samples: its task hashes equal the project's, and the
//     sample lines it rewrites equal the project's byte for byte;
//   - lm-eval itself, on the same parquet files and limit, makes the same documents, arguments and targets,
//     with the same doc_hash, prompt_hash and target_hash.
func TestLMEvalReadsTheFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: lm-eval's evaluator on nine tasks takes tens of seconds")
	}
	python, dir := testutil.PyTools(t, "lm_eval.loggers", "datasets", "pandas", "yaml")
	root := t.TempDir()
	files := writeLMFixtures(t, root)
	const limit = 3
	outDir := filepath.Join(t.TempDir(), "results")
	out := filepath.Join(outDir, "run.json")
	start := time.Now()
	_, err := Run(context.Background(), Options{Checkpoint: tinyCheckpoint(t, oryx.OryxTG), Tasks: "lm,niah_single_1",
		Harness: harness.Config{DataRoot: root, Params: map[string]string{"niah.lengths": "1024", "niah.samples": "1",
			"niah.words": "embedded"}},
		Limit: limit, Batch: 4, Bootstrap: -1, LogSamples: true, Out: out, ModelName: "org/tiny:oryx-tg", Log: testWriter{t},
		MaxLength: 1024, LMMaxLength: 256})
	require.NoError(t, err)
	t.Logf("go run ./evals: %.1fs", time.Since(start).Seconds())
	modelDir := LMEvalDir(out, "org/tiny:oryx-tg")
	require.Equal(t, "org__tiny__oryx-tg", filepath.Base(modelDir)) // lm-eval's sanitize_model_name

	data := map[string]any{}
	for task, f := range files {
		data[task] = map[string]any{"file": f, "limit": limit}
	}
	dataJSON := filepath.Join(t.TempDir(), "data.json")
	b, err := json.Marshal(data)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dataJSON, b, 0o644))
	script, err := filepath.Abs(filepath.Join("testdata", "lmeval_files.py"))
	require.NoError(t, err)
	reportPath := filepath.Join(t.TempDir(), "report.json")
	src, err := os.ReadFile(script)
	require.NoError(t, err)
	start = time.Now()
	testutil.RunPython(t, python, dir, string(src), outDir, dataJSON, reportPath)
	t.Logf("lm-eval's code on the files: %.1fs", time.Since(start).Seconds())
	var report struct {
		ModelDir string `json:"model_dir"`
		Zeno     struct {
			ResultsFile string `json:"results_file"`
			Tasks       map[string]struct {
				IDs         []any    `json:"ids"`
				Metrics     []string `json:"metrics"`
				OutputType  string   `json:"output_type"`
				DatasetPath string   `json:"dataset_path"`
				DataFile    string   `json:"data_file"`
			} `json:"tasks"`
		} `json:"zeno"`
		Tracker struct {
			TaskHashes   map[string]string   `json:"task_hashes"`
			Lines        map[string][]string `json:"lines"`
			WandbColumns map[string][]string `json:"wandb_columns"`
		} `json:"tracker"`
		LMEval map[string]map[string]struct {
			Doc        any      `json:"doc"`
			Target     string   `json:"target"`
			Arguments  [][]any  `json:"arguments"`
			DocHash    string   `json:"doc_hash"`
			PromptHash string   `json:"prompt_hash"`
			TargetHash string   `json:"target_hash"`
			Metrics    []string `json:"metrics"`
		} `json:"lm_eval"`
	}
	rb, err := os.ReadFile(reportPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(rb, &report))

	var ours map[string]any
	results, err := filepath.Glob(filepath.Join(modelDir, "results_*.json"))
	require.NoError(t, err)
	require.Len(t, results, 1)
	require.Equal(t, filepath.Base(results[0]), report.Zeno.ResultsFile)
	rb, err = os.ReadFile(results[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(rb, &ours))
	ourHashes := ours["task_hashes"].(map[string]any)
	tasks := append(append([]string{}, lmeval.Names...), "niah_single_1")
	require.Len(t, report.Zeno.Tasks, len(tasks))
	for _, task := range tasks {
		z := report.Zeno.Tasks[task]
		n := limit
		if task == "niah_single_1" {
			n = 1
		}
		require.Len(t, z.IDs, n, task)
		require.NotEmpty(t, z.Metrics, task)
		require.NotEmpty(t, report.Tracker.WandbColumns[task], "%s: W&B's sample table", task)
		require.Equal(t, ourHashes[task], report.Tracker.TaskHashes[task], "%s: EvaluationTracker's task hash", task)
		samples, err := filepath.Glob(filepath.Join(modelDir, "samples_"+task+"_*.jsonl"))
		require.NoError(t, err)
		require.Len(t, samples, 1, task)
		sb, err := os.ReadFile(samples[0])
		require.NoError(t, err)
		lines := strings.Split(strings.TrimRight(string(sb), "\n"), "\n")
		require.Equal(t, lines, report.Tracker.Lines[task], "%s: the lines EvaluationTracker writes for the records", task)
		if task == "niah_single_1" {
			require.Contains(t, report.Tracker.WandbColumns[task], "score@1024")
			continue
		}
		require.Equal(t, harnessConfigPath(task), z.DatasetPath, task)
		require.Equal(t, files[task], z.DataFile, task)
		theirs := report.LMEval[task]
		require.Len(t, theirs, limit, task)
		for _, line := range lines {
			var rec map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &rec))
			id := strings.TrimSuffix(strings.TrimSuffix(jsonText(t, rec["doc_id"]), ".0"), "")
			th, ok := theirs[id]
			require.True(t, ok, "%s doc %s: not among lm-eval's", task, id)
			require.Equal(t, th.Doc, rec["doc"], "%s doc %s: doc", task, id)
			require.Equal(t, th.Target, rec["target"], "%s doc %s: target", task, id)
			var args [][]any
			for i := range len(th.Arguments) {
				a := rec["arguments"].(map[string]any)["gen_args_"+jsonText(t, i)].(map[string]any)
				var row []any
				for j := range len(a) {
					row = append(row, a["arg_"+jsonText(t, j)])
				}
				args = append(args, row)
			}
			require.Equal(t, th.Arguments, args, "%s doc %s: arguments", task, id)
			require.Equal(t, th.DocHash, rec["doc_hash"], "%s doc %s: doc_hash", task, id)
			require.Equal(t, th.PromptHash, rec["prompt_hash"], "%s doc %s: prompt_hash", task, id)
			require.Equal(t, th.TargetHash, rec["target_hash"], "%s doc %s: target_hash", task, id)
			require.Equal(t, any(th.Metrics), anySlice(rec["metrics"]), "%s doc %s: metrics", task, id)
		}
	}
}

func harnessConfigPath(task string) any {
	v, _ := harness.ConfigOf(task).Get("dataset_path")
	return v
}

func jsonText(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func anySlice(v any) any {
	xs, _ := v.([]any)
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.(string)
	}
	return out
}
