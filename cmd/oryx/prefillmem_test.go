package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/clitest"
	"github.com/oryx-go/oryx/oryx"
)

// longPromptIDs is the campaign's hostile prompt: 40,000 token ids on the command line.
func longPromptIDs() string { return strings.TrimSuffix(strings.Repeat("1,", 40000), ",") }

// TestGenerateLongPromptLinearBounded: a 40,000-token --prompt-ids read in linear mode once built an int64
// [T, T] mask (12.8 GB) and died with a fatal out-of-memory error. Now the all-linear prefill builds no
// attention readout and no T×T array: it runs in a 4 GiB address space.
func TestGenerateLongPromptLinearBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a 40,000-token prefill (seconds)")
	}
	if !backend.IsPureGo(backend.MustGet()) {
		// What this checks is host memory (no T×T array, no attention readout), the same on every backend. On
		// XLA CPU the 40,000-token prefill graph did not finish within the 2-minute limit (make test-full,
		// 2026-12-04, beside the pure-Go suite): its compile time, not memory; left as a finding, not tested here.
		t.Skip("pure Go only: on XLA CPU the 40,000-token prefill takes longer than the test's 2-minute limit")
	}
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))
	res := clitest.RunUnderMemoryLimit(t, 4<<20, "generate", "--checkpoint", ckpt, "--prompt-ids", longPromptIDs(),
		"--schedule", "linear", "--max-tokens", "2")
	res.Check(t, 0, "prefill", "for 40000 prompt tokens")
}

// TestGenerateLongPromptRefused: the same prompt on a wide model whose prefill activations alone exceed the
// process's memory (a 4 GiB RLIMIT_AS) is refused before any work, naming --prompt-ids, its length and the
// estimate against the limit.
func TestGenerateLongPromptRefused(t *testing.T) {
	ckpt := filepath.Join(t.TempDir(), "wide")
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	cfg.DModel = 8192 // ~200 KiB of activations per prompt token: ~8 GiB for 40,000
	require.NoError(t, cfg.Validate())
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))
	res := clitest.RunUnderMemoryLimit(t, 4<<20, "generate", "--checkpoint", ckpt, "--prompt-ids", longPromptIDs(),
		"--max-tokens", "2")
	res.Check(t, 1, "--prompt-ids: the longest prompt has 40000 tokens", "the prefill of 1 row(s)", "RLIMIT_AS")
}
