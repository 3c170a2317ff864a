package study

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/oryx"
)

// The training mixture measured held out. The validation loss the trainer logs is the synthetic language's
// alone, while three quarters of the training rows are recall rows (MQAR, needles) trained on their answers
// only: a model that learns recall spends capacity on it that the language loss does not see. So the study
// also scores the whole mixture — held-out rows with the training's answer masks and proportions
// (datasets.MixtureValidationSet) — in each single mode the model has, as the training objective is defined: a
// mean over rows of each row's mean loss over its trained positions: the recall–language confound.

// mixtureValRows is how many held-out mixture rows are scored (about 48 recall rows and 16 language rows).
const mixtureValRows = 64

// mixtureBatch is how many rows one scoring call reads.
const mixtureBatch = 16

// mixtureLosses scores the held-out mixture in each single mode of the model's variant ("attention", "linear").
func mixtureLosses(c Config, m *oryx.Model, ctx *context.Context, tok tokenizers.Tokenizer, log io.Writer) (map[string]jsonnum.Float, error) {
	if !strings.HasPrefix(c.Data, "mix:") {
		return nil, nil // not a mixture: the language loss is the whole objective
	}
	seqs, masks, err := datasets.MixtureValidationSet(c.Data, tok, c.Train.SeqLen, mixtureValRows)
	if err != nil {
		return nil, err
	}
	per, err := scoreRowsByMode(m, ctx, seqs, masks, mixtureBatch)
	if err != nil {
		return nil, fmt.Errorf("mixture loss: %w", err)
	}
	out := map[string]jsonnum.Float{}
	for _, sched := range sortedModes(per) {
		var sum float64
		for _, l := range per[sched] {
			sum += l
		}
		out[sched] = jsonnum.Float(sum / float64(len(seqs)))
		fmt.Fprintf(log, "  mixture loss (%s, %d held-out rows): %.4f\n", sched, len(seqs), float64(out[sched]))
	}
	return out, nil
}

// scoreRowsByMode scores rows (masks[i] nil: every position) in each single mode of the model's variant
// ("attention", "linear"; the mixed schedule has no question to split a row at), batch rows a call, with one
// scorer: each row's mean loss over its trained positions, by mode.
func scoreRowsByMode(m *oryx.Model, ctx *context.Context, seqs [][]int32, masks [][]bool, batch int) (map[string][]float64, error) {
	be, err := oryx.Backend()
	if err != nil {
		return nil, err
	}
	sc, err := oryx.NewScorer(be, ctx, m, 0)
	if err != nil {
		return nil, err
	}
	defer sc.Finalize()
	out := map[string][]float64{}
	for _, sched := range schedulesOf(m.Config.Variant) {
		mode, ok := map[string]oryx.Mode{"attention": oryx.Attention, "linear": oryx.Linear}[sched]
		if !ok {
			continue
		}
		per := make([]float64, 0, len(seqs))
		for i := 0; i < len(seqs); i += batch {
			j := min(i+batch, len(seqs))
			rows, err := scoreMaskedRows(sc, m, seqs[i:j], masks[i:j], mode)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", sched, err)
			}
			per = append(per, rows...)
		}
		out[sched] = per
	}
	return out, nil
}

// sortedModes lists the modes of per in display order (attention, then linear).
func sortedModes(per map[string][]float64) []string {
	var out []string
	for _, sched := range []string{"attention", "linear"} {
		if _, ok := per[sched]; ok {
			out = append(out, sched)
		}
	}
	return out
}

// scoreMaskedRows returns each row's mean loss over its trained positions (mask[j]: target seq[j+1] at
// position j; a nil mask trains every position), every token read in mode.
func scoreMaskedRows(sc *oryx.Scorer, m *oryx.Model, seqs [][]int32, masks [][]bool, mode oryx.Mode) ([]float64, error) {
	b, t := len(seqs), len(seqs[0])-1
	n := 0
	positions := make([][]int32, b)
	for i, mask := range masks {
		for j := 0; j < t; j++ {
			if mask == nil || mask[j] {
				positions[i] = append(positions[i], int32(j))
			}
		}
		n = max(n, len(positions[i]))
	}
	tokens, pos, targets := make([]int32, 0, b*t), make([]int32, 0, b*n), make([]int32, 0, b*n)
	var modes []int32
	for i, s := range seqs {
		tokens = append(tokens, s[:t]...)
		for k := 0; k < n; k++ {
			if k < len(positions[i]) {
				p := positions[i][k]
				pos, targets = append(pos, p), append(targets, s[p+1])
			} else {
				pos, targets = append(pos, -1), append(targets, 0)
			}
		}
	}
	if m.Config.Variant.IsMultiMixer() {
		modes = make([]int32, b*t)
		for i := range modes {
			modes[i] = int32(mode)
		}
	}
	logp, _, err := sc.Score(tokens, modes, b, t, pos, targets, n)
	if err != nil {
		return nil, err
	}
	out := make([]float64, b)
	for i := range seqs {
		var s float64
		for k := range positions[i] {
			s -= logp[i*n+k]
		}
		out[i] = s / float64(len(positions[i]))
		if len(positions[i]) == 0 {
			out[i] = math.NaN()
		}
	}
	return out, nil
}
