package recall

import (
	"strings"

	"github.com/oryx-go/oryx/evals/harness"
)

// Group is the harness group of the GDN paper's recall table: SWDE, FDA, SQuAD, TriviaQA, NQ, DROP.
// [choice] NQ is based_nq_2048, the variant sized for the 2K-token inputs of the GDN runs.
const Group = "recall"

// GroupTasks lists the tasks of Group in the table's column order.
var GroupTasks = []string{"based_swde", "based_fda", "based_squad", "based_triviaqa", "based_nq_2048", "based_drop"}

// specs lists every registered task: name, family, read-twice, and the data file relative to
// harness.Config.DataRoot (<HF repo name under hazyresearch>/validation.parquet).
var specs = []struct {
	name  string
	kind  kind
	twice bool
	rel   string
}{
	{"based_swde", swde, false, "based-swde-v2/validation.parquet"},
	{"based_fda", fda, false, "based-fda/validation.parquet"},
	{"based_squad", squad, false, "based-squad/validation.parquet"},
	{"based_triviaqa", triviaqa, false, "based_triviaqa/validation.parquet"},
	{"based_nq_512", nq, false, "based_nq_512/validation.parquet"},
	{"based_nq_1024", nq, false, "based_nq_1024/validation.parquet"},
	{"based_nq_2048", nq, false, "based_nq_2048/validation.parquet"},
	{"based_drop", drop, false, "based_drop/validation.parquet"},
	{"based_swde_twice", swde, true, "based-swde-v2/validation.parquet"},
	{"based_fda_twice", fda, true, "based-fda/validation.parquet"},
	{"based_squad_twice", squad, true, "based-squad/validation.parquet"},
	{"based_triviaqa_twice", triviaqa, true, "based_triviaqa/validation.parquet"},
	{"based_nq_512_twice", nq, true, "based_nq_512/validation.parquet"},
	{"based_nq_1024_twice", nq, true, "based_nq_1024/validation.parquet"},
	{"based_nq_2048_twice", nq, true, "based_nq_2048/validation.parquet"},
	{"based_drop_twice", drop, true, "based_drop/validation.parquet"},
}

// DefaultPaths maps each task to its data file relative to harness.Config.DataRoot.
var DefaultPaths = func() map[string]string {
	m := map[string]string{}
	for _, s := range specs {
		m[s.name] = s.rel
	}
	return m
}()

// Version is the task version the results file reports for every recall task. [choice] 1.0: the JRT fork's
// task yamls were not available to check their metadata.version.
const Version = 1.0

// New returns the task called name for cfg, with the protocol defaults (nil for an unknown name).
func New(name string, cfg harness.Config) *Task {
	for _, s := range specs {
		if s.name == name {
			return &Task{name: s.name, kind: s.kind, twice: s.twice, path: cfg.Path(s.name, s.rel),
				ContextLength: ContextLength, AnswerLength: AnswerLength, MaxLength: MaxLength, MaxGenTokens: MaxGenTokens}
		}
	}
	return nil
}

func init() {
	for _, s := range specs {
		harness.Register(s.name, func(cfg harness.Config) (harness.Task, error) { return New(s.name, cfg), nil })
		// The JRT fork's tasks: the Hugging Face dataset and the generation settings; the prompts are
		// functions of the fork (prompts.go here), not templates.
		repo, _, _ := strings.Cut(s.rel, "/")
		harness.RegisterConfig(s.name, harness.Doc{{Key: "task", Value: s.name},
			{Key: "dataset_path", Value: "hazyresearch/" + repo}, {Key: "output_type", Value: harness.OutputGenerateUntil},
			{Key: "validation_split", Value: "validation"},
			{Key: "generation_kwargs", Value: harness.Doc{{Key: "until", Value: []string{"\n"}},
				{Key: "max_gen_toks", Value: MaxGenTokens}, {Key: "do_sample", Value: false}}}})
	}
	harness.RegisterGroup(Group, GroupTasks...)
}
