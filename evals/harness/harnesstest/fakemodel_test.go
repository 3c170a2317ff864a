package harnesstest

import (
	"math"
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFakeModelByHand(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	m := NewFakeModel(tok)
	stay, other := math.Log(0.5), math.Log(0.5/257)
	res, err := m.LogLikelihood([]harness.LLRequest{
		{Context: tok.Encode("a"), Continuation: tok.Encode("aab"), AttentionFrom: 1},
		{Context: tok.Encode("xy"), Continuation: tok.Encode("yy"), AttentionFrom: 4},
	}, nil)
	require.NoError(t, err)
	assert.InDelta(t, 2*stay+other, res[0].LogLikelihood, 1e-12)
	assert.False(t, res[0].IsGreedy)
	assert.Equal(t, 3, res[0].Tokens)
	assert.Equal(t, 2, res[0].AttentionTokens)
	assert.InDelta(t, 2*stay, res[1].LogLikelihood, 1e-12)
	assert.True(t, res[1].IsGreedy)
	assert.Equal(t, 0, res[1].AttentionTokens)
	// Requests the harness must never send are errors.
	_, err = m.LogLikelihood([]harness.LLRequest{{Continuation: []int{1}}}, nil)
	assert.Error(t, err)
	m.MaxLen = 3
	_, err = m.LogLikelihood([]harness.LLRequest{{Context: []int{1, 2, 3}, Continuation: []int{1, 2}}}, nil)
	assert.ErrorContains(t, err, "max length")
}

func TestFakeModelGenerationStops(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	m := NewFakeModel(tok)
	res, err := m.GenerateUntil([]harness.GenRequest{{Context: tok.Encode("ab"), MaxTokens: 3, AttentionFrom: 5}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "bbb", res[0].Text) // greedy repeat of the last token
	m.Generate = func(string) string { return "x<|endoftext|>y" }
	res, err = m.GenerateUntil([]harness.GenRequest{{Context: tok.Encode("ab"), MaxTokens: 8, AttentionFrom: 0}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "x", res[0].Text) // stops at EOS
	assert.Equal(t, 2, res[0].TotalTokens)
	assert.Equal(t, 2, res[0].AttentionTokens)
}
