package train

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// maskTestTrainer is a tiny trainer of variant v (batch 2 × 24 tokens, one micro-batch) and two random
// sequences.
func maskTestTrainer(t *testing.T, v oryx.Variant, modeTraining string) (*Trainer, [][]int32) {
	tc := tinyTrain()
	tc.SeqLen, tc.Batch, tc.MicroBatch, tc.ModeTraining = 24, 2, 2, modeTraining
	tr, err := NewTrainer(backend.MustGet(), oryxtest.TinyModel(t, v), context.New(), tc)
	require.NoError(t, err)
	seqs := make([][]int32, 2)
	for i := range seqs {
		seqs[i] = make([]int32, tc.SeqLen+1)
		for j := range seqs[i] {
			seqs[i][j] = int32((7*i + 13*j*j + 5) % 250)
		}
	}
	return tr, seqs
}

// refTokenLosses runs the trainer's per-position loss graph: the reference the masked loss is checked
// against, float32 [B][T].
func refTokenLosses(t *testing.T, tr *Trainer, seqs [][]int32, modes [][]oryx.Mode) [][]float32 {
	in, err := tr.inputs(seqs, modes)
	require.NoError(t, err)
	e, err := context.NewExec(tr.backend, tr.ctx, func(ctx *context.Context, in []*Node) *Node {
		var md *Node
		if len(in) > 2 {
			md = in[2]
		}
		return tr.tokenLosses(ctx, in[0], in[1], md)
	})
	require.NoError(t, err)
	out, err := e.Exec(in...)
	require.NoError(t, err)
	return out[0].Value().([][]float32)
}

// gradsOf returns the flattened gradient of the training loss (scale 1) for a batch with masks.
func gradsOf(t *testing.T, tr *Trainer, seqs [][]int32, masks [][]bool, modes [][]oryx.Mode) (float64, []float64) {
	in, err := tr.inputs(seqs, modes)
	require.NoError(t, err)
	mask, err := tr.maskTensor(masks, 0, len(seqs))
	require.NoError(t, err)
	in = append(in[:2], append([]any{mask}, in[2:]...)...)
	in = append(in, tensors.FromScalar(float32(1)))
	e, err := context.NewExec(tr.backend, tr.ctx, func(ctx *context.Context, in []*Node) []*Node {
		var md *Node
		scale := in[3]
		if len(in) > 4 {
			md, scale = in[3], in[4]
		}
		loss, _, grads := tr.lossAndGrads(ctx, in[0], in[1], in[2], md, scale)
		return append([]*Node{loss}, grads...)
	})
	require.NoError(t, err)
	out, err := e.Exec(in...)
	require.NoError(t, err)
	var flat []float64
	for _, g := range out[1:] {
		for _, x := range tensors.MustCopyFlatData[float32](g) {
			flat = append(flat, float64(x))
		}
	}
	return float64(out[0].Value().(float32)), flat
}

// TestMaskedLoss: unmasked, the training loss is the token mean of the reference per-position losses; with a
// mask, the mean over the trained positions; masked positions contribute no gradient (changing what a
// fully masked sequence holds changes nothing); an all-zero mask gives loss 0.
func TestMaskedLoss(t *testing.T) {
	tr, seqs := maskTestTrainer(t, oryx.Transformer, "")
	ref := refTokenLosses(t, tr, seqs, nil)

	var sum float64
	for _, row := range ref {
		for _, x := range row {
			sum += float64(x)
		}
	}
	loss, _ := gradsOf(t, tr, seqs, nil, nil)
	require.InDelta(t, sum/48, loss, 1e-5*sum/48, "unmasked: the token mean")

	masks := [][]bool{make([]bool, 24), make([]bool, 24)}
	var sum0 float64
	var n0 int
	for j := 0; j < 24; j++ {
		if j%3 == 1 || j > 20 {
			masks[0][j] = true
			sum0 += float64(ref[0][j])
			n0++
		}
	}
	masks[1][5] = true
	want := (sum0/float64(n0) + float64(ref[1][5])) / 2 // each sequence's mean over its trained positions, averaged
	loss, _ = gradsOf(t, tr, seqs, masks, nil)
	require.InDelta(t, want, loss, 1e-5*want, "masked: the mean over sequences of the mean over trained positions")

	// Row 1 fully masked: its content does not matter, to the loss or to any gradient.
	only0 := [][]bool{masks[0], make([]bool, 24)}
	lossA, gA := gradsOf(t, tr, seqs, only0, nil)
	require.InDelta(t, sum0/float64(n0), lossA, 1e-5*sum0/float64(n0), "a sequence with no trained position is left out")
	other := [][]int32{seqs[0], make([]int32, 25)}
	for j := range other[1] {
		other[1][j] = int32((31*j + 3) % 250)
	}
	lossB, gB := gradsOf(t, tr, other, only0, nil)
	require.Equal(t, lossA, lossB)
	require.Equal(t, len(gA), len(gB))
	var norm float64
	for i := range gA {
		require.InDelta(t, gA[i], gB[i], 1e-7, "gradient %d depends on a masked sequence", i)
		norm += gA[i] * gA[i]
	}
	require.Greater(t, norm, 0.0)

	none := [][]bool{make([]bool, 24), make([]bool, 24)}
	loss, g := gradsOf(t, tr, seqs, none, nil)
	require.Equal(t, 0.0, loss)
	for i := range g {
		require.Equal(t, 0.0, g[i])
	}

	// StepMasked at lr 0 reports the same loss and leaves the weights as they were.
	st, err := tr.StepMasked(seqs, masks, nil, 0)
	require.NoError(t, err)
	require.InDelta(t, want, st.Loss, 1e-5*want)
	_, err = tr.StepMasked(seqs, [][]bool{make([]bool, 3), nil}, nil, 0)
	require.ErrorContains(t, err, "loss mask 0 has 3 entries")
}

// TestComplementaryModeTraining: the complementary loss is the mean of the masked losses under the modes and
// under the flipped modes; mixed training is the loss under the modes alone.
func TestComplementaryModeTraining(t *testing.T) {
	modes := make([][]oryx.Mode, 2)
	flipped := make([][]oryx.Mode, 2)
	for b := range modes {
		modes[b], flipped[b] = make([]oryx.Mode, 24), make([]oryx.Mode, 24)
		for j := range modes[b] {
			modes[b][j] = oryx.Linear
			flipped[b][j] = oryx.Attention
			if (j/8+b)%2 == 0 {
				modes[b][j], flipped[b][j] = oryx.Attention, oryx.Linear
			}
		}
	}
	masks := [][]bool{make([]bool, 24), nil}
	for j := 4; j < 24; j += 2 {
		masks[0][j] = true
	}
	mean := func(ref [][]float32) float64 {
		var m float64
		for b, row := range ref {
			var s float64
			var n int
			for j, x := range row {
				if masks[b] == nil || masks[b][j] {
					s += float64(x)
					n++
				}
			}
			m += s / float64(n) / float64(len(ref))
		}
		return m
	}
	for _, mt := range []string{ModeTrainingBlockRandom, ModeTrainingComplementary} {
		tr, seqs := maskTestTrainer(t, oryx.OryxTG, mt)
		a, f := mean(refTokenLosses(t, tr, seqs, modes)), mean(refTokenLosses(t, tr, seqs, flipped))
		require.Greater(t, math.Abs(a-f), 1e-4, "the two readouts differ on random weights")
		want := a
		if mt == ModeTrainingComplementary {
			want = (a + f) / 2
		}
		loss, _ := gradsOf(t, tr, seqs, masks, modes)
		require.InDelta(t, want, loss, 1e-5*want, mt)
	}
}

// TestUniformModeTraining: block-random training with p = 1 or 0 builds the loss on one readout
// (oryx.Model.LogitsInMode, the study's controls at a single mixer's cost); its loss and gradients equal
// those of the general path (both readouts, one selected per token) fed the same uniform modes.
func TestUniformModeTraining(t *testing.T) {
	for _, p := range []float64{1, 0} {
		mode := oryx.Linear
		if p == 1 {
			mode = oryx.Attention
		}
		modes := [][]oryx.Mode{make([]oryx.Mode, 24), make([]oryx.Mode, 24)}
		for _, row := range modes {
			for j := range row {
				row[j] = mode
			}
		}
		general, seqs := maskTestTrainer(t, oryx.OryxTG, ModeTrainingBlockRandom) // p = 0.5: both readouts
		_, ok := general.uniformMode()
		require.False(t, ok)
		wantLoss, want := gradsOf(t, general, seqs, nil, modes)
		tc := general.cfg
		tc.AttentionProb = p
		uniform, err := NewTrainer(general.backend, general.model, general.ctx, tc) // the same weights
		require.NoError(t, err)
		m, ok := uniform.uniformMode()
		require.True(t, ok)
		require.Equal(t, mode, m)
		gotLoss, got := gradsOf(t, uniform, seqs, nil, modes)
		require.InDelta(t, wantLoss, gotLoss, 1e-6*wantLoss, "p = %g", p)
		require.Len(t, got, len(want))
		var norm float64
		for _, g := range want {
			norm += g * g
		}
		require.Greater(t, norm, 0.0)
		require.LessOrEqual(t, testutil.RelErr(got, want), 1e-5, "p = %g: gradients", p)
	}
}

// TestEvalGreedy: Trainer.EvalGreedy marks exactly the positions whose target is the argmax of the model's
// logits (computed here by a separate forward), on sequences built so that every other target is the
// argmax (at least half the positions hit, the rest mostly miss), for a single- and a multi-mixer variant;
// a batch that is not the micro-batch is refused.
func TestEvalGreedy(t *testing.T) {
	for _, v := range []oryx.Variant{oryx.Transformer, oryx.OryxTG} {
		t.Run(string(v), func(t *testing.T) {
			tr, seqs := maskTestTrainer(t, v, ModeTrainingBlockRandom)
			var modes [][]oryx.Mode
			if v.IsMultiMixer() {
				modes = [][]oryx.Mode{make([]oryx.Mode, 24), make([]oryx.Mode, 24)}
				for i := range modes[0] {
					modes[0][i], modes[1][i] = oryx.Mode(i%3/2), oryx.Mode(i%2)
				}
			}
			e, err := context.NewExec(tr.backend, tr.ctx, func(ctx *context.Context, in []*Node) *Node {
				var md *Node
				if len(in) > 2 {
					md = in[2]
				}
				return ArgMax(tr.model.Logits(ctx, in[0], md), -1)
			})
			require.NoError(t, err)
			predict := func() [][]int32 {
				in, err := tr.inputs(seqs, modes)
				require.NoError(t, err)
				out, err := e.Exec(in...)
				require.NoError(t, err)
				flat := tensors.MustCopyFlatData[int32](out[0])
				rows := make([][]int32, len(seqs))
				for r := range rows {
					rows[r] = flat[r*24 : (r+1)*24]
				}
				return rows
			}
			for j := 0; j < 24; j += 2 { // make target j the argmax at j (later logits change, earlier do not)
				p := predict()
				for r := range seqs {
					seqs[r][j+1] = p[r][j]
				}
			}
			p := predict()
			got, err := tr.EvalGreedy(seqs, modes)
			require.NoError(t, err)
			hits := 0
			for r := range seqs {
				for j := range 24 {
					require.Equal(t, p[r][j] == seqs[r][j+1], got[r][j], "row %d position %d", r, j)
					if got[r][j] {
						hits++
					}
				}
			}
			require.GreaterOrEqual(t, hits, 24, "every other target is the argmax")
			require.Less(t, hits, 48)
			_, err = tr.EvalGreedy(seqs[:1], modes)
			require.ErrorContains(t, err, "want the micro-batch 2")
		})
	}
}

// TestEvalSequenceLosses: Trainer.EvalSequenceLosses gives each sequence's mean per-position loss (the
// per-position loss graph's row means, in each mode of a multi-mixer model), and they sum to EvalLoss's sum.
func TestEvalSequenceLosses(t *testing.T) {
	for _, v := range []oryx.Variant{oryx.Transformer, oryx.OryxTG} {
		t.Run(string(v), func(t *testing.T) {
			tr, seqs := maskTestTrainer(t, v, ModeTrainingBlockRandom)
			var modes [][]oryx.Mode
			if v.IsMultiMixer() {
				modes = [][]oryx.Mode{make([]oryx.Mode, 24), make([]oryx.Mode, 24)}
				for i := range modes[1] {
					modes[1][i] = oryx.Attention // row 0 linear, row 1 attention
				}
			}
			got, err := tr.EvalSequenceLosses(seqs, modes)
			require.NoError(t, err)
			require.Len(t, got, 2)
			ref := refTokenLosses(t, tr, seqs, modes)
			var total float64
			for r := range seqs {
				var s float64
				for _, l := range ref[r] {
					s += float64(l)
				}
				require.InDelta(t, s/24, got[r], 1e-4, "row %d", r)
				total += got[r] * 24
			}
			require.NotEqual(t, got[0], got[1])
			sum, n, err := tr.EvalLoss(seqs, modes)
			require.NoError(t, err)
			require.Equal(t, 48, n)
			require.InDelta(t, sum, total, 1e-3)
			_, err = tr.EvalSequenceLosses(seqs[:1], modes)
			require.ErrorContains(t, err, "want the micro-batch 2")
		})
	}
}
