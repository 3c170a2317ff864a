package lmeval

import "github.com/oryx-go/oryx/evals/harness"

// Task names, in the order of the GDN table's columns.
const (
	WikiText     = "wikitext"
	Lambada      = "lambada_openai"
	PIQA         = "piqa"
	HellaSwag    = "hellaswag"
	WinoGrande   = "winogrande"
	ARCEasy      = "arc_easy"
	ARCChallenge = "arc_challenge"
	SocialIQA    = "social_iqa"
	BoolQ        = "boolq"
)

// Group is the harness group name of all tasks of this package.
const Group = "lm"

// Names lists the tasks of this package in the GDN table's column order.
var Names = []string{WikiText, Lambada, PIQA, HellaSwag, WinoGrande, ARCEasy, ARCChallenge, SocialIQA, BoolQ}

// DefaultPaths are the data files, relative to harness.Config.DataRoot, one folder per Hugging Face dataset
// (HF dataset / config / split in the comment).
var DefaultPaths = map[string]string{
	WikiText:     "wikitext_document_level/wikitext-2-raw-v1-test.parquet", // EleutherAI/wikitext_document_level, wikitext-2-raw-v1, test
	Lambada:      "lambada_openai/test.parquet",                            // EleutherAI/lambada_openai, default, test
	PIQA:         "piqa/validation.parquet",                                // baber/piqa, validation
	HellaSwag:    "hellaswag/validation.parquet",                           // Rowan/hellaswag, validation
	WinoGrande:   "winogrande/winogrande_xl-validation.parquet",            // allenai/winogrande, winogrande_xl, validation
	ARCEasy:      "arc_easy/test.parquet",                                  // allenai/ai2_arc, ARC-Easy, test
	ARCChallenge: "arc_challenge/test.parquet",                             // allenai/ai2_arc, ARC-Challenge, test
	SocialIQA:    "social_iqa/validation.parquet",                          // lighteval/siqa, validation
	BoolQ:        "boolq/validation.parquet",                               // aps/super_glue, boolq, validation
}

// Versions are lm-eval's task versions (metadata.version of the task yamls of lm-eval 0.4.2) whose request
// rules the tasks here follow; the results file reports them under "versions".
var Versions = map[string]float64{
	WikiText: 2, Lambada: 1, PIQA: 1, HellaSwag: 1, WinoGrande: 1, ARCEasy: 1, ARCChallenge: 1, SocialIQA: 0, BoolQ: 2,
}

// New returns the task called name for cfg (nil for a name that is not one of Names).
func New(name string, cfg harness.Config) harness.Task {
	path := cfg.Path(name, DefaultPaths[name])
	_, overridden := cfg.Paths[name]
	switch name {
	case WikiText:
		return &wikiTextTask{path: path}
	case Lambada:
		return &lambadaTask{path: path}
	case PIQA:
		return newPIQA(path)
	case HellaSwag:
		return newHellaSwag(path, !overridden)
	case WinoGrande:
		return newWinoGrande(path)
	case ARCEasy:
		return newARC(ARCEasy, path)
	case ARCChallenge:
		return newARC(ARCChallenge, path)
	case SocialIQA:
		return newSocialIQA(path)
	case BoolQ:
		return newBoolQ(path, !overridden)
	}
	return nil
}

func init() {
	for _, n := range Names {
		harness.Register(n, func(cfg harness.Config) (harness.Task, error) { return New(n, cfg), nil })
		harness.RegisterConfig(n, configs[n])
	}
	harness.RegisterGroup(Group, Names...)
}
