package study

import (
	"fmt"
	"io"
	"math"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/evals/modeswitch"
	"github.com/oryx-go/oryx/evals/mqar"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/niah"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/recipe"
)

// Evaluation seeds, disjoint from the training mixture's (datasets.MixTrainSeed and up).
const (
	mqarEvalSeed   = 77
	needleEvalSeed = 78
	copyEvalSeed   = 7900
)

// ScheduleResult is one model read under one schedule.
type ScheduleResult struct {
	Schedule string `json:"schedule"` // attention | linear | mixed (oryxlm.Mixed: linear context, attention from the question on)
	// ValLoss is the held-out synthetic language's loss in nats/token under the schedule: attention and
	// linear only (the training's validation modes); null (NaN) for mixed, which has no question to split
	// text at. The multi-mixer runs' validation in block-random modes is training.val_loss.block_random.
	ValLoss           rundir.Float       `json:"val_loss"`
	MQAR              map[int]float64    `json:"mqar"`        // accuracy by number of pairs
	MQARCells         map[int]mqarCell   `json:"mqar_detail"` // accuracy, standard error, queries by number of pairs
	Needle            map[int]needleCell `json:"needle"`      // by prompt length
	Copy              map[int]needleCell `json:"copy"`        // by prompt length
	AttentionFraction float64            `json:"attention_fraction"`
}

type mqarCell struct {
	Accuracy          float64 `json:"accuracy"`
	StdErr            float64 `json:"stderr"`
	Queries           int     `json:"queries"`
	AttentionFraction float64 `json:"attention_fraction"`
}

type needleCell struct {
	Score             float64 `json:"score"`
	StdErr            float64 `json:"stderr"`
	N                 int     `json:"n"`
	AttentionFraction float64 `json:"attention_fraction"`
}

// ModelResult is everything measured on one trained model.
type ModelResult struct {
	RunSpec
	Params    int64            `json:"params"`
	Summary   *recipe.Summary  `json:"training"`
	Schedules []ScheduleResult `json:"schedules"`
	// SwitchMQAR is the mode-switch test (multi-mixer models): MQAR with the pairs read in one mode and the
	// queries in the other, by schedule (mqar.AttentionToLinear, mqar.LinearToAttention) and number of pairs.
	SwitchMQAR map[string]map[int]mqarCell `json:"switch_mqar,omitempty"`
	// Switch is the per-position loss on held-out text around a switch (multi-mixer models): supplementary.
	Switch *modeswitch.Curves `json:"mode_switch,omitempty"`
}

// schedulesOf lists the schedules a variant is read in.
func schedulesOf(v oryx.Variant) []string {
	switch {
	case v.IsMultiMixer():
		return []string{"attention", "linear", "mixed"}
	case v.HasAttention():
		return []string{"attention"}
	}
	return []string{"linear"}
}

// newScheduleResults starts the results of a variant's schedules, with the validation losses of the training
// summary: attention and linear under their own names; the mixed schedule has none (the training validates
// block-random modes, a different schedule, kept in the summary as rundir.ValBlockRandom).
func newScheduleResults(v oryx.Variant, sum *recipe.Summary) []ScheduleResult {
	var out []ScheduleResult
	for _, sched := range schedulesOf(v) {
		sr := ScheduleResult{Schedule: sched, ValLoss: rundir.Float(math.NaN()), MQAR: map[int]float64{}, MQARCells: map[int]mqarCell{},
			Needle: map[int]needleCell{}, Copy: map[int]needleCell{}}
		if l, ok := sum.ValLoss[sched]; ok && (sched == rundir.ValAttention || sched == rundir.ValLinear) {
			sr.ValLoss = l
		}
		out = append(out, sr)
	}
	return out
}

// evaluate measures a trained model (its checkpoint in dir).
func evaluate(c Config, rs RunSpec, dir string, sum *recipe.Summary, log io.Writer) (*ModelResult, error) {
	m, ctx, err := oryx.LoadCheckpoint(dir, nil)
	if err != nil {
		return nil, err
	}
	tok := tokenizers.NewByteTokenizer()
	res := &ModelResult{RunSpec: rs, Params: oryx.CountParams(m.Config).Total, Summary: sum,
		Schedules: newScheduleResults(m.Config.Variant, sum)}
	idx := map[string]int{}
	for i, s := range res.Schedules {
		idx[s.Schedule] = i
	}

	// MQAR: mqar.Evaluate reads every schedule the variant has at once.
	lm, err := oryxlm.New(m, ctx, tok, oryxlm.Options{Batch: 16, MaxLength: 4096})
	if err != nil {
		return nil, err
	}
	for _, p := range c.MQARPairs {
		rs, err := mqar.Evaluate(lm, datasets.MQARConfig{Vocab: datasets.MQARVocab, SeqLen: c.Train.SeqLen, NumPairs: p,
			Seed: mqarEvalSeed}, c.MQARExamples, datasets.MQARTokenOffset)
		if err != nil {
			return nil, fmt.Errorf("mqar with %d pairs: %w", p, err)
		}
		for _, r := range rs {
			res.Schedules[idx[r.Schedule]].MQAR[p] = r.Accuracy
			res.Schedules[idx[r.Schedule]].MQARCells[p] = mqarCell{r.Accuracy, r.StdErr, r.Queries, r.AttentionFraction}
		}
		fmt.Fprintf(log, "  mqar %2d pairs: %s\n", p, formatMQAR(rs))
		if !m.Config.Variant.IsMultiMixer() {
			continue
		}
		sw, err := mqar.Switch(lm, datasets.MQARConfig{Vocab: datasets.MQARVocab, SeqLen: c.Train.SeqLen, NumPairs: p,
			Seed: mqarEvalSeed}, c.MQARExamples, datasets.MQARTokenOffset)
		if err != nil {
			return nil, err
		}
		if res.SwitchMQAR == nil {
			res.SwitchMQAR = map[string]map[int]mqarCell{}
		}
		for _, r := range sw {
			if res.SwitchMQAR[r.Schedule] == nil {
				res.SwitchMQAR[r.Schedule] = map[int]mqarCell{}
			}
			res.SwitchMQAR[r.Schedule][p] = mqarCell{r.Accuracy, r.StdErr, r.Queries, r.AttentionFraction}
		}
		fmt.Fprintf(log, "  mqar %2d pairs, switch at the first query: %s\n", p, formatMQAR(sw))
	}

	// Mini needle and copy probe: greedy generation through the engine, under each schedule.
	var needles []probeItem
	for _, l := range c.NeedleLengths {
		for _, d := range c.NeedleDepths {
			for i := 0; i < c.NeedleSamples; i++ {
				s, err := datasets.GenerateMiniNeedle(tok, l, d, needleEvalSeed, len(needles))
				if err != nil {
					return nil, err
				}
				// Mixed: the prompt's last token and the generated answer in attention, everything before in linear
				// mode [choice: the probes run at the training length, 128 bytes, where the answer prefix
				// " A: the magic number for <key> is" alone would be ~30 % of the tokens; from the last token on,
				// 7 of ~128 tokens, like MQAR's query keys].
				needles = append(needles, probeItem{length: l, tokens: s.PromptTokens, attentionFrom: len(s.PromptTokens) - 1,
					maxTokens: 6, score: func(g string) float64 { return niah.ScoreMini(s, g) }})
			}
		}
	}
	var copies []probeItem
	for _, l := range c.NeedleLengths {
		ps, err := copyPrompts(tok, l, c.NeedleSamples*len(c.NeedleDepths), copyEvalSeed+uint64(l))
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			copies = append(copies, probeItem{length: l, tokens: p.Tokens, attentionFrom: p.AttentionFrom,
				maxTokens: len(p.Answer) + 3, score: p.score})
		}
	}
	// One generating model per schedule, shared by the probes (its engines and compiled steps are reused).
	gens := map[string]*oryxlm.Model{}
	for _, sched := range schedulesOf(m.Config.Variant) {
		spec := sched
		if sched == "mixed" {
			spec = oryxlm.Mixed
		}
		if gens[sched], err = oryxlm.New(m, ctx, tok, oryxlm.Options{Batch: 8, MaxLength: 4096, Schedule: spec}); err != nil {
			return nil, err
		}
	}
	for _, pr := range []struct {
		name  string
		items []probeItem
		cells func(*ScheduleResult) map[int]needleCell
	}{
		{"needle", needles, func(s *ScheduleResult) map[int]needleCell { return s.Needle }},
		{"copy", copies, func(s *ScheduleResult) map[int]needleCell { return s.Copy }},
	} {
		for _, sched := range schedulesOf(m.Config.Variant) {
			cells, err := runProbe(gens[sched], pr.items)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", pr.name, sched, err)
			}
			line := ""
			for _, l := range c.NeedleLengths {
				pr.cells(&res.Schedules[idx[sched]])[l] = cells[l]
				line += fmt.Sprintf("  %d: %.0f%%", l, 100*cells[l].Score)
			}
			fmt.Fprintf(log, "  %s (%s):%s\n", pr.name, sched, line)
		}
	}

	// Attention fraction of each schedule over the MQAR, needle and copy tokens.
	for i := range res.Schedules {
		s := &res.Schedules[i]
		var a, n float64
		for _, cell := range s.MQARCells {
			a += cell.AttentionFraction * float64(c.MQARExamples)
			n += float64(c.MQARExamples)
		}
		for _, cells := range []map[int]needleCell{s.Needle, s.Copy} {
			for _, cell := range cells {
				a += cell.AttentionFraction * float64(cell.N)
				n += float64(cell.N)
			}
		}
		if n > 0 {
			s.AttentionFraction = a / n
		}
	}

	// Mode-switch curves on held-out text (multi-mixer models).
	if m.Config.Variant.IsMultiMixer() {
		st, err := datasets.OpenStream(datasets.DataSpec{Spec: "synth"}, tok, datasets.SpecStream{SeqLen: c.Train.SeqLen,
			Shuffle: 1, SynthSeed: datasets.AnalysisSynthSeed, Log: io.Discard})
		if err != nil {
			return nil, err
		}
		seqs, err := st.Batch(c.SwitchSequences)
		if err != nil {
			return nil, err
		}
		if res.Switch, err = modeswitch.Run(lm, seqs, c.Train.SeqLen/2); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "  mode switch at %d: recovery attention→linear %d tokens, linear→attention %d tokens\n",
			res.Switch.SwitchAt, res.Switch.Recovery[modeswitch.AttentionToLinear], res.Switch.Recovery[modeswitch.LinearToAttention])
	}
	return res, nil
}

func formatMQAR(rs []mqar.Result) string {
	s := ""
	for _, r := range rs {
		s += fmt.Sprintf("  %s %.1f%% (attn %.1f%%)", r.Schedule, 100*r.Accuracy, 100*r.AttentionFraction)
	}
	return s
}

// probeItem is one generation probe: a prompt, where its question starts (the mixed schedule's switch), how
// many tokens to generate, and how to score the generation (cut at the first ".").
type probeItem struct {
	length, attentionFrom, maxTokens int
	tokens                           []int
	score                            func(generation string) float64
}

// runProbe generates with lm (set to one schedule) for every item and returns the mean score per prompt
// length.
func runProbe(lm *oryxlm.Model, items []probeItem) (map[int]needleCell, error) {
	reqs := make([]harness.GenRequest, len(items))
	for i, it := range items {
		reqs[i] = harness.GenRequest{Context: it.tokens, AttentionFrom: it.attentionFrom, MaxTokens: it.maxTokens, Until: []string{"."}}
	}
	gen, err := lm.GenerateUntil(reqs, nil)
	if err != nil {
		return nil, err
	}
	byLen := map[int][]float64{}
	attn, tot := map[int]int{}, map[int]int{}
	for i, it := range items {
		byLen[it.length] = append(byLen[it.length], it.score(harness.CutAtStop(gen[i].Text, []string{"."})))
		attn[it.length] += gen[i].AttentionTokens
		tot[it.length] += gen[i].TotalTokens
	}
	out := map[int]needleCell{}
	for l, xs := range byLen {
		out[l] = needleCell{harness.Mean(xs), harness.MeanStderr(xs), len(xs), float64(attn[l]) / float64(max(tot[l], 1))}
	}
	return out, nil
}
