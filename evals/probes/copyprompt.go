package probes

import (
	"fmt"
	"strings"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
)

// CopyPrompt is a retrieval probe inside the synthetic language's own distribution: story filler, then a
// copy line whose answer must be copied from earlier in the context —
//
//	<story sentences>\ncopy: kqz mw tjab =
//
// answer " kqz mw tjab." The synthetic language trains the copy task (15 % of its lines), so every model
// has seen the format; copying the random letters needs recall of tokens ~4–30 positions back. Mixed mode
// reads everything up to the "=" in linear mode and from the "=" on (the answer) in attention.
type CopyPrompt struct {
	Length        int
	Tokens        []int
	AttentionFrom int    // token index of " =" (the query)
	Answer        string // "kqz mw tjab"
}

// CopyPrompts builds n prompts of exactly length tokens (byte tokenizer) each, from held-out seeds.
func CopyPrompts(tok tokenizers.Tokenizer, length, n int, seed uint64) ([]CopyPrompt, error) {
	copies, err := datasets.NewSynthLang(datasets.SynthLangConfig{Seed: seed, Mix: datasets.SynthMix{Copy: 1}, MaxLines: 1})
	if err != nil {
		return nil, err
	}
	stories, err := datasets.NewSynthLang(datasets.SynthLangConfig{Seed: seed + 1, Mix: datasets.SynthMix{Story: 1}, MaxLines: 1})
	if err != nil {
		return nil, err
	}
	var out []CopyPrompt
	for i := 0; len(out) < n; i++ {
		line := copies.Document(uint64(i)) // "copy: a b = a b."
		q, ans, ok := strings.Cut(line, " = ")
		if !ok {
			return nil, fmt.Errorf("copy task: unexpected line %q", line)
		}
		query := "\n" + q + " ="
		var filler strings.Builder
		for d := uint64(i) * 100; filler.Len() < length; d++ {
			if filler.Len() > 0 {
				filler.WriteByte(' ')
			}
			filler.WriteString(stories.Document(d))
		}
		keep := length - len(tok.Encode(query))
		if keep < 8 {
			return nil, fmt.Errorf("copy task: length %d too short", length)
		}
		f := filler.String()
		for len(tok.Encode(f)) > keep { // bytes: one step; other tokenizers: trim until it fits
			f = f[len(f)-keep:]
			if i := strings.IndexByte(f, ' '); i >= 0 && len(tok.Encode(f)) > keep {
				f = f[i+1:]
			}
		}
		prompt := f + query
		ids := tok.Encode(prompt)
		out = append(out, CopyPrompt{Length: length, Tokens: ids, AttentionFrom: len(ids) - len(tok.Encode(" =")),
			Answer: strings.TrimSuffix(ans, ".")})
	}
	return out, nil
}

// Score is 1 when the generation begins with the copied words.
func (p CopyPrompt) Score(gen string) float64 {
	if strings.HasPrefix(strings.TrimLeft(gen, " "), p.Answer) {
		return 1
	}
	return 0
}
