package oryx_test

import (
	"fmt"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// The equivalence tests (docs/model.md §5), for every variant with random weights in float64:
//   (a) the parallel forward with any schedule == Step token by token with that schedule;
//   (b) Prefill then Steps == the parallel forward;
//   (c) switching modes back and forth at arbitrary positions, inside chunks too (the schedules below);
//   (d) the caches and the linear state after a prefix do not depend on the schedule used on it;
//   (e) all-attention Oryx == the Transformer and all-linear Oryx == its linear baseline, same weights.

func TestStepMatchesParallel(t *testing.T) {
	for _, v := range oryxtest.SweepVariants() {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
			checkStepMatchesParallel(t, m, ctx)
		})
	}
}

// checkStepMatchesParallel: Step token by token (switching modes) gives the parallel forward's logits.
func checkStepMatchesParallel(t *testing.T, m *oryx.Model, ctx *context.Context) {
	const b, n, capacity = 2, 13, 16
	tokens := oryxtest.RandomTokens(1, b, n, m.Config.Vocab)
	modes := oryxtest.ModesFor(m, oryxtest.SwitchingModes(2, b, n))
	want := oryxtest.ParallelLogits(t, m, ctx, tokens, modes)

	e, err := infer.NewEngine(backend.MustGet(), ctx, m, b, capacity)
	require.NoError(t, err)
	for i := range n {
		col := []int32{tokens[0][i], tokens[1][i]}
		var md []oryx.Mode
		if modes != nil {
			md = []oryx.Mode{modes[0][i], modes[1][i]}
		}
		_, err := e.Step(col, md)
		require.NoError(t, err)
		for r := range b {
			wantRow := want[r][i*m.Config.Vocab : (i+1)*m.Config.Vocab]
			require.LessOrEqual(t, testutil.RelErr(e.LastLogits()[r], wantRow), 1e-8, "row %d position %d", r, i)
		}
	}
	require.Equal(t, []int{n, n}, e.Positions())
}

// TestPrefillThenStepsMatchesParallel prefills rows of different lengths (5 and 9 tokens) and decodes the
// rest; every logit must equal the parallel forward of that row alone.
func TestPrefillThenStepsMatchesParallel(t *testing.T) {
	for _, v := range oryxtest.SweepVariants() {
		t.Run(string(v), func(t *testing.T) {
			m, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
			checkPrefillThenStepsMatchesParallel(t, m, ctx)
		})
	}
}

// checkPrefillThenStepsMatchesParallel is TestPrefillThenStepsMatchesParallel on model m.
func checkPrefillThenStepsMatchesParallel(t *testing.T, m *oryx.Model, ctx *context.Context) {
	const n, capacity = 14, 20
	lengths := []int{5, 9}
	tokens := oryxtest.RandomTokens(3, 2, n, m.Config.Vocab)
	modes := oryxtest.ModesFor(m, oryxtest.SwitchingModes(4, 2, n))
	e, err := infer.NewEngine(backend.MustGet(), ctx, m, 2, capacity)
	require.NoError(t, err)
	prompts := [][]int32{tokens[0][:lengths[0]], tokens[1][:lengths[1]]}
	var promptModes [][]oryx.Mode
	if modes != nil {
		promptModes = [][]oryx.Mode{modes[0][:lengths[0]], modes[1][:lengths[1]]}
	}
	got := make([][][]float64, 2) // per row, per position from its last prompt token on
	_, err = e.Prefill(prompts, promptModes)
	require.NoError(t, err)
	for r := range 2 {
		got[r] = append(got[r], e.LastLogits()[r])
	}
	for step := 0; step < n-lengths[0]; step++ {
		col := make([]int32, 2)
		md := make([]oryx.Mode, 2)
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
		var rowModes [][]oryx.Mode
		if modes != nil {
			rowModes = [][]oryx.Mode{modes[r]}
		}
		want := oryxtest.ParallelLogits(t, m, ctx, [][]int32{tokens[r]}, rowModes)[0]
		vocab := m.Config.Vocab
		for i, g := range got[r] {
			pos := lengths[r] - 1 + i
			if pos >= n {
				break
			}
			require.LessOrEqual(t, testutil.RelErr(g, want[pos*vocab:(pos+1)*vocab]), 1e-8, "row %d position %d", r, pos)
		}
	}
}

// TestMemoryIndependentOfSchedule: a block's memory (KV cache, linear state, conv inputs) after a prefix does
// not depend on the modes its prefix was read with — every token writes both memories. In a deeper model a
// later block's inputs depend on the earlier blocks' readouts, so the property is per block given its inputs:
// checked on the whole state of a one-layer model and on layer 0 of a two-layer one. Separately, for one
// schedule, the state after Prefill equals the state after token-by-token Steps, in every layer.
func TestMemoryIndependentOfSchedule(t *testing.T) {
	const b, n, capacity = 2, 11, 12
	for _, v := range []oryx.Variant{oryx.OryxTM, oryx.OryxTG} {
		for _, layers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/layers=%d", v, layers), func(t *testing.T) {
				cfg := oryxtest.Config(v)
				cfg.Layers = layers
				m, ctx := oryxtest.NewModel(t, cfg)
				perLayer := (m.StateSize() - 1) / layers
				checked := m.StateSize() // all tensors of a one-layer model ...
				if layers > 1 {
					checked = 1 + perLayer // ... Pos and layer 0 otherwise
				}
				tokens := oryxtest.RandomTokens(5, b, n, m.Config.Vocab)
				e, err := infer.NewEngine(backend.MustGet(), ctx, m, b, capacity)
				require.NoError(t, err)
				schedules := [][][]oryx.Mode{oryxtest.ConstModes(b, n, oryx.Attention), oryxtest.ConstModes(b, n, oryx.Linear), oryxtest.SwitchingModes(6, b, n)}
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
					_, err := e.Step([]int32{tokens[0][i], tokens[1][i]}, []oryx.Mode{modes[0][i], modes[1][i]})
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
		oryx, baseline oryx.Variant
		mode           oryx.Mode
	}{
		{oryx.OryxTG, oryx.Transformer, oryx.Attention}, {oryx.OryxTG, oryx.GDN, oryx.Linear},
		{oryx.OryxTM, oryx.Transformer, oryx.Attention}, {oryx.OryxTM, oryx.Mamba2, oryx.Linear},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s-%s", c.oryx, c.baseline), func(t *testing.T) {
			cfg := oryxtest.Config(c.oryx)
			cfg.TiedEmbeddings = true
			m, ctx := oryxtest.NewModel(t, cfg)
			tokens := oryxtest.RandomTokens(8, b, n, cfg.Vocab)
			got := oryxtest.ParallelLogits(t, m, ctx, tokens, oryxtest.ConstModes(b, n, c.mode))

			baseCfg := cfg
			baseCfg.Variant, baseCfg.LinearMixer = c.baseline, c.baseline.LinearMixer()
			base, err := oryx.New(baseCfg)
			require.NoError(t, err)
			base.DType = dtypes.Float64
			want := oryxtest.ParallelLogits(t, base, ctx.Reuse(), tokens, nil)
			for r := range b {
				require.LessOrEqual(t, testutil.RelErr(got[r], want[r]), 1e-12, "row %d", r)
			}
		})
	}
}

// TestStateMemoryMatchesEngine: StateMemory accounts for every value of the engine's state.
func TestStateMemoryMatchesEngine(t *testing.T) {
	const capacity = 10
	for _, v := range oryx.Variants {
		m, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
		e, err := infer.NewEngine(backend.MustGet(), ctx, m, 1, capacity)
		require.NoError(t, err)
		var values int64
		for _, s := range e.State()[1:] { // without Pos
			values += int64(len(s))
		}
		perToken, fixed := oryx.StateMemory(m.Config, 8)
		require.Equal(t, values*8, perToken*capacity+fixed, "%s", v)
	}
}
