package infer

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestPrefillAllLinearExact: a prompt read entirely in linear mode runs the prefill graph without the
// attention readout (Span.AllLinear); its logits and its whole state — KV caches included, so later
// tokens can attend to the prompt — equal the general prefill graph's with the same all-linear modes.
func TestPrefillAllLinearExact(t *testing.T) {
	for _, v := range []oryx.Variant{oryx.OryxTG, oryx.OryxTM} {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
			tokens := oryxtest.RandomTokens(7, 2, 9, m.Config.Vocab)
			prompts := [][]int32{tokens[0][:5], tokens[1]}
			modes := [][]oryx.Mode{make([]oryx.Mode, 5), make([]oryx.Mode, 9)} // all Linear (0)
			e, err := NewEngine(backend.MustGet(), ctx, m, 2, 20)
			require.NoError(t, err)
			require.NotNil(t, e.prefillLinear)
			_, err = e.Prefill(prompts, modes)
			require.NoError(t, err)
			fast, fastState := e.LastLogits(), copyState(e.state)

			general := e.prefillLinear
			e.prefillLinear = nil // force the general graph
			_, err = e.Prefill(prompts, modes)
			e.prefillLinear = general
			require.NoError(t, err)
			require.Equal(t, e.LastLogits(), fast)
			require.Equal(t, copyState(e.state), fastState)
		})
	}
}

// TestPrefillBytesLinearInPrompt: the prefill estimate grows linearly with the prompt once the attention
// logits are bounded (the engine's default bound), not with its square: in one graph up to
// prefillOneShotMax tokens (query blocks), in segments beyond (the KV cache grows, a segment's work does not);
// unbounded (attnMem 0) the one-graph form is the dense [B, H, T, T] one. A 40,000-token prompt of the tiny
// preset needs well under 1 GiB (the int64 [T, T] mask it once built was 12.8 GB).
func TestPrefillBytesLinearInPrompt(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	at := func(n int, mem int64) int64 { return PrefillBytes(cfg, 1, n, n, 4, mem) }
	const bound = 1 << 18 // a bound the dense form of 256 tokens exceeds: query blocks
	require.InDelta(t, 2, float64(at(prefillOneShotMax, bound)-bound)/float64(at(prefillOneShotMax/2, bound)-bound), 0.01)
	long, longer := at(40000, PrefillAttentionMemBytes), at(80000, PrefillAttentionMemBytes)
	require.Less(t, long, int64(1<<30))
	perToken, _ := oryx.StateMemory(cfg, 4)
	require.InDelta(t, float64(40000*perToken), float64(longer-long), float64(PrefillAttentionMemBytes),
		"40,000 more tokens cost their KV cache, within one attention bound")
	require.Greater(t, at(prefillOneShotMax, 0), int64(4*cfg.Heads*prefillOneShotMax)*prefillOneShotMax*4, "dense: 4 arrays of [1, H, T, T] float32")
	require.Equal(t, int64(-1), PrefillBytes(cfg, 1<<30, 1<<24, 1<<24, 4, 0), "overflow")
}

// TestPrefillRefusedBeforeWork: a prefill whose estimate exceeds the machine is refused by Engine.Prefill
// before any graph is built, with the estimate and the row and token counts in the message.
func TestPrefillRefusedBeforeWork(t *testing.T) {
	cfg := oryxtest.Config(oryx.OryxTG)
	err := CheckPrefillMemory(cfg, 1<<20, 1<<24, 1<<24, 0)
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "the prefill of 1048576 row(s) of 16777216 tokens"), err.Error())
}
