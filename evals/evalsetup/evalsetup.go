// Package evalsetup is what the evaluation commands (`evals`, `evals frontier`, `evals mqar`, `evals switch`)
// share in setting up a run from their flags: the task families registered with the harness, the tokenizer
// a checkpoint is read with, the data root and what to say when it is missing, and the flag that sets each
// task group's max_length.
package evalsetup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	// Task families register themselves with the harness.
	_ "github.com/oryx-go/oryx/evals/lmeval"
	_ "github.com/oryx-go/oryx/evals/niahtask"
	_ "github.com/oryx-go/oryx/evals/recall"
	"github.com/oryx-go/oryx/internal/rundir"
)

// DefaultLMMaxLength is lm-eval's max_length for the mamba_ssm wrapper, the LM tasks' default.
const DefaultLMMaxLength = 2048

// LoadTokenizer loads spec, or when it is "" the tokenizer of the run that wrote checkpoint.
func LoadTokenizer(spec, checkpoint string) (tokenizers.Tokenizer, error) {
	if spec == "" {
		var err error
		if spec, err = rundir.Tokenizer(checkpoint); err != nil {
			return nil, fmt.Errorf("--checkpoint: %w", err)
		}
	}
	tok, err := tokenizers.Load(spec)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	return tok, nil
}

// TrainedOn is the training data spec and sequence length recorded in the run.json beside checkpoint
// (rundir.TrainedOn; ok false when there is none): what the probes and the frontier size their defaults by.
func TrainedOn(checkpoint string) (data string, seqLen int, ok bool) {
	return rundir.TrainedOn(checkpoint)
}

// DataHint is how a user points the evaluation at its data.
const DataHint = "set --data-root DIR or ORYX_DATA=DIR (the folder of the HF-layout parquet sets, e.g. shared/data/hf), or --data-path task=FILE"

// DataRootDesc says where cfg's data root came from (source: "flag", "env", "walk-up"; harness.ResolveDataRoot),
// for error messages.
func DataRootDesc(cfg harness.Config, source string) string {
	switch source {
	case "flag":
		return fmt.Sprintf("%q (from --data-root)", cfg.DataRoot)
	case "env":
		return fmt.Sprintf("%q (from %s)", cfg.DataRoot, harness.DataRootEnv)
	case "walk-up":
		return fmt.Sprintf("%q (found walking up from the working directory)", cfg.DataRoot)
	}
	if cfg.DataRoot != "" {
		return fmt.Sprintf("%q", cfg.DataRoot)
	}
	return "not set (no shared/data/hf found walking up from the working directory)"
}

// CheckDataRoot refuses a run whose tasks read the data root when there is none, or when it is not a
// directory.
func CheckDataRoot(cfg harness.Config, source string, tasks []harness.Task) error {
	needs := false
	for _, t := range tasks {
		if _, ok := cfg.Paths[t.Name()]; !ok {
			needs = true
		}
	}
	if !needs {
		return nil
	}
	if cfg.DataRoot == "" {
		return fmt.Errorf("no data root: %s; %s", DataRootDesc(cfg, source), DataHint)
	}
	if st, err := os.Stat(cfg.DataRoot); err != nil || !st.IsDir() {
		return fmt.Errorf("data root %s is not a directory; %s", DataRootDesc(cfg, source), DataHint)
	}
	return nil
}

// IsMissingData tells whether err comes from a data file that is not there.
func IsMissingData(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "matches no files")
}

// NameLengthFlag adds to a request-too-long error the flag that sets the task's max_length (--lm-max-length
// for the LM group, --max-length for the others) and its value.
func NameLengthFlag(t harness.Task, hopts harness.Options, err error) error {
	if !errors.Is(err, harness.ErrTooLong) {
		return err
	}
	g := harness.GroupOf(t.Name())
	flag := "--max-length"
	if g == "lm" {
		flag = "--lm-max-length"
	}
	return fmt.Errorf("%w (%s is %d: raise it)", err, flag, hopts.GroupMaxLength[g])
}
