package probes

import (
	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/oryx-go/oryx/niah"
)

// GenProbe is one prompt of a generation probe (the mini needle, the copy probe): the prompt, where its
// question starts (the mixed schedule's switch to attention, oryxlm.Mixed), how many tokens to generate, and
// how to score the generation, cut at its first ".".
type GenProbe struct {
	Length        int // the prompt length the item is reported under
	Tokens        []int
	AttentionFrom int
	MaxTokens     int
	Score         func(generation string) float64
}

// ProbeScore is a generation probe's result at one prompt length: the mean score, its standard error, the
// number of prompts and the fraction of the tokens run (prompts and generations) in attention mode.
type ProbeScore struct {
	Score             float64 `json:"score"`
	StdErr            float64 `json:"stderr"`
	N                 int     `json:"n"`
	AttentionFraction float64 `json:"attention_fraction"`
}

// RunGenProbe generates greedily with lm (in its schedule: an oryxlm.Model) for every item, up to the first
// "." or the item's MaxTokens, and returns the scores by prompt length.
func RunGenProbe(lm harness.Model, items []GenProbe) (map[int]ProbeScore, error) {
	reqs := make([]harness.GenRequest, len(items))
	for i, it := range items {
		reqs[i] = harness.GenRequest{Context: it.Tokens, AttentionFrom: it.AttentionFrom, MaxTokens: it.MaxTokens, Until: []string{"."}}
	}
	gen, err := lm.GenerateUntil(reqs, nil)
	if err != nil {
		return nil, err
	}
	byLen := map[int][]float64{}
	attn, tot := map[int]int{}, map[int]int{}
	for i, it := range items {
		byLen[it.Length] = append(byLen[it.Length], it.Score(harness.CutAtStop(gen[i].Text, []string{"."})))
		attn[it.Length] += gen[i].AttentionTokens
		tot[it.Length] += gen[i].TotalTokens
	}
	out := map[int]ProbeScore{}
	for l, xs := range byLen {
		out[l] = ProbeScore{harness.Mean(xs), harness.MeanStderr(xs), len(xs), float64(attn[l]) / float64(max(tot[l], 1))}
	}
	return out, nil
}

// MiniNeedleAnswerTokens is how many tokens the mini-needle probe generates (the answer " 4821." and room).
const MiniNeedleAnswerTokens = 6

// MiniNeedleProbe builds the mini needle-in-a-haystack probe (datasets.MiniNeedle, scored by
// niah.ScoreMini): samples prompts per length and depth, numbered in that order from 0 with seed.
//
// The mixed schedule reads the prompt's last token and the generated answer in attention, everything before
// in linear mode [choice: at a tiny model's training length, 128 bytes, the answer prefix
// " A: the magic number for <key> is" alone would be ~30 % of the tokens; from the last token on, 7 of ~128
// tokens, like MQAR's query keys].
func MiniNeedleProbe(tok tokenizers.Tokenizer, lengths []int, depths []float64, samples int, seed uint64) ([]GenProbe, error) {
	var out []GenProbe
	for _, l := range lengths {
		for _, d := range depths {
			for i := 0; i < samples; i++ {
				s, err := datasets.GenerateMiniNeedle(tok, l, d, seed, len(out))
				if err != nil {
					return nil, err
				}
				out = append(out, GenProbe{Length: l, Tokens: s.PromptTokens, AttentionFrom: len(s.PromptTokens) - 1,
					MaxTokens: MiniNeedleAnswerTokens, Score: func(g string) float64 { return niah.ScoreMini(s, g) }})
			}
		}
	}
	return out, nil
}

// CopyProbe builds the copy probe (CopyPrompts): n prompts per length, from seed + length.
func CopyProbe(tok tokenizers.Tokenizer, lengths []int, n int, seed uint64) ([]GenProbe, error) {
	var out []GenProbe
	for _, l := range lengths {
		ps, err := CopyPrompts(tok, l, n, seed+uint64(l))
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			out = append(out, GenProbe{Length: l, Tokens: p.Tokens, AttentionFrom: p.AttentionFrom,
				MaxTokens: len(p.Answer) + 3, Score: p.Score})
		}
	}
	return out, nil
}
