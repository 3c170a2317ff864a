package niah

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPostprocess(t *testing.T) {
	require.Equal(t, "a\nb\nc", Postprocess("  a\tb\x00c \n"))
	require.Equal(t, "x", Postprocess("\x01\u3000x\x1f"))
	require.Equal(t, "", Postprocess(" \n\t "))
}

func TestScore(t *testing.T) {
	one := Sample{Answers: []string{"8038374"}}
	require.Equal(t, 1.0, Score(one, " 8038374."))
	require.Equal(t, 1.0, Score(one, "The number is 80383745"), "substring match, as RULER")
	require.Equal(t, 0.0, Score(one, "803 8374"))
	require.Equal(t, 0.0, Score(one, ""))

	uuid := Sample{Answers: []string{"16419f82-8b9d-4434-a465-e150bd9c66b3"}}
	require.Equal(t, 1.0, Score(uuid, "It is 16419F82-8B9D-4434-A465-E150BD9C66B3\n"), "case-insensitive")
	require.Equal(t, 0.0, Score(uuid, "16419f82-8b9d-4434-a465"))

	// string_match_all: the fraction of values found.
	multi := Sample{Answers: []string{"1111111", "2222222", "Three-Four", "5555555"}}
	require.Equal(t, 0.5, Score(multi, "2222222 and three-four"))
	require.Equal(t, 0.25, Score(multi, "1111111"))
	require.Equal(t, 1.0, Score(multi, "5555555 THREE-FOUR 1111111 2222222"))
	require.Equal(t, 0.0, Score(Sample{}, "anything"))
	require.Equal(t, 0.5, StringMatchAll([]string{"a", "b"}, "A"))
}
