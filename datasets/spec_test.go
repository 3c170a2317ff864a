package datasets

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/require"
)

// TestSpecSynthSeed: "synth" reads the caller's seed, "synth:N" overrides it, and both equal the
// synthetic language of that seed packed in source order.
func TestSpecSynthSeed(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	read := func(spec string, seed uint64) [][]int32 {
		s, err := OpenStream(DataSpec{Spec: spec}, tok, SpecStream{SeqLen: 32, Shuffle: 1, SynthSeed: seed, Log: io.Discard})
		require.NoError(t, err)
		seqs, err := s.Batch(4)
		require.NoError(t, err)
		return seqs
	}
	src, err := NewSynthLangSource(SynthLangConfig{Seed: AnalysisSynthSeed}, 0)
	require.NoError(t, err)
	direct, err := NewStream(StreamConfig{SeqLen: 32, ShuffleBuffer: 1, Log: io.Discard}, src, tok)
	require.NoError(t, err)
	want, err := direct.Batch(4)
	require.NoError(t, err)
	require.Equal(t, want, read("synth", AnalysisSynthSeed))
	require.Equal(t, want, read("synth:3", TrainSynthSeed))
	require.NotEqual(t, want, read("synth", TrainSynthSeed))
}

func TestSpecErrors(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	o := SpecStream{SeqLen: 32, Log: io.Discard}
	_, err := OpenStream(DataSpec{}, tok, o)
	require.ErrorContains(t, err, "--data is empty")
	_, err = OpenStream(DataSpec{Spec: "synth:x"}, tok, o)
	require.ErrorContains(t, err, "want synth or synth:SEED")
	_, err = OpenStream(DataSpec{Spec: filepath.Join(t.TempDir(), "none-*.parquet")}, tok, o)
	require.ErrorContains(t, err, `(column "text")`)
	_, err = OpenTraining(DataSpec{Spec: "mix:foo=1"}, tok, 64, 1, nil, io.Discard)
	require.ErrorContains(t, err, `unknown key "foo"`)
}
