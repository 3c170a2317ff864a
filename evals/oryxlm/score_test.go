package oryxlm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
)

// pairModel returns the tiled and the dense scorer over one random-weight tiny model (vocabulary 320) in
// dtype dt.
func pairModel(t *testing.T, v oryx.Variant, dt dtypes.DType, opts Options) (tiled, dense *Model) {
	t.Helper()
	cfg, err := oryx.Preset("tiny", v)
	require.NoError(t, err)
	cfg.Vocab = 320
	m, err := oryx.New(cfg)
	require.NoError(t, err)
	m.DType = dt
	ctx := context.New()
	ctx.SetParam(context.ParamInitialSeed, int64(5))
	tiled, err = New(m, ctx, tokenizers.NewByteTokenizer(), opts)
	require.NoError(t, err)
	opts.DenseScoring = true
	dense, err = New(m, ctx, tokenizers.NewByteTokenizer(), opts)
	require.NoError(t, err)
	return tiled, dense
}

// tolerance required of the tiled scoring: float64 ≤ 1e-12, float32 ≤ 1e-5, relative.
func tolerance(dt dtypes.DType) float64 {
	if dt == dtypes.Float64 {
		return 1e-12
	}
	return 1e-5
}

func requireClose(t *testing.T, want, got float64, tol float64, msg string) {
	t.Helper()
	require.LessOrEqual(t, math.Abs(got-want), tol*max(math.Abs(want), 1e-300), "%s: dense %v, tiled %v", msg, want, got)
}

// randomText is n printable bytes.
func randomText(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(' ' + r.IntN(95))
	}
	return string(b)
}

// TestTiledScoringMatchesDense: every loglikelihood task family — multiple-choice continuations,
// LAMBADA-like single-word continuations, wikitext-style rolling windows — scores the same with the tiled
// scorer as with the dense [B, T, V] logits, with budgets that give one tile, several position tiles (batch 3,
// 1 MiB: 16 or 32 positions) and vocabulary tiles (batch 16, 1 MiB: fewer than 16 positions fit the vocabulary).
func TestTiledScoringMatchesDense(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	tok := tokenizers.NewByteTokenizer()
	// Multiple choice: one context, four continuations of different lengths (piqa, hellaswag, arc ...).
	var mc []harness.LLRequest
	for d := range 3 {
		ctx := tok.Encode(randomText(r, 20+17*d))
		for c := range 4 {
			mc = append(mc, harness.LLRequest{Context: ctx, Continuation: tok.Encode(" " + randomText(r, 3+9*c)), AttentionFrom: len(ctx)})
		}
	}
	// LAMBADA: a passage and its last word (greedy matters: the accuracy metric).
	var lambada []harness.LLRequest
	for d := range 5 {
		ctx := tok.Encode(randomText(r, 40+30*d))
		lambada = append(lambada, harness.LLRequest{Context: ctx, Continuation: tok.Encode(" " + randomText(r, 5)), AttentionFrom: len(ctx)})
	}
	// Rolling windows over two documents (wikitext), max length 128.
	var rolling []harness.LLRequest
	for _, n := range []int{300, 90} {
		w, err := harness.RollingWindows(tok.Encode(randomText(r, n)), tok.EOS(), 128)
		require.NoError(t, err)
		rolling = append(rolling, w...)
	}
	families := map[string][]harness.LLRequest{"multiple choice": mc, "lambada": lambada, "rolling": rolling}
	combos := []struct {
		dt dtypes.DType
		v  oryx.Variant
	}{{dtypes.Float64, oryx.OryxTG}, {dtypes.Float32, oryx.OryxTG}, {dtypes.Float64, oryx.Transformer}, {dtypes.Float64, oryx.GDN}}
	if testing.Short() {
		combos = combos[:2]
	}
	for _, cb := range combos {
		dt, v := cb.dt, cb.v
		// The dense scores per batch size: the budgets "one tile" and "position tiles" share batch 3, and the dense
		// scorer ignores the memory budget, so each combination compiles its dense graphs once per batch size.
		denseScores := map[int]map[string][]harness.LLResult{}
		for _, budget := range []struct {
			name       string
			batch, mem int
		}{{"one tile", 3, 0}, {"position tiles", 3, 1}, {"vocabulary tiles", 16, 1}} {
			// -short (the XLA suite): float32 keeps the vocabulary tiles, where its rounding differs most from the
			// dense log-softmax (a logsumexp merged across tiles); float64 keeps every budget.
			if testing.Short() && dt == dtypes.Float32 && budget.name != "vocabulary tiles" {
				continue
			}
			tiled, dense := pairModel(t, v, dt, Options{Schedule: Mixed, Batch: budget.batch, MaxLength: 128, ScoreMemMB: budget.mem})
			c, vc := tiled.scorerTiles(budget.batch, 128)
			switch budget.name {
			case "position tiles":
				require.Less(t, c, 128, "%s: several position tiles", budget.name)
			case "vocabulary tiles":
				require.Less(t, vc, 320, "%s: a split vocabulary", budget.name)
			}
			if denseScores[budget.batch] == nil {
				denseScores[budget.batch] = map[string][]harness.LLResult{}
				for fam, reqs := range families {
					want, err := dense.LogLikelihood(reqs, nil)
					require.NoError(t, err)
					denseScores[budget.batch][fam] = want
				}
			}
			for fam, reqs := range families {
				want := denseScores[budget.batch][fam]
				got, err := tiled.LogLikelihood(reqs, nil)
				require.NoError(t, err)
				for i := range reqs {
					msg := fmt.Sprintf("%s %s %s %s request %d", dt, v, budget.name, fam, i)
					requireClose(t, want[i].LogLikelihood, got[i].LogLikelihood, tolerance(dt), msg)
					require.Equal(t, want[i].IsGreedy, got[i].IsGreedy, msg)
					require.Equal(t, want[i].Tokens, got[i].Tokens, msg)
					require.Equal(t, want[i].AttentionTokens, got[i].AttentionTokens, msg)
				}
			}
		}
	}
}

// scorerTiles exposes the tile plan (prepares the scorer).
func (m *Model) scorerTiles(b, n int) (c, vc int) {
	if err := m.ensureScorer(); err != nil {
		panic(err)
	}
	return m.scorer.Tiles(b, n)
}

// TestTokenScoresMatchDense: the per-position view (mode-switch curves, MQAR) is the dense one at every
// position, with switching modes, a partial last batch, time and vocabulary tiles.
func TestTokenScoresMatchDense(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, T = 7, 100
	seqs := make([][]int32, n)
	modes := make([][]oryx.Mode, n)
	for i := range seqs {
		for range T + 1 {
			seqs[i] = append(seqs[i], int32(r.IntN(320)))
		}
		for p := range T {
			modes[i] = append(modes[i], oryx.Mode((p/(5+i))%2))
		}
	}
	for _, dt := range []dtypes.DType{dtypes.Float64, dtypes.Float32} {
		for _, batch := range []int{3, 16} { // 1 MiB: position tiles at batch 3, vocabulary tiles at batch 16
			tiled, dense := pairModel(t, oryx.OryxTM, dt, Options{Batch: batch, ScoreMemMB: 1})
			want, wantGr, err := dense.TokenScores(seqs, modes)
			require.NoError(t, err)
			got, gotGr, err := tiled.TokenScores(seqs, modes)
			require.NoError(t, err)
			require.Len(t, got, n)
			// The per-position path of `evals switch`, `evals mqar` and the study's probes never builds the dense
			// [B, T, Vocab] graph unless asked to.
			require.Nil(t, tiled.dense)
			require.NotNil(t, tiled.scorer)
			for i := range seqs {
				for p := range T {
					// The per-position API returns float32: compare at float32's precision for both dtypes.
					requireClose(t, float64(want[i][p]), float64(got[i][p]), 1e-6, fmt.Sprintf("%s batch %d seq %d pos %d", dt, batch, i, p))
				}
				require.Equal(t, wantGr[i], gotGr[i], "%s batch %d seq %d", dt, batch, i)
			}
		}
	}
}

// TestGenerationLastPositionMatchesDense: generation reads the vocabulary only at each prompt's last
// position (Engine.Prefill); its logits equal the dense forward's at that position (float64, 1e-12).
func TestGenerationLastPositionMatchesDense(t *testing.T) {
	for _, v := range []oryx.Variant{oryx.OryxTG, oryx.Transformer} {
		cfg, err := oryx.Preset("tiny", v)
		require.NoError(t, err)
		cfg.Vocab = 320
		m, err := oryx.New(cfg)
		require.NoError(t, err)
		m.DType = dtypes.Float64
		ctx := context.New()
		ctx.SetParam(context.ParamInitialSeed, int64(8))
		prompts := [][]int32{{5, 80, 99, 120, 7, 31, 200}, {40, 41, 42}}
		var modes [][]oryx.Mode
		if v.IsMultiMixer() {
			modes = [][]oryx.Mode{{0, 0, 0, 1, 1, 0, 1}, {1, 0, 1}}
		}
		e, err := infer.NewEngine(backend.MustGet(), ctx, m, 2, 16)
		require.NoError(t, err)
		_, err = e.Prefill(prompts, modes)
		require.NoError(t, err)
		got := e.LastLogits()
		for row, p := range prompts {
			exec, err := context.NewExec(backend.MustGet(), ctx, func(ctx *context.Context, tok, md *Node) *Node {
				if !v.IsMultiMixer() {
					md = nil
				}
				return m.Logits(ctx, tok, md)
			})
			require.NoError(t, err)
			md := make([]int32, len(p))
			if modes != nil {
				for i, x := range modes[row] {
					md[i] = int32(x)
				}
			}
			outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(p, 1, len(p)), tensors.FromFlatDataAndDimensions(md, 1, len(p)))
			require.NoError(t, err)
			all := tensors.MustCopyFlatData[float64](outs[0])
			want := all[(len(p)-1)*cfg.Vocab:]
			var diff, scale float64
			for i := range want {
				diff, scale = max(diff, math.Abs(got[row][i]-want[i])), max(scale, math.Abs(want[i]))
			}
			require.LessOrEqual(t, diff/scale, 1e-12, "%s row %d", v, row)
			exec.Finalize()
		}
	}
}

func TestScoreMemOption(t *testing.T) {
	cfg, _ := oryx.Preset("tiny", oryx.OryxTG)
	cfg.Vocab = 320
	m, _ := oryx.New(cfg)
	_, err := New(m, context.New(), tokenizers.NewByteTokenizer(), Options{ScoreMemMB: -1})
	require.ErrorContains(t, err, "ScoreMemMB")
}
