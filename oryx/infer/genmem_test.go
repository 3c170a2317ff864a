package infer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestGenerationRowBytes spells out the estimate for the 130m Oryx-TG preset at NIAH 8K (a prompt of 8,192
// tokens, cache 8,448, float32): 12 layers, H 6, K 64, V 128, D 768, F 2240, chunk 64, conv width 4.
func TestGenerationRowBytes(t *testing.T) {
	c, err := oryx.Preset("130m", oryx.OryxTG)
	require.NoError(t, err)
	const (
		kv     = 12 * 6 * (64 + 128) * 4                                     // KV-cache bytes per token: 55,296
		fixed  = 12*6*64*128*4 + 12*3*6*(64+128)*4                           // linear states + conv inputs: 2,525,184
		width  = 6*768 + 3*2240 + 4*6*192 + 4*6*128 + 2*6*64 + 2*6*64*128/64 // 21,312 values per token
		t8k    = 8192
		capa   = 8448
		expect = kv*capa + fixed + kv*t8k + 4*t8k*width + 4*3*50304
	)
	require.EqualValues(t, expect, GenerationRowBytes(c, t8k, capa, 4))
	require.EqualValues(t, int64(1_621_605_888), expect) // ≈ 1.51 GiB
	// The default 4 GiB of `evals --gen-mem-mb` holds 2 such rows; 8 GiB holds 5.
	for _, tc := range []struct {
		mib        int64
		max, batch int
	}{{4096, 8, 2}, {8192, 8, 5}, {8192, 4, 4}, {1, 8, 1}, {1 << 20, 8, 8}} {
		b, row := GenerationBatch(c, t8k, capa, tc.max, 4, tc.mib<<20)
		require.Equal(t, tc.batch, b, "%d MiB, at most %d rows", tc.mib, tc.max)
		require.EqualValues(t, expect, row)
	}
	// Without a KV cache (Mamba-2) the capacity costs nothing; without a linear mixer (Transformer) there are
	// no chunk terms.
	m2, _ := oryx.Preset("130m", oryx.Mamba2)
	require.Equal(t, GenerationRowBytes(m2, 100, 100, 4), GenerationRowBytes(m2, 100, 9000, 4))
	tr, _ := oryx.Preset("130m", oryx.Transformer)
	require.EqualValues(t, kv*capa+12*3*6*192*4+kv*t8k+4*t8k*(6*768+3*2240+4*6*192+4*6*128)+4*3*50304,
		GenerationRowBytes(tr, t8k, capa, 4))
}

// TestGenerationBatchBounds: the batch is the largest that fits the budget (at least 1, at most maxBatch),
// non-decreasing in the budget, non-increasing in the prompt length and the capacity.
func TestGenerationBatchBounds(t *testing.T) {
	c, err := oryx.Preset("small", oryx.OryxTG)
	require.NoError(t, err)
	prev := 0
	for mem := int64(1); mem < 1<<32; mem = mem*3/2 + 1 {
		b, row := GenerationBatch(c, 1000, 1200, 64, 4, mem)
		require.GreaterOrEqual(t, b, prev, "budget %d", mem)
		require.True(t, b >= 1 && b <= 64)
		if b > 1 {
			require.LessOrEqual(t, int64(b)*row, mem, "budget %d", mem)
		}
		if b < 64 {
			require.Greater(t, int64(b+1)*row, mem, "budget %d: %d rows would fit", mem, b+1)
		}
		prev = b
	}
	require.Equal(t, 64, prev)
	const mem = 256 << 20
	last := 1 << 30
	for _, tt := range []int{64, 512, 4096, 32768} {
		b, _ := GenerationBatch(c, tt, tt+128, 1<<20, 4, mem)
		require.LessOrEqual(t, b, last, "t %d", tt)
		last = b
		b2, _ := GenerationBatch(c, tt, 4*tt, 1<<20, 4, mem)
		require.LessOrEqual(t, b2, b, "capacity %d", 4*tt)
	}
	require.Panics(t, func() { GenerationBatch(c, 0, 10, 8, 4, mem) })
	require.Panics(t, func() { GenerationBatch(c, 20, 10, 8, 4, mem) })
	require.Panics(t, func() { GenerationBatch(c, 5, 10, 0, 4, mem) })
}

// TestEngineFree: after Free the next Prefill gives what a fresh engine gives, a Step before it is an error
// (not a crash), and Finalize releases everything.
func TestEngineFree(t *testing.T) {
	e := newTestEngine(t, oryx.OryxTG, 2, 32)
	prompts := [][]int32{{3, 1, 4, 1, 5}, {9, 2, 6}}
	modes := [][]oryx.Mode{oryxtest.Modes("LLAAL"), oryxtest.Modes("AAL")}
	want, err := e.Prefill(prompts, modes)
	require.NoError(t, err)
	wantStep, err := e.Step([]int32{7, 8}, []oryx.Mode{oryx.Attention, oryx.Linear})
	require.NoError(t, err)
	e.Free()
	_, err = e.Step([]int32{7, 8}, []oryx.Mode{oryx.Attention, oryx.Linear})
	require.ErrorContains(t, err, "Reset or Prefill")
	got, err := e.Prefill(prompts, modes)
	require.NoError(t, err)
	require.Equal(t, want, got)
	gotStep, err := e.Step([]int32{7, 8}, []oryx.Mode{oryx.Attention, oryx.Linear})
	require.NoError(t, err)
	require.Equal(t, wantStep, gotStep)
	e.Finalize()
}
