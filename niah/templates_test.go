package niah

import (
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/require"
)

// The golden strings below are written out from docs/evals.md §5 and RULER's constants.py, not
// built from the package's constants.

func TestSingleNeedlePromptGolden(t *testing.T) {
	got := formatPrompt("numbers", "HAYSTACK", "able-anchor", 1).String()
	want := "A special magic number is hidden within the following text. Make sure to memorize it. I will quiz you " +
		"about the number afterwards.\nHAYSTACK\nWhat is the special magic number for able-anchor mentioned in the " +
		"provided text? The special magic number for able-anchor mentioned in the provided text is"
	require.Equal(t, want, got)

	got = formatPrompt("uuids", "HAYSTACK", "able-anchor", 1).String()
	want = "A special magic uuid is hidden within the following text. Make sure to memorize it. I will quiz you " +
		"about the uuid afterwards.\nHAYSTACK\nWhat is the special magic uuid for able-anchor mentioned in the " +
		"provided text? The special magic uuid for able-anchor mentioned in the provided text is"
	require.Equal(t, want, got)
}

func TestPluralPromptGolden(t *testing.T) {
	// Several asked values (not one of the four tasks, but RULER's general template) keep the plural.
	got := formatPrompt("numbers", "CTX", queryText([]string{"a-b", "c-d", "e-f"}), 3).String()
	want := "Some special magic numbers are hidden within the following text. Make sure to memorize it. I will quiz " +
		"you about the numbers afterwards.\nCTX\nWhat are all the special magic numbers for a-b, c-d, and e-f " +
		"mentioned in the provided text? The special magic numbers for a-b, c-d, and e-f mentioned in the " +
		"provided text are"
	require.Equal(t, want, got)
}

func TestPromptPartsAndPlaceholders(t *testing.T) {
	// The context is never scanned for placeholders, and singularisation does not touch it.
	p := formatPrompt("numbers", "Some are {query} {type_needle_v}", "k-x", 1)
	require.True(t, strings.HasSuffix(p.head, "\nSome are {query} {type_needle_v}\n"), p.head)
	require.Equal(t, "What is the special magic number for k-x mentioned in the provided text? The special magic "+
		"number for k-x mentioned in the provided text is", p.question)
	require.Equal(t, "A special magic number is hidden within the following text. Make sure to memorize it. I "+
		"will quiz you about the number afterwards.\n", strings.TrimSuffix(p.head, "Some are {query} {type_needle_v}\n"))
}

func TestNeedleGolden(t *testing.T) {
	// The type stays plural in the needle, even for single-needle tasks.
	require.Equal(t, "One of the special magic numbers for able-anchor is: 1234567.",
		formatNeedle("numbers", "able-anchor", "1234567"))
	require.Equal(t, "One of the special magic uuids for x-y is: 16419f82-8b9d-4434-a465-e150bd9c66b3.",
		formatNeedle("uuids", "x-y", "16419f82-8b9d-4434-a465-e150bd9c66b3"))
	require.Equal(t, "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.",
		NoiseSentence)
}

// TestGeneratedPromptShape checks the template of every task on generated samples: the prompt's start and
// end, the needle sentences, the answer, and QuestionStart.
func TestGeneratedPromptShape(t *testing.T) {
	essays := fixtureEssays(t, 1500)
	tok := tokenizers.NewByteTokenizer()
	for _, task := range Tasks() {
		cfg := Config{Task: task, Lengths: []int{2048}, SamplesPerCell: 3, Seed: 7, EssaysPath: essays}
		ss, err := Generate(cfg, tok)
		require.NoError(t, err)
		require.Len(t, ss, 3)
		spec, _ := task.Spec()
		typ := strings.TrimSuffix(spec.ValueType, "s")
		for _, s := range ss {
			require.Len(t, s.Answers, 1)
			require.True(t, strings.HasPrefix(s.Prompt, "A special magic "+typ+" is hidden within the following "+
				"text. Make sure to memorize it. I will quiz you about the "+typ+" afterwards.\n"), s.Prompt[:120])
			question := "What is the special magic " + typ + " for " + s.Query + " mentioned in the provided text? " +
				"The special magic " + typ + " for " + s.Query + " mentioned in the provided text is"
			require.True(t, strings.HasSuffix(s.Prompt, "\n"+question))
			require.Equal(t, question, tok.Decode(s.PromptTokens[s.QuestionStart:]))
			require.Len(t, s.Needles, spec.NumKeys)
			needle := "One of the special magic " + spec.ValueType + " for " + s.Query + " is: " + s.Answers[0] + "."
			require.Contains(t, s.Needles, needle)
			require.Equal(t, 1, strings.Count(s.Prompt, needle))
			require.True(t, strings.HasPrefix(tok.Decode(s.PromptTokens[s.NeedleToken:]), needle))
			for _, n := range s.Needles {
				require.True(t, strings.HasPrefix(n, "One of the special magic "+spec.ValueType+" for "), n)
				require.Contains(t, s.Prompt, n)
			}
			if spec.ValueType == NeedleNumbers {
				require.Regexp(t, `^[1-9][0-9]{6}$`, s.Answers[0])
			} else {
				require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, s.Answers[0])
			}
			require.Regexp(t, `^[a-z]+-[a-z]+$`, s.Query) // fallback word lists
		}
	}
}
