package datasets

import (
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/require"
)

func TestMiniNeedle(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	for _, L := range []int{128, 256, 512} {
		for _, d := range []float64{0, 0.5, 1} {
			s, err := GenerateMiniNeedle(tok, L, d, 1, 3)
			require.NoError(t, err)
			require.LessOrEqual(t, len(s.PromptTokens), L)
			require.GreaterOrEqual(t, len(s.PromptTokens), L-12, "within a word of the target")
			require.True(t, strings.HasSuffix(s.Prompt, "the magic number for "+s.Key+" is"))
			require.Contains(t, s.Prompt, "The magic number for "+s.Key+" is "+s.Value+".")
			require.Equal(t, "\nQ:", tok.Decode(s.PromptTokens[s.QuestionStart:s.QuestionStart+3]))
			require.Equal(t, " A: the magic number for "+s.Key+" is", tok.Decode(s.PromptTokens[s.AnswerStart:]))
			require.Equal(t, " The magic", tok.Decode(s.PromptTokens[s.NeedleToken:s.NeedleToken+10]))
			needleLen := len(tok.Encode(" The magic number for " + s.Key + " is " + s.Value + "."))
			frac := float64(s.NeedleToken) / float64(s.QuestionStart-needleLen) // filler before / all filler
			tol := max(0.1, 12/float64(s.QuestionStart-needleLen))              // within about a word
			require.InDelta(t, d, frac, tol, "needle depth (L %d)", L)
		}
	}
	a, _ := GenerateMiniNeedle(tok, 256, 0.5, 1, 3)
	b, _ := GenerateMiniNeedle(tok, 256, 0.5, 1, 3)
	c, _ := GenerateMiniNeedle(tok, 256, 0.5, 2, 3)
	require.Equal(t, a, b)
	require.NotEqual(t, a.Prompt, c.Prompt)
	_, err := GenerateMiniNeedle(tok, 40, 0.5, 1, 0)
	require.ErrorContains(t, err, "too short")
}
