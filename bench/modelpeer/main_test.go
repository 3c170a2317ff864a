package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRows(t *testing.T) {
	rows, err := parseRows(DefaultRows)
	require.NoError(t, err)
	require.Len(t, rows, 12)
	require.Equal(t, row{kind: "train", preset: "tiny", batch: 32, n: 128}, rows[0])
	require.Equal(t, row{kind: "decode", preset: "small", batch: 1, n: 16384}, rows[6])
	require.Equal(t, row{kind: "train", preset: "130m", batch: 4, n: 512}, rows[7])
	require.Equal(t, row{kind: "decode", preset: "130m", batch: 1, n: 16384}, rows[11])
	for _, r := range rows {
		again, err := parseRows(r.String())
		require.NoError(t, err)
		require.Equal(t, []row{r}, again, "String parses back")
	}
	for spec, want := range map[string]string{
		"train:tiny":        "is not KIND:PRESET:SHAPE",
		"train:tiny:128":    "a training shape is BxT",
		"score:tiny:128":    "kind must be train, prefill or decode",
		"decode:small:-5":   "bad shape",
		"prefill:huge:2048": "unknown preset",
	} {
		_, err := parseRows(spec)
		require.ErrorContains(t, err, want, spec)
	}
}
