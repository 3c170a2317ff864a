package study

import (
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/evalapi"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// Evaluation seeds, disjoint from the training mixture's (datasets.MixTrainSeed and up).
const (
	mqarEvalSeed   = 77
	needleEvalSeed = 78
	copyEvalSeed   = 7900
)

// ScheduleResult is one model read under one schedule.
type ScheduleResult struct {
	Schedule string `json:"schedule"` // attention | linear | mixed (evalapi.Mixed: linear context, attention from the question on)
	// ValLoss is the held-out synthetic language's loss in nats/token under the schedule: attention and
	// linear only (the training's validation modes); null (NaN) for mixed, which has no question to split
	// text at. The multi-mixer runs' validation in block-random modes is training.val_loss.block_random.
	ValLoss           jsonnum.Float              `json:"val_loss"`
	MQAR              map[int]float64            `json:"mqar"`        // accuracy by number of pairs
	MQARCells         map[int]mqarCell           `json:"mqar_detail"` // accuracy, standard error, queries by number of pairs
	Needle            map[int]evalapi.ProbeScore `json:"needle"`      // by prompt length
	Copy              map[int]evalapi.ProbeScore `json:"copy"`        // by prompt length
	AttentionFraction float64                    `json:"attention_fraction"`
}

// mqarCell is an MQAR result (evalapi.MQARResult) as study.json records it.
type mqarCell struct {
	Accuracy          float64 `json:"accuracy"`
	StdErr            float64 `json:"stderr"`
	Queries           int     `json:"queries"`
	AttentionFraction float64 `json:"attention_fraction"`
}

func newMQARCell(r evalapi.MQARResult) mqarCell {
	return mqarCell{r.Accuracy, r.StdErr, r.Queries, r.AttentionFraction}
}

// ModelResult is everything measured on one trained model (one run of one seed).
type ModelResult struct {
	RunSpec
	Seed      int              `json:"seed"`       // 1..Config.Seeds
	TrainSeed uint64           `json:"train_seed"` // its TrainConfig.Seed
	RunDir    string           `json:"run_dir"`    // its run directory, relative to Config.Out
	Params    int64            `json:"params"`
	Summary   *train.Summary   `json:"training"`
	Schedules []ScheduleResult `json:"schedules"`
	// SwitchMQAR is the mode-switch test (multi-mixer models): MQAR with the pairs read in one mode and the
	// queries in the other, by schedule (evalapi.AttentionToLinear, evalapi.LinearToAttention) and number of pairs.
	SwitchMQAR map[string]map[int]mqarCell `json:"switch_mqar,omitempty"`
	// Switch is the per-position loss on held-out text around a switch (multi-mixer models): supplementary.
	Switch *evalapi.SwitchCurves `json:"mode_switch,omitempty"`
	// Curves are the recall learning curves by schedule (curves.go; none without Config.CurveExamples).
	Curves map[string]*RecallCurve `json:"mqar_curves,omitempty"`
	// MixtureLoss is the held-out training mixture's loss by single mode (attention, linear; mixtureloss.go),
	// beside the language-only validation loss of ScheduleResult.ValLoss (not with EvalCurves); null where the
	// model scores no number (NaN: a diverged model).
	MixtureLoss map[string]jsonnum.Float `json:"mixture_loss,omitempty"`
	// HeldOut is the held-out language set's loss by single mode (heldout.go; not with EvalCurves): claim (a)'s
	// gaps are read there when every run has it.
	HeldOut map[string]*HeldOutLoss `json:"held_out_loss,omitempty"`
}

// schedulesOf lists the schedules a variant is read in.
func schedulesOf(v oryx.Variant) []string {
	switch {
	case v.IsMultiMixer():
		return []string{"attention", "linear", evalapi.Mixed}
	case v.HasAttention():
		return []string{"attention"}
	}
	return []string{"linear"}
}

// newScheduleResults starts the results of a variant's schedules, with the validation losses of the training
// summary: attention and linear under their own names; the mixed schedule has none (the training validates
// block-random modes, a different schedule, kept in the summary as train.ValBlockRandom).
func newScheduleResults(v oryx.Variant, sum *train.Summary) []ScheduleResult {
	var out []ScheduleResult
	for _, sched := range schedulesOf(v) {
		sr := ScheduleResult{Schedule: sched, ValLoss: jsonnum.Float(math.NaN()), MQAR: map[int]float64{}, MQARCells: map[int]mqarCell{},
			Needle: map[int]evalapi.ProbeScore{}, Copy: map[int]evalapi.ProbeScore{}}
		if l, ok := sum.ValLoss[sched]; ok && (sched == train.ValAttention || sched == train.ValLinear) {
			sr.ValLoss = l
		}
		out = append(out, sr)
	}
	return out
}

// evaluate measures a trained model (job j, its run directory dir) as c.Evaluation says: with EvalFull the
// evaluations of evals/evalapi — MQAR and its switch test, the mini needle and the copy probe under each
// schedule, and the mode-switch curves; with EvalMQAR MQAR under each schedule; with EvalCurves nothing. The
// recall curves logged during training are read in every case.
func evaluate(c Config, j job, dir string, sum *train.Summary, log io.Writer) (*ModelResult, error) {
	cfg, err := modelConfig(j.Run)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(c.Out, dir)
	if err != nil {
		rel = dir
	}
	res := &ModelResult{RunSpec: j.Run, Seed: j.Seed, TrainSeed: c.trainSeed(j.Seed), RunDir: rel, Params: oryx.CountParams(cfg).Total,
		Summary: sum, Schedules: newScheduleResults(cfg.Variant, sum)}
	if c.CurveExamples > 0 {
		if res.Curves, err = readRecallCurves(dir); err != nil {
			return nil, fmt.Errorf("recall curves: %w", err)
		}
		for _, s := range curveSchedules(res.Curves) {
			rc := res.Curves[s]
			fmt.Fprintf(log, "  recall curve (%s): %.1f%% at the end; 50%% %s, 90%% %s (%.2f s a point)\n", s,
				100*rc.Accuracy[len(rc.Accuracy)-1], tokensOrNever(float64(rc.TokensTo50)), tokensOrNever(float64(rc.TokensTo90)), rc.ProbeSeconds)
		}
	}
	if c.evaluation() == EvalCurves {
		return res, nil
	}
	m, ctx, err := oryx.LoadCheckpoint(dir, nil)
	if err != nil {
		return nil, err
	}
	tok := tokenizers.NewByteTokenizer()
	lm, err := evalapi.NewLM(m, ctx, tok, evalapi.LMOptions{Batch: 16, MaxLength: 4096})
	if err != nil {
		return nil, err
	}
	defer lm.Close()
	full := c.evaluation() == EvalFull
	if err := evaluateMQAR(c, lm, res, full, log); err != nil {
		return nil, err
	}
	if full {
		if err := evaluateGenProbes(c, m, ctx, tok, res, log); err != nil {
			return nil, err
		}
	}
	if res.MixtureLoss, err = mixtureLosses(c, m, ctx, tok, log); err != nil {
		return nil, err
	}
	if res.HeldOut, err = heldOutLosses(c, m, ctx, tok, log); err != nil {
		return nil, err
	}
	for i := range res.Schedules {
		res.Schedules[i].AttentionFraction = attentionFraction(c, res.Schedules[i])
	}
	if full && m.Config.Variant.IsMultiMixer() {
		if res.Switch, err = modeSwitch(c, lm); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "  mode switch at %d: recovery attention→linear %d tokens, linear→attention %d tokens\n",
			res.Switch.SwitchAt, res.Switch.Recovery[evalapi.AttentionToLinear], res.Switch.Recovery[evalapi.LinearToAttention])
	}
	return res, nil
}

// evaluation is c.Evaluation with its default (EvalFull).
func (c Config) evaluation() string {
	if c.Evaluation == "" {
		return EvalFull
	}
	return c.Evaluation
}

// kind is c.Kind with its default (KindStudy).
func (c Config) kind() string {
	if c.Kind == "" {
		return KindStudy
	}
	return c.Kind
}

// tokensOrNever says when a curve crossed its mark: "at N tokens", or "never within the budget" for NaN.
func tokensOrNever(t float64) string {
	if math.IsNaN(t) {
		return "never within the budget"
	}
	return "at " + human.Int(int64(t)) + " tokens"
}

// evaluateMQAR scores MQAR under every schedule the variant has and, with withSwitch for multi-mixer
// variants, the switch test (evalapi.ScoreMQAR, evalapi.SwitchMQAR).
func evaluateMQAR(c Config, lm *evalapi.LM, res *ModelResult, withSwitch bool, log io.Writer) error {
	task := datasets.MQARConfig{Vocab: datasets.MQARVocab, SeqLen: c.Train.SeqLen, Seed: mqarEvalSeed}
	scores, err := evalapi.ScoreMQAR(lm, task, c.MQARPairs, c.MQARExamples, datasets.MQARTokenOffset)
	if err != nil {
		return err
	}
	for _, p := range c.MQARPairs {
		for _, r := range scores[p] {
			s := res.sched(r.Schedule)
			s.MQAR[p], s.MQARCells[p] = r.Accuracy, newMQARCell(r)
		}
		fmt.Fprintf(log, "  mqar %2d pairs: %s\n", p, evalapi.FormatMQAR(scores[p]))
	}
	if !withSwitch || !lm.Config().Variant.IsMultiMixer() {
		return nil
	}
	switched, err := evalapi.SwitchMQAR(lm, task, c.MQARPairs, c.MQARExamples, datasets.MQARTokenOffset)
	if err != nil {
		return err
	}
	res.SwitchMQAR = map[string]map[int]mqarCell{}
	for _, p := range c.MQARPairs {
		for _, r := range switched[p] {
			if res.SwitchMQAR[r.Schedule] == nil {
				res.SwitchMQAR[r.Schedule] = map[int]mqarCell{}
			}
			res.SwitchMQAR[r.Schedule][p] = newMQARCell(r)
		}
		fmt.Fprintf(log, "  mqar %2d pairs, switch at the first query: %s\n", p, evalapi.FormatMQAR(switched[p]))
	}
	return nil
}

// evaluateGenProbes runs the mini needle and the copy probe (evalapi.MiniNeedleProbe, evalapi.CopyProbe) by
// greedy generation through the engine, under each schedule.
func evaluateGenProbes(c Config, m *oryx.Model, ctx *context.Context, tok tokenizers.Tokenizer, res *ModelResult, log io.Writer) error {
	needles, err := evalapi.MiniNeedleProbe(tok, c.NeedleLengths, c.NeedleDepths, c.NeedleSamples, needleEvalSeed)
	if err != nil {
		return err
	}
	copies, err := evalapi.CopyProbe(tok, c.NeedleLengths, c.NeedleSamples*len(c.NeedleDepths), copyEvalSeed)
	if err != nil {
		return err
	}
	// One generating model for every schedule and probe: its engines and their compiled graphs are reused
	// (the schedule only changes the modes fed to them).
	gen, err := evalapi.NewLM(m, ctx, tok, evalapi.LMOptions{Batch: 8, MaxLength: 4096})
	if err != nil {
		return err
	}
	defer gen.Close()
	for _, sched := range schedulesOf(m.Config.Variant) {
		if err := gen.SetSchedule(sched); err != nil {
			return err
		}
		s := res.sched(sched)
		for _, pr := range []struct {
			name  string
			items []evalapi.GenProbe
			cells map[int]evalapi.ProbeScore
		}{{"needle", needles, s.Needle}, {"copy", copies, s.Copy}} {
			scores, err := evalapi.RunGenProbe(gen, pr.items)
			if err != nil {
				return fmt.Errorf("%s (%s): %w", pr.name, sched, err)
			}
			line := ""
			for _, l := range c.NeedleLengths {
				pr.cells[l] = scores[l]
				line += fmt.Sprintf("  %d: %.0f%%", l, 100*scores[l].Score)
			}
			fmt.Fprintf(log, "  %s (%s):%s\n", pr.name, sched, line)
		}
	}
	return nil
}

// attentionFraction is the fraction of a schedule's MQAR, needle and copy tokens read in attention mode.
func attentionFraction(c Config, s ScheduleResult) float64 {
	var a, n float64
	for _, cell := range s.MQARCells {
		a += cell.AttentionFraction * float64(c.MQARExamples)
		n += float64(c.MQARExamples)
	}
	for _, cells := range []map[int]evalapi.ProbeScore{s.Needle, s.Copy} {
		for _, cell := range cells {
			a += cell.AttentionFraction * float64(cell.N)
			n += float64(cell.N)
		}
	}
	if n == 0 {
		return 0
	}
	return a / n
}

// modeSwitch computes the per-position loss curves around a switch at half the training length on held-out
// synthetic text (evalapi.HeldOut).
func modeSwitch(c Config, lm *evalapi.LM) (*evalapi.SwitchCurves, error) {
	seqs, err := evalapi.HeldOut(datasets.DataSpec{Spec: "synth"}, lm.Tokenizer(), c.Train.SeqLen, c.SwitchSequences)
	if err != nil {
		return nil, err
	}
	return evalapi.ModeSwitch(lm, seqs, c.Train.SeqLen/2)
}
