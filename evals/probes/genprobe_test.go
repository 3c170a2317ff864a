package probes

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness/harnesstest"
)

func TestCopyPrompts(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	ps, err := CopyPrompts(tok, 128, 5, 1)
	require.NoError(t, err)
	require.Len(t, ps, 5)
	for _, p := range ps {
		require.Len(t, p.Tokens, 128)
		text := tok.Decode(p.Tokens)
		require.True(t, strings.HasSuffix(text, "\ncopy: "+p.Answer+" ="), text)
		require.Equal(t, " =", tok.Decode(p.Tokens[p.AttentionFrom:]))
		require.Equal(t, 1.0, p.Score(" "+p.Answer+"."))
		require.Equal(t, 0.0, p.Score(" zz"))
	}
}

// TestGenProbes: the probes hold the prompts their generators make (the needles numbered across lengths and
// depths, the copies seeded by length), and RunGenProbe's scores, counts and attention fractions are those
// computed by hand for a scripted model that answers the 122-token needles right and the 160-token ones wrong.
func TestGenProbes(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	lengths, depths := []int{122, 160}, []float64{0, 1}
	needles, err := MiniNeedleProbe(tok, lengths, depths, 2, 78)
	require.NoError(t, err)
	require.Len(t, needles, 8)
	values := map[string]string{} // prompt → value
	i := 0
	for _, l := range lengths {
		for _, d := range depths {
			for range 2 {
				s, err := datasets.GenerateMiniNeedle(tok, l, d, 78, i)
				require.NoError(t, err)
				it := needles[i]
				require.Equal(t, l, it.Length)
				require.Equal(t, s.PromptTokens, it.Tokens)
				require.LessOrEqual(t, len(it.Tokens), l)
				require.Equal(t, len(it.Tokens)-1, it.AttentionFrom)
				require.Equal(t, MiniNeedleAnswerTokens, it.MaxTokens)
				require.Equal(t, 1.0, it.Score(" "+s.Value))
				values[s.Prompt] = s.Value
				i++
			}
		}
	}
	copies, err := CopyProbe(tok, lengths, 3, 7900)
	require.NoError(t, err)
	require.Len(t, copies, 6)
	for j, l := range lengths {
		ps, err := CopyPrompts(tok, l, 3, 7900+uint64(l))
		require.NoError(t, err)
		for k, p := range ps {
			it := copies[3*j+k]
			require.Equal(t, l, it.Length)
			require.Equal(t, p.Tokens, it.Tokens)
			require.Equal(t, p.AttentionFrom, it.AttentionFrom)
			require.Equal(t, len(p.Answer)+3, it.MaxTokens)
		}
	}

	m := harnesstest.NewFakeModel(tok)
	promptLen := map[string]int{} // prompt → its length class
	for _, it := range needles {
		promptLen[tok.Decode(it.Tokens)] = it.Length
	}
	m.Generate = func(prompt string) string {
		if promptLen[prompt] == 122 {
			return " " + values[prompt] + ". more" // cut to 6 tokens: " 4821."
		}
		return " zz"
	}
	got, err := RunGenProbe(m, needles)
	require.NoError(t, err)
	// 122: 6 tokens generated, n + 5 run for an n-token prompt, of which the last prompt token and the 5 fed
	// back are in attention; 160: 3 generated, n + 2 run, 3 in attention.
	ran := map[int]int{}
	for _, it := range needles {
		ran[it.Length] += len(it.Tokens) + map[int]int{122: 5, 160: 2}[it.Length]
	}
	require.Equal(t, map[int]ProbeScore{
		122: {Score: 1, StdErr: 0, N: 4, AttentionFraction: 4 * 6.0 / float64(ran[122])},
		160: {Score: 0, StdErr: 0, N: 4, AttentionFraction: 4 * 3.0 / float64(ran[160])},
	}, got)
	for _, r := range m.GenSeen {
		require.Equal(t, []string{"."}, r.Until)
	}
}
