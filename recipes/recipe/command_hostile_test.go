package recipe

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/oryx-go/oryx/internal/clitest"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	clitest.RunMainIfChild("transformer-tiny", func() { Main("transformer-tiny") })
	os.Exit(m.Run())
}

// TestRecipeCommandHostileInputs runs the campaign's inputs through a real recipe command
// (recipes/transformer-tiny is recipe.Main("transformer-tiny")): exit code 2 (a usage error) with a message
// naming the flag, never a panic, a negative token count or a run that never ends.
func TestRecipeCommandHostileInputs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--out", out, "--steps", "9223372036854775807"}, []string{"steps: 9223372036854775807 × 4096 tokens per step overflows"}},
		{[]string{"--out", out, "--steps", "9223372036854775807", "--plan"}, []string{"overflows the token count"}},
		{[]string{"--out", out, "--tokens", "-5"}, []string{"--tokens must be > 0, got -5"}},
		{[]string{"--out", out, "--seq-len", "2000000000"}, []string{"seq_len: 2000000000"}},
		// The validation set is built whole: 2e9 × 16 sequences ran out of memory.
		{[]string{"--out", out, "--eval-batches", "2000000000"}, []string{"eval_batches: 2000000000 × micro_batch 16 validation sequences, must be ≤ 1048576"}},
	} {
		clitest.Run(t, nil, c.args...).Check(t, 2, c.want...)
	}
	require.NoDirExists(t, out, "a refused run creates nothing")
	// Within the bound but beyond this machine (with --force past the plan; 65,536 sequences of 1M tokens, ~244
	// GiB): refused before it is built.
	if m := guard.HostMemory(); m == 0 || m > 250<<30 {
		t.Skipf("this machine's memory (%s) may hold the validation set", guard.HumanBytes(m))
	}
	clitest.Run(t, nil, "--out", out, "--eval-batches", "4096", "--seq-len", "1000000", "--steps", "2", "--force").
		Check(t, 1, "the validation set (eval_batches × micro_batch = 65536 sequences of 1000000 tokens) needs ~")
	require.NoDirExists(t, out, "a refused run creates nothing")
}

// TestRecipeCommandExitCodes: a mistake in the command line exits 2, a failure of the work (a tokenizer file
// that is not there) 1, -h 0; none of them creates the run directory.
func TestRecipeCommandExitCodes(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "run")
	missing := filepath.Join(tmp, "no-such", "tokenizer.json")
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--out", out, "--bogus"}, 2, []string{"flag provided but not defined: -bogus"}},
		{[]string{"--out", out, "--steps", "ten"}, 2, []string{`invalid value "ten" for flag -steps`}},
		{[]string{"--out", out, "--lr", "fast"}, 2, []string{`invalid value "fast" for flag -lr`}},
		{[]string{"--out", out, "extra"}, 2, []string{`unexpected arguments ["extra"]`}},
		{[]string{"--out", out, "--plan", "--hardware", "tpu-v9"}, 2, []string{`--hardware "tpu-v9": unknown target`}},
		{[]string{"--out", out, "--plan", "--mfu", "1.5"}, 2, []string{"--mfu 1.5: must be in (0, 1]"}},
		{[]string{"--out", out, "--lr-schedule", "sawtooth"}, 2, []string{"sawtooth"}},
		// --devices 0 trained silently on one device (the config's 0 = default).
		{[]string{"--out", out, "--devices", "0"}, 2, []string{"--devices 0: must be ≥ 1"}},
		{[]string{"--out", out, "--devices", "-3"}, 2, []string{"--devices -3: must be ≥ 1"}},
		{[]string{"--out", out, "--tokenizer", missing}, 1, []string{"--tokenizer", missing}},
		{[]string{"-h"}, 0, []string{"Usage: go run ./recipes/transformer-tiny", "-retrain"}},
	} {
		clitest.Run(t, nil, c.args...).Check(t, c.code, c.want...)
	}
	require.NoDirExists(t, out, "a refused run creates nothing")
}

// TestRecipeCommandConcurrentRuns: two training processes started at the same moment on one --out — both
// used to exit 0, leaving a directory that mixed them — give one complete run and one refusal naming the
// directory and the other process.
func TestRecipeCommandConcurrentRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: spawns two training processes")
	}
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"--out", out, "--steps", "30", "--batch", "2", "--seq-len", "32", "--eval-batches", "0"}
	a, aOut := clitest.Start(t, "", nil, args...)
	b, bOut := clitest.Start(t, "", nil, args...)
	ra := clitest.Wait(t, a, aOut, 3*time.Minute)
	rb := clitest.Wait(t, b, bOut, 3*time.Minute)
	if ra.Code != 0 {
		ra, rb = rb, ra
	}
	ra.Check(t, 0, `"steps": 30`)
	// The holder is named from its marker (".oryx.lock": "process N (transformer-tiny …)") when the refused one reads
	// it after the holder wrote it, else "another process": the lock is the directory's, the marker only informs.
	rb.Check(t, 1, "--out: run directory in use: "+out+" is being written by ")
}
