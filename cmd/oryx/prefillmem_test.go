package main

import (
	"fmt"
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
// [T, T] mask (12.8 GB) and died with a fatal out-of-memory error. Now a prompt that long is read in
// segments (oryx/infer/prefillsegments.go) without the attention readout: it runs in a 4 GiB address space, on
// XLA too (where the one-graph prefill of 40,000 tokens compiled for more than two minutes).
func TestGenerateLongPromptLinearBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a 40,000-token prefill (seconds)")
	}
	res := clitest.RunUnderMemoryLimit(t, 4<<20, "generate", "--checkpoint", tinyCheckpoint(t), "--prompt-ids", longPromptIDs(),
		"--schedule", "linear", "--max-tokens", "2")
	res.Check(t, 0, "prefill", "for 40000 prompt tokens")
}

// TestGenerateLongPromptAttentionBounded: a long prompt read in attention mode as one graph kept every query
// chunk's buffers on the pure-Go backend, far above the estimate: 40,000 tokens of the tiny Oryx-TG peaked near
// 10 GB resident, 16,000 at 4.0 GB. In segments (the attention reading the cache rows filled so far) 16,000 tokens
// peak at 0.84 GB and 40,000 at 2.45 GB (2026-12-05). The campaign's exact input, 40,000 tokens, runs in a 4 GiB
// address space on XLA (23 s). On pure Go, where that takes 3 minutes, the test reads 8,000 tokens under a 3 GiB
// RLIMIT_AS (~1.5 GiB of it is the process's address-space baseline): the segments pass in ~10 s at 0.41 GB
// resident (they pass at 2 GiB too), the one graph dies with a fatal out-of-memory error after ~5 s (measured
// with the binary of 6c65cfc, 2026-12-05). The pure-Go case was 16,000 tokens under 4 GiB (34 s) until a loaded
// CI machine ran it past the CLI harness's 2-minute limit.
func TestGenerateLongPromptAttentionBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a long attention prefill (10 s on pure Go, 23 s on XLA CPU)")
	}
	n, limitKiB := 40000, int64(4<<20)
	if backend.IsPureGo(backend.MustGet()) {
		n, limitKiB = 8000, 3<<20
	}
	ids := strings.TrimSuffix(strings.Repeat("1,", n), ",")
	res := clitest.RunUnderMemoryLimit(t, limitKiB, "generate", "--checkpoint", tinyCheckpoint(t), "--prompt-ids", ids,
		"--schedule", "attention", "--max-tokens", "2")
	res.Check(t, 0, "prefill", fmt.Sprintf("for %d prompt tokens", n))
}

// tinyCheckpoint is a fresh tiny Oryx-TG checkpoint under t.TempDir().
func tinyCheckpoint(t *testing.T) string {
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))
	return ckpt
}

// TestGenerateLongPromptRefused: the same prompt on a model whose KV cache for it exceeds the process's memory
// (d_k = d_v = 4,096: 128 KiB per token, ~5 GiB for 40,000, against a 4 GiB RLIMIT_AS) is refused before any
// work, naming --prompt-ids, its length and the estimate against the limit. (A prompt's prefill work is one
// segment's whatever its length; what grows with it is the cache.)
func TestGenerateLongPromptRefused(t *testing.T) {
	ckpt := filepath.Join(t.TempDir(), "wide")
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	cfg.KeyDim, cfg.ValueDim = 4096, 4096
	require.NoError(t, cfg.Validate())
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 1))
	res := clitest.RunUnderMemoryLimit(t, 4<<20, "generate", "--checkpoint", ckpt, "--prompt-ids", longPromptIDs(),
		"--max-tokens", "2")
	res.Check(t, 1, "--prompt-ids: the longest prompt has 40000 tokens", "the decode state of 1 row(s)", "RLIMIT_AS")
}
