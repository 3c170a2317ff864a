package oryx_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// denseScores is the oracle: the dense logits (Model.Logits) → log-softmax of each target and argmax (lowest
// id on ties), on the host in float64.
func denseScores(t *testing.T, m *oryx.Model, logits [][]float64, vocab int, pos, targets [][]int32) ([][]float64, [][]bool) {
	t.Helper()
	lp, gr := make([][]float64, len(pos)), make([][]bool, len(pos))
	for r := range pos {
		for k, p := range pos[r] {
			if p < 0 {
				lp[r], gr[r] = append(lp[r], 0), append(gr[r], false)
				continue
			}
			row := logits[r][int(p)*vocab : (int(p)+1)*vocab]
			mx, best := math.Inf(-1), 0
			for i, x := range row {
				if x > mx {
					mx, best = x, i
				}
			}
			var s float64
			for _, x := range row {
				s += math.Exp(x - mx)
			}
			lp[r] = append(lp[r], row[targets[r][k]]-mx-math.Log(s))
			gr[r] = append(gr[r], best == int(targets[r][k]))
		}
	}
	return lp, gr
}

// TestScorerMatchesDense: the tiled scorer (position tiles, and vocabulary tiles under a tiny budget) equals
// the dense log-softmax of Model.Logits at every requested position — all positions, and gathered positions
// with padding — within 1e-12 (float64) and 1e-5 relative (float32).
//
// Every variant × dtype × budget compiles its own scorer (XLA: seconds each). -short (the XLA suite) keeps
// Oryx-TG (the multi-mixer model, modes read) in float64 with every budget and in float32 with the two
// vocabulary-tile budgets (a logsumexp merged across tiles: where float32 rounding departs most from the
// dense log-softmax), and the single-mixer Transformer and GDN in float64 with the two budgets that tile
// differently (position tiles over all positions; gathered, padded positions over vocabulary tiles); the pure-Go
// suite runs all of them.
func TestScorerMatchesDense(t *testing.T) {
	for _, dt := range []dtypes.DType{dtypes.Float64, dtypes.Float32} {
		for _, v := range []oryx.Variant{oryx.OryxTG, oryx.Transformer, oryx.GDN} {
			var keep []string // the budgets -short keeps; nil: all
			switch {
			case !testing.Short() || (v == oryx.OryxTG && dt == dtypes.Float64):
			case v == oryx.OryxTG:
				keep = []string{"vocabulary tiles", "gathered vocabulary tiles"}
			case dt == dtypes.Float64:
				keep = []string{"position tiles", "gathered vocabulary tiles"}
			default:
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", dt, v), func(t *testing.T) { scorerMatchesDense(t, dt, v, keep) })
		}
	}
}

// scorerMatchesDense is TestScorerMatchesDense for one dtype and variant, with the budgets named in keep (nil:
// all of them).
func scorerMatchesDense(t *testing.T, dt dtypes.DType, v oryx.Variant, keep []string) {
	const b, n = 3, 40
	m, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
	m.DType = dt
	vocab := m.Config.Vocab
	tokens := oryxtest.RandomTokens(7, b, n+1, vocab)
	modes := oryxtest.SwitchingModes(9, b, n)
	in, tgt := make([][]int32, b), make([][]int32, b)
	for r := range tokens {
		in[r], tgt[r] = tokens[r][:n], tokens[r][1:]
	}
	logits := oryxtest.ParallelLogits(t, m, ctx, in, oryxtest.ModesFor(m, modes))
	var md []int32
	if v.IsMultiMixer() {
		md = oryxtest.FlatInt32(modes)
	}
	all := make([][]int32, b)
	for r := range all {
		for p := range n {
			all[r] = append(all[r], int32(p))
		}
	}
	// Gathered: a different number of positions per row (the continuation form), −1 padded.
	gathered := [][]int32{{5, 6, 7, -1, -1}, {39, -1, -1, -1, -1}, {0, 17, 18, 19, 33}}
	gtgt := make([][]int32, b)
	for r := range gathered {
		for _, p := range gathered[r] {
			if p < 0 {
				gtgt[r] = append(gtgt[r], 0)
			} else {
				gtgt[r] = append(gtgt[r], tgt[r][p])
			}
		}
	}
	tol := 1e-12
	if dt == dtypes.Float32 {
		tol = 1e-5
	}
	elem := int64(oryx.ScoreDType(dt).Size())
	for _, tc := range []struct {
		name    string
		mem     int64
		pos     [][]int32
		targets [][]int32
	}{
		{"one tile", 1 << 30, all, tgt},
		{"position tiles", oryx.ScoreLiveArrays * elem * int64(b*vocab*20), all, tgt}, // 16 positions per tile
		{"vocabulary tiles", oryx.ScoreLiveArrays * elem * int64(b*16*7), all, tgt},
		{"gathered", 1 << 30, gathered, gtgt},
		{"gathered vocabulary tiles", oryx.ScoreLiveArrays * elem * int64(b*16*7), gathered, gtgt},
	} {
		if keep != nil && !slices.Contains(keep, tc.name) {
			continue
		}
		s, err := oryx.NewScorer(backend.MustGet(), ctx, m, tc.mem)
		require.NoError(t, err)
		k := len(tc.pos[0])
		c, vc := s.Tiles(b, k)
		switch tc.name {
		case "position tiles":
			require.Equal(t, [2]int{16, vocab}, [2]int{c, vc})
		case "vocabulary tiles", "gathered vocabulary tiles":
			require.Less(t, vc, vocab, "the budget must split the vocabulary")
		}
		lp, gr, err := s.Score(oryxtest.FlatInt32(in), md, b, n, oryxtest.FlatInt32(tc.pos), oryxtest.FlatInt32(tc.targets), k)
		require.NoError(t, err)
		wantLP, wantGR := denseScores(t, m, logits, vocab, tc.pos, tc.targets)
		for r := range b {
			require.LessOrEqual(t, testutil.RelErr(lp[r*k:(r+1)*k], wantLP[r]), tol, "%s %s %s row %d", dt, v, tc.name, r)
			require.Equal(t, wantGR[r], gr[r*k:(r+1)*k], "%s %s %s row %d", dt, v, tc.name, r)
		}
	}
}

func TestScoreTiles(t *testing.T) {
	// NeoX vocabulary, batch 8, float32, the default budget: whole vocabulary, a multiple of 16 positions.
	c, vc := oryx.ScoreTiles(8, 2048, 50304, 4, oryx.DefaultScoreMemBytes)
	require.Equal(t, 50304, vc)
	require.Equal(t, 0, c%oryx.MinScoreTile)
	require.LessOrEqual(t, int64(oryx.ScoreLiveArrays*4*8*c*vc), oryx.DefaultScoreMemBytes)
	// Few positions: no more than needed (rounded up to 16).
	c, _ = oryx.ScoreTiles(8, 3, 50304, 4, oryx.DefaultScoreMemBytes)
	require.Equal(t, 16, c)
	// A budget below 16 positions × vocabulary splits the vocabulary into equal parts within the budget.
	c, vc = oryx.ScoreTiles(8, 2048, 50304, 4, 8<<20)
	require.Equal(t, 16, c)
	require.Less(t, vc, 50304)
	require.LessOrEqual(t, int64(oryx.ScoreLiveArrays*4*8*c*vc), int64(8<<20))
	require.Panics(t, func() { oryx.ScoreTiles(0, 1, 1, 4, 1) })
}

func TestScorerBadInput(t *testing.T) {
	m, ctx := oryxtest.NewModel(t, oryxtest.Config(oryx.OryxTG))
	s, err := oryx.NewScorer(backend.MustGet(), ctx, m, 0)
	require.NoError(t, err)
	require.Equal(t, oryx.DefaultScoreMemBytes, s.MemBytes())
	tok := []int32{1, 2, 3, 4}
	_, _, err = s.Score(tok, nil, 1, 4, []int32{0}, []int32{1}, 1)
	require.ErrorContains(t, err, "needs a mode")
	md := make([]int32, 4)
	_, _, err = s.Score(tok, md, 1, 4, []int32{4}, []int32{1}, 1)
	require.ErrorContains(t, err, "position 4")
	_, _, err = s.Score(tok, md, 1, 4, []int32{0}, []int32{99}, 1)
	require.ErrorContains(t, err, "target 99")
	_, _, err = s.Score([]int32{1, 2, 3, 99}, md, 1, 4, []int32{0}, []int32{1}, 1)
	require.ErrorContains(t, err, "token 99")
	_, _, err = s.Score(tok, md, 2, 4, []int32{0}, []int32{1}, 1)
	require.ErrorContains(t, err, "2×4")
}

// TestAttentionMemBytesMatchesDense: the parallel forward with attention in query blocks (AttentionMemBytes)
// gives the dense logits (float64, 1e-12), and so does the engine's prefill built on it.
func TestAttentionMemBytesMatchesDense(t *testing.T) {
	const b, n = 2, 29
	for _, v := range []oryx.Variant{oryx.OryxTG, oryx.Transformer} {
		m, ctx := oryxtest.NewModel(t, oryxtest.Config(v))
		tokens := oryxtest.RandomTokens(3, b, n, m.Config.Vocab)
		modes := oryxtest.ModesFor(m, oryxtest.SwitchingModes(4, b, n))
		want := oryxtest.ParallelLogits(t, m, ctx, tokens, modes)
		blocked := *m
		blocked.AttentionMemBytes = int64(oryx.AttentionLiveArrays * b * m.Config.Heads * n * 8 * 5) // 5 queries per block
		got := oryxtest.ParallelLogits(t, &blocked, ctx, tokens, modes)
		for r := range b {
			require.LessOrEqual(t, testutil.RelErr(got[r], want[r]), 1e-12, "%s row %d", v, r)
		}
		e, err := infer.NewEngine(backend.MustGet(), ctx, &blocked, b, n)
		require.NoError(t, err)
		_, err = e.Prefill(tokens, modes)
		require.NoError(t, err)
		vocab := m.Config.Vocab
		for r := range b {
			require.LessOrEqual(t, testutil.RelErr(e.LastLogits()[r], want[r][(n-1)*vocab:]), 1e-12, "%s prefill row %d", v, r)
		}
	}
}
