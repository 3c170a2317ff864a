// Package oryxtest holds what tests of the model and of the packages built on it share: the small float64
// models of the exactness tests (parallel forward == token by token, gradients == finite differences) with
// their random tokens and mode schedules, and the tiny random-weight models the packages above oryx test on.
// It imports oryx and the internal test oracles only, so every package at or above oryx can use it in its
// tests; production code never imports it.
package oryxtest

import (
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
)

// Config is a tiny architecture whose chunk (4) and conv (4) are much shorter than the test sequences,
// with d_k ≠ d_v and RoPE on, so that layout or position mistakes cannot cancel out.
func Config(v oryx.Variant) oryx.Config {
	return oryx.Config{Variant: v, Vocab: 23, DModel: 16, Layers: 2, Heads: 2, KeyDim: 4, ValueDim: 6, MLPHidden: 24,
		ConvWidth: 4, RoPE: true, TiedEmbeddings: v != oryx.GDN, Chunk: 4}.WithDefaults()
}

// NewModel builds cfg's model in float64 with a fresh context seeded 1234 (the weights are created on first
// use): the precision the exactness tests compare at.
func NewModel(t testing.TB, cfg oryx.Config) (*oryx.Model, *context.Context) {
	t.Helper()
	m, err := oryx.New(cfg)
	require.NoError(t, err)
	m.DType = dtypes.Float64
	ctx := context.New()
	ctx.SetParam(context.ParamInitialSeed, int64(1234))
	return m, ctx
}

// RandomTokens is b rows of t token ids drawn uniformly from [0, vocab) with seed.
func RandomTokens(seed uint64, b, t, vocab int) [][]int32 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([][]int32, b)
	for i := range out {
		out[i] = make([]int32, t)
		for j := range out[i] {
			out[i][j] = int32(r.IntN(vocab))
		}
	}
	return out
}

// SwitchingModes alternates modes in runs of 1–5 tokens, so switches fall inside and across chunks.
func SwitchingModes(seed uint64, b, t int) [][]oryx.Mode {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([][]oryx.Mode, b)
	for i := range out {
		out[i] = make([]oryx.Mode, t)
		m := oryx.Mode(r.IntN(2))
		for j := 0; j < t; {
			run := 1 + r.IntN(5)
			for ; run > 0 && j < t; run, j = run-1, j+1 {
				out[i][j] = m
			}
			m = 1 - m
		}
	}
	return out
}

// ConstModes is a b × t grid of mode m.
func ConstModes(b, t int, m oryx.Mode) [][]oryx.Mode {
	out := make([][]oryx.Mode, b)
	for i := range out {
		out[i] = make([]oryx.Mode, t)
		for j := range out[i] {
			out[i][j] = m
		}
	}
	return out
}

// FlatInt32 flattens rows (tokens or modes) row-major into int32, the graphs' input layout.
func FlatInt32[T ~int8 | int32](rows [][]T) []int32 {
	var out []int32
	for _, r := range rows {
		for _, x := range r {
			out = append(out, int32(x))
		}
	}
	return out
}

// ParallelLogits runs Model.Logits on tokens with modes (nil: all linear; ignored by single-mixer variants):
// [B][T][V] flattened per row to [B][T·V].
func ParallelLogits(t testing.TB, m *oryx.Model, ctx *context.Context, tokens [][]int32, modes [][]oryx.Mode) [][]float64 {
	t.Helper()
	b, n := len(tokens), len(tokens[0])
	exec, err := context.NewExec(backend.MustGet(), ctx, func(ctx *context.Context, tok, md *Node) *Node {
		return m.Logits(ctx, tok, m.ModesOrNil(md))
	})
	require.NoError(t, err)
	defer exec.Finalize()
	if modes == nil {
		modes = ConstModes(b, n, oryx.Linear)
	}
	outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(FlatInt32(tokens), b, n),
		tensors.FromFlatDataAndDimensions(FlatInt32(modes), b, n))
	require.NoError(t, err)
	flat := tensordata.Float64s(outs[0])
	rows := make([][]float64, b)
	for i := range rows {
		rows[i] = flat[i*n*m.Config.Vocab : (i+1)*n*m.Config.Vocab]
	}
	return rows
}

// ModesFor is modes for multi-mixer models and nil for single-mixer ones (which take no modes).
func ModesFor(m *oryx.Model, modes [][]oryx.Mode) [][]oryx.Mode {
	if m.Config.Variant.IsMultiMixer() {
		return modes
	}
	return nil
}

// SweepVariants is every variant, the multi-mixer ones first, so that a -short run (the XLA suite) keeps
// Oryx-TG and Oryx-TM, whose blocks contain every mixer and both readouts.
func SweepVariants() []oryx.Variant {
	return testutil.Sweep([]oryx.Variant{oryx.OryxTG, oryx.OryxTM, oryx.Transformer, oryx.GDN, oryx.Mamba2}, 2)
}

// Modes builds a row from a compact string like "LLAA".
func Modes(s string) []oryx.Mode {
	row := make([]oryx.Mode, len(s))
	for i, c := range s {
		if c == 'A' {
			row[i] = oryx.Attention
		}
	}
	return row
}

// CountAttention is the number of tokens of row in attention mode.
func CountAttention(row []oryx.Mode) int {
	n := 0
	for _, m := range row {
		if m == oryx.Attention {
			n++
		}
	}
	return n
}

// Case is a named test config.
type Case struct {
	Name   string
	Config oryx.Config
}

// AttentionKeyCases are Oryx-TG test configs (Config) with each attention-key option and both: attention
// reading the L2-normalised key, the projection before the conv, and the normalised projection.
func AttentionKeyCases() []Case {
	with := func(norm, source string) oryx.Config {
		c := Config(oryx.OryxTG)
		c.AttentionKeyNorm, c.AttentionKeySource = norm, source
		return c
	}
	return []Case{
		{"l2", with(oryx.AttentionKeyL2, "")},
		{"projection", with("", oryx.AttentionKeyProjection)},
		{"projection+l2", with(oryx.AttentionKeyL2, oryx.AttentionKeyProjection)},
	}
}
