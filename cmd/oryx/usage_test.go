package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/clitest"
	"github.com/oryx-go/oryx/oryx"
)

// TestGenerateUsageErrorsExit2 runs the exact inputs that exited 1: flag values out of the range the loaded
// checkpoint allows (token ids beyond its vocabulary in --prompt-ids or --stop, a --capacity below the
// prompt plus --max-tokens) are usage errors, exit 2, like every other out-of-range flag; a tokenizer file
// that is not there stays a failure (exit 1).
func TestGenerateUsageErrorsExit2(t *testing.T) {
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))
	missing := filepath.Join(t.TempDir(), "nope.json")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--prompt-ids", "1,999"}, 2, "--prompt-ids (prompt 0): token 999 is outside the model's vocabulary [0, 256)"},
		{[]string{"--prompt-ids", "1,2", "--stop", "999"}, 2, "--stop: token 999 is outside"},
		{[]string{"--prompt-ids", "1,2", "--capacity", "1"}, 2, "--capacity 1 is too small"},
		{[]string{"--prompt-ids", "1,2", "--tokenizer", missing}, 1, "--tokenizer"},
	} {
		args := append([]string{"generate", "--checkpoint", ckpt}, c.args...)
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			clitest.Run(t, nil, args...).Check(t, c.code, c.want)
		})
	}
}
