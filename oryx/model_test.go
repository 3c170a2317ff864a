package oryx

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/stretchr/testify/require"
)

// The equivalence tests (docs/model.md §5), for every variant with random weights in float64:
//   (a) the parallel forward with any schedule == Step token by token with that schedule;
//   (b) Prefill then Steps == the parallel forward;
//   (c) switching modes back and forth at arbitrary positions, inside chunks too (the schedules below);
//   (d) the caches and the linear state after a prefix do not depend on the schedule used on it;
//   (e) all-attention Oryx == the Transformer and all-linear Oryx == its linear baseline, same weights.

// testConfig is a tiny architecture whose chunk (4) and conv (4) are much shorter than the test sequences,
// with d_k ≠ d_v and RoPE on, so that layout or position mistakes cannot cancel out.
func testConfig(v Variant) Config {
	return Config{Variant: v, Vocab: 23, DModel: 16, Layers: 2, Heads: 2, KeyDim: 4, ValueDim: 6, MLPHidden: 24,
		ConvWidth: 4, RoPE: true, TiedEmbeddings: v != GDN, Chunk: 4}.WithDefaults()
}

func newTestModel(t testing.TB, cfg Config) (*Model, *context.Context) {
	t.Helper()
	m, err := New(cfg)
	require.NoError(t, err)
	m.DType = dtypes.Float64
	ctx := context.New()
	ctx.SetParam(context.ParamInitialSeed, int64(1234))
	return m, ctx
}

func randomTokens(seed uint64, b, t, vocab int) [][]int32 {
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

// switchingModes alternates modes in runs of 1–5 tokens, so switches fall inside and across chunks.
func switchingModes(seed uint64, b, t int) [][]Mode {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([][]Mode, b)
	for i := range out {
		out[i] = make([]Mode, t)
		m := Mode(r.IntN(2))
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

func constModes(b, t int, m Mode) [][]Mode {
	out := make([][]Mode, b)
	for i := range out {
		out[i] = make([]Mode, t)
		for j := range out[i] {
			out[i][j] = m
		}
	}
	return out
}

func flatInt32[T ~int8 | int32](rows [][]T) []int32 {
	var out []int32
	for _, r := range rows {
		for _, x := range r {
			out = append(out, int32(x))
		}
	}
	return out
}

// parallelLogits runs Model.Logits: [B][T][V] flattened per row to [B][T·V].
func parallelLogits(t testing.TB, m *Model, ctx *context.Context, tokens [][]int32, modes [][]Mode) [][]float64 {
	t.Helper()
	b, n := len(tokens), len(tokens[0])
	exec, err := context.NewExec(backend.MustGet(), ctx, func(ctx *context.Context, tok, md *Node) *Node {
		return m.Logits(ctx, tok, m.modesOrNil(md))
	})
	require.NoError(t, err)
	defer exec.Finalize()
	if modes == nil {
		modes = constModes(b, n, Linear)
	}
	outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(flatInt32(tokens), b, n),
		tensors.FromFlatDataAndDimensions(flatInt32(modes), b, n))
	require.NoError(t, err)
	flat := flatFloat64(outs[0])
	rows := make([][]float64, b)
	for i := range rows {
		rows[i] = flat[i*n*m.Config.Vocab : (i+1)*n*m.Config.Vocab]
	}
	return rows
}

func modesFor(m *Model, modes [][]Mode) [][]Mode {
	if m.Config.Variant.IsMultiMixer() {
		return modes
	}
	return nil
}

func TestStepMatchesParallel(t *testing.T) {
	const b, n, capacity = 2, 13, 16
	for _, v := range sweepVariants() {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := newTestModel(t, testConfig(v))
			tokens := randomTokens(1, b, n, m.Config.Vocab)
			modes := modesFor(m, switchingModes(2, b, n))
			want := parallelLogits(t, m, ctx, tokens, modes)

			e, err := NewEngine(backend.MustGet(), ctx, m, b, capacity)
			require.NoError(t, err)
			for i := range n {
				col := []int32{tokens[0][i], tokens[1][i]}
				var md []Mode
				if modes != nil {
					md = []Mode{modes[0][i], modes[1][i]}
				}
				_, err := e.Step(col, md)
				require.NoError(t, err)
				for r := range b {
					wantRow := want[r][i*m.Config.Vocab : (i+1)*m.Config.Vocab]
					require.LessOrEqual(t, testutil.RelErr(e.LastLogits()[r], wantRow), 1e-8, "row %d position %d", r, i)
				}
			}
			require.Equal(t, []int{n, n}, e.Positions())
		})
	}
}

// TestPrefillThenStepsMatchesParallel prefills rows of different lengths (5 and 9 tokens) and decodes the
// rest; every logit must equal the parallel forward of that row alone.
func TestPrefillThenStepsMatchesParallel(t *testing.T) {
	const n, capacity = 14, 20
	lengths := []int{5, 9}
	for _, v := range sweepVariants() {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := newTestModel(t, testConfig(v))
			tokens := randomTokens(3, 2, n, m.Config.Vocab)
			modes := modesFor(m, switchingModes(4, 2, n))
			e, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
			require.NoError(t, err)
			prompts := [][]int32{tokens[0][:lengths[0]], tokens[1][:lengths[1]]}
			var promptModes [][]Mode
			if modes != nil {
				promptModes = [][]Mode{modes[0][:lengths[0]], modes[1][:lengths[1]]}
			}
			got := make([][][]float64, 2) // per row, per position from its last prompt token on
			_, err = e.Prefill(prompts, promptModes)
			require.NoError(t, err)
			for r := range 2 {
				got[r] = append(got[r], e.LastLogits()[r])
			}
			for step := 0; step < n-lengths[0]; step++ {
				col := make([]int32, 2)
				md := make([]Mode, 2)
				for r := range 2 {
					p := min(lengths[r]+step, n-1) // row 1 runs out first: feed its last token again, checked no further
					col[r] = tokens[r][p]
					if modes != nil {
						md[r] = modes[r][p]
					}
				}
				if modes == nil {
					md = nil
				}
				_, err := e.Step(col, md)
				require.NoError(t, err)
				for r := range 2 {
					got[r] = append(got[r], e.LastLogits()[r])
				}
			}
			for r := range 2 {
				var rowModes [][]Mode
				if modes != nil {
					rowModes = [][]Mode{modes[r]}
				}
				want := parallelLogits(t, m, ctx, [][]int32{tokens[r]}, rowModes)[0]
				vocab := m.Config.Vocab
				for i, g := range got[r] {
					pos := lengths[r] - 1 + i
					if pos >= n {
						break
					}
					require.LessOrEqual(t, testutil.RelErr(g, want[pos*vocab:(pos+1)*vocab]), 1e-8, "row %d position %d", r, pos)
				}
			}
		})
	}
}

// TestMemoryIndependentOfSchedule: a block's memory (KV cache, linear state, conv inputs) after a prefix does
// not depend on the modes its prefix was read with — every token writes both memories. In a deeper model a
// later block's inputs depend on the earlier blocks' readouts, so the property is per block given its inputs:
// checked on the whole state of a one-layer model and on layer 0 of a two-layer one. Separately, for one
// schedule, the state after Prefill equals the state after token-by-token Steps, in every layer.
func TestMemoryIndependentOfSchedule(t *testing.T) {
	const b, n, capacity = 2, 11, 12
	for _, v := range []Variant{OryxTM, OryxTG} {
		for _, layers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/layers=%d", v, layers), func(t *testing.T) {
				cfg := testConfig(v)
				cfg.Layers = layers
				m, ctx := newTestModel(t, cfg)
				perLayer := (m.StateSize() - 1) / layers
				checked := m.StateSize() // all tensors of a one-layer model ...
				if layers > 1 {
					checked = 1 + perLayer // ... Pos and layer 0 otherwise
				}
				tokens := randomTokens(5, b, n, m.Config.Vocab)
				e, err := NewEngine(backend.MustGet(), ctx, m, b, capacity)
				require.NoError(t, err)
				schedules := [][][]Mode{constModes(b, n, Attention), constModes(b, n, Linear), switchingModes(6, b, n)}
				var ref [][]float64
				for i, modes := range schedules {
					_, err := e.Prefill(tokens, modes)
					require.NoError(t, err)
					st := e.State()
					if i == 0 {
						ref = st
						continue
					}
					for j := range checked {
						require.LessOrEqual(t, testutil.RelErr(st[j], ref[j]), 1e-12, "schedule %d, state tensor %d", i, j)
					}
				}
				// Prefill == token by token, for the last schedule, in every layer.
				prefilled := e.State()
				require.NoError(t, e.Reset())
				modes := schedules[2]
				for i := range n {
					_, err := e.Step([]int32{tokens[0][i], tokens[1][i]}, []Mode{modes[0][i], modes[1][i]})
					require.NoError(t, err)
				}
				stepped := e.State()
				for j := range stepped {
					require.LessOrEqual(t, testutil.RelErr(stepped[j], prefilled[j]), 1e-10, "state tensor %d", j)
				}
			})
		}
	}
}

// TestPureModesEqualBaselines: Oryx in all-attention mode is the Transformer, and in all-linear mode its
// linear baseline, given the same weights (the baselines read a subset of Oryx's variables).
func TestPureModesEqualBaselines(t *testing.T) {
	const b, n = 2, 10
	cases := []struct {
		oryx, baseline Variant
		mode           Mode
	}{
		{OryxTG, Transformer, Attention}, {OryxTG, GDN, Linear},
		{OryxTM, Transformer, Attention}, {OryxTM, Mamba2, Linear},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s-%s", c.oryx, c.baseline), func(t *testing.T) {
			cfg := testConfig(c.oryx)
			cfg.TiedEmbeddings = true
			m, ctx := newTestModel(t, cfg)
			tokens := randomTokens(8, b, n, cfg.Vocab)
			got := parallelLogits(t, m, ctx, tokens, constModes(b, n, c.mode))

			baseCfg := cfg
			baseCfg.Variant, baseCfg.LinearMixer = c.baseline, c.baseline.LinearMixer()
			base, err := New(baseCfg)
			require.NoError(t, err)
			base.DType = dtypes.Float64
			want := parallelLogits(t, base, ctx.Reuse(), tokens, nil)
			for r := range b {
				require.LessOrEqual(t, testutil.RelErr(got[r], want[r]), 1e-12, "row %d", r)
			}
		})
	}
}

// TestStateMemoryMatchesEngine: StateMemory accounts for every value of the engine's state.
func TestStateMemoryMatchesEngine(t *testing.T) {
	const capacity = 10
	for _, v := range Variants {
		m, ctx := newTestModel(t, testConfig(v))
		e, err := NewEngine(backend.MustGet(), ctx, m, 1, capacity)
		require.NoError(t, err)
		var values int64
		for _, s := range e.State()[1:] { // without Pos
			values += int64(len(s))
		}
		perToken, fixed := StateMemory(m.Config, 8)
		require.Equal(t, values*8, perToken*capacity+fixed, "%s", v)
	}
}

// sweepVariants is every variant, the multi-mixer ones first, so that a -short run (the XLA suite) keeps
// Oryx-TG and Oryx-TM, whose blocks contain every mixer and both readouts.
func sweepVariants() []Variant {
	return testutil.Sweep([]Variant{OryxTG, OryxTM, Transformer, GDN, Mamba2}, 2)
}
