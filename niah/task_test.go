package niah

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseTask(t *testing.T) {
	for name, want := range map[string]Task{
		"niah_single_1": SNIAH1, "S-NIAH-1": SNIAH1, "s_niah_2": SNIAH2, "NIAH_SINGLE_3": SNIAH3,
		"mk-niah-1": MKNIAH1, " niah_multikey_1 ": MKNIAH1,
	} {
		got, err := ParseTask(name)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
	}
	_, err := ParseTask("niah_multikey_2")
	require.Error(t, err)
	for _, task := range Tasks() {
		require.Contains(t, err.Error(), string(task))
		require.Contains(t, err.Error(), task.Paper())
	}
	require.Equal(t, []Task{SNIAH1, SNIAH2, SNIAH3, MKNIAH1}, Tasks())
	spec, ok := MKNIAH1.Spec()
	require.True(t, ok)
	require.Equal(t, TaskSpec{MKNIAH1, "MK-NIAH-1", HaystackEssay, NeedleWords, NeedleNumbers, 4, 1, 1}, spec)
	_, ok = Task("x").Spec()
	require.False(t, ok)
}

func TestUnknownTaskInConfig(t *testing.T) {
	_, err := Generate(Config{Task: "niah_foo", Lengths: []int{1024}, SamplesPerCell: 1}, nil)
	require.ErrorContains(t, err, "niah_single_1")
}
