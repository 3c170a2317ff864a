package datasets

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/require"
)

func TestMixtureComponents(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	s, err := newMixSource("mix:synth=1,mqar=1,needle=1,pairs=8", tok, 160, 3, nil, io.Discard)
	require.NoError(t, err)
	seqs, err := s.Batch(60)
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, q := range seqs {
		require.Len(t, q, 161)
		switch {
		case q[0] >= MQARTokenOffset:
			kinds["mqar"]++
			for _, id := range q {
				require.GreaterOrEqual(t, id, int32(MQARTokenOffset))
			}
		case strings.Contains(tok.Decode(toInts(q)), "magic number"):
			kinds["needle"]++
		default:
			kinds["synth"]++
		}
	}
	require.Len(t, kinds, 3, "%v", kinds)
	_, err = newMixSource("mix:needle=1", tok, 64, 3, nil, io.Discard)
	require.ErrorContains(t, err, "too short")
	for _, bad := range []string{"mix:", "mix:synth=x", "mix:foo=1", "mix:synth=0", "mix:mqar=1,pairs=60"} {
		_, err := newMixSource(bad, tok, 160, 3, nil, io.Discard)
		require.Error(t, err, bad)
	}
}

func toInts(x []int32) []int {
	out := make([]int, len(x))
	for i, v := range x {
		out[i] = int(v)
	}
	return out
}

// TestMixtureLossMasks: loss=answers (the default) masks MQAR rows to their queried values and needle rows
// to the answer; language rows train everywhere; loss=all masks nothing; the sequences are the same.
func TestMixtureLossMasks(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	const T = 160
	s, err := newMixSource("mix:synth=1,mqar=1,needle=1,pairs=8", tok, T, 3, nil, io.Discard)
	require.NoError(t, err)
	seqs, masks, err := s.MaskedBatch(60)
	require.NoError(t, err)
	all, err := newMixSource("mix:synth=1,mqar=1,needle=1,pairs=8,loss=all", tok, T, 3, nil, io.Discard)
	require.NoError(t, err)
	seqsAll, masksAll, err := all.MaskedBatch(60)
	require.NoError(t, err)
	require.Equal(t, seqs, seqsAll, "the mask does not change the data")
	kinds := map[string]int{}
	for i, q := range seqs {
		require.Nil(t, masksAll[i])
		m := masks[i]
		text := tok.Decode(toInts(q))
		switch {
		case q[0] >= MQARTokenOffset:
			kinds["mqar"]++
			require.Len(t, m, T)
			n := 0
			for j, on := range m {
				if !on {
					continue
				}
				n++
				// A query key (a key id) whose target is the value it was paired with at the start.
				key := q[j] - MQARTokenOffset
				require.True(t, key >= 1 && key < MQARVocab/2, "row %d pos %d: %d is not a key", i, j, key)
				found := false
				for k := 0; k < j; k += 2 {
					if q[k] == q[j] {
						require.Equal(t, q[k+1], q[j+1], "row %d: the masked target is the key's value", i)
						found = true
						break
					}
				}
				require.True(t, found, "row %d pos %d: query key never presented", i, j)
			}
			require.Greater(t, n, 0)
		case strings.Contains(text, "magic number"):
			kinds["needle"]++
			require.Len(t, m, T)
			var ans []int
			for j, on := range m {
				if on {
					ans = append(ans, int(q[j+1]))
				}
			}
			got := tok.Decode(ans)
			require.Regexp(t, `^ [0-9]{4}\.$`, got, "row %d: the masked targets are the answer", i)
			require.Contains(t, text, "is"+got, "row %d", i)
		default:
			kinds["synth"]++
			require.Nil(t, m, "language rows train every token")
		}
	}
	require.Len(t, kinds, 3, "%v", kinds)
	_, err = newMixSource("mix:mqar=1,loss=some", tok, T, 3, nil, io.Discard)
	require.ErrorContains(t, err, "loss")
}

// TestMixtureValidationSetHeldOut: the validation rows have the training mixture's masks and proportions but
// none of its rows: the language from the validation seed, the examples from MixValSeed.
func TestMixtureValidationSetHeldOut(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	const spec, seqLen, n = "mix:synth=1,mqar=2,needle=1,pairs=8", 128, 64
	val, masks, err := MixtureValidationSet(spec, tok, seqLen, n)
	require.NoError(t, err)
	require.Len(t, val, n)
	again, _, err := MixtureValidationSet(spec, tok, seqLen, n)
	require.NoError(t, err)
	require.Equal(t, val, again, "deterministic")
	src, err := OpenTraining(DataSpec{Spec: spec}, tok, seqLen, 1, nil, io.Discard)
	require.NoError(t, err)
	train, _, err := src.MaskedBatch(4 * n)
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, s := range train {
		seen[fmt.Sprint(s)] = true
	}
	masked := 0
	for i, s := range val {
		require.Len(t, s, seqLen+1)
		require.False(t, seen[fmt.Sprint(s)], "validation row %d is a training row", i)
		if masks[i] != nil {
			masked++
		}
	}
	require.Greater(t, masked, n/2, "about three quarters of the rows are MQAR or needle rows with answer masks")
	require.Less(t, masked, n)
	_, _, err = MixtureValidationSet("mix:nope=1", tok, seqLen, 2)
	require.ErrorContains(t, err, "nope")
}

// TestMixtureSpecRepeatsAndInfiniteWeights: a key or a text component given twice is refused naming it (the
// last one silently won: synth=1,synth=0 drew no synth rows), and weights whose sum overflows are refused (the
// draw then always took the last component, whatever the ratios).
func TestMixtureSpecRepeatsAndInfiniteWeights(t *testing.T) {
	for spec, want := range map[string]string{
		"mix:synth=1,synth=0,mqar=1":                "synth is given twice",
		"mix:synth=1,heldout=0.1,heldout=0.2":       "heldout is given twice",
		"mix:synth=1,loss=all,loss=answers":         "loss is given twice",
		"mix:synth=1,pairs=8,pairs=16":              "pairs is given twice",
		"mix:text:a.txt=1,synth=1,text:a.txt=2":     "text:a.txt is given twice",
		"mix:synth=1e308,text:a.txt=1e308":          "weights sum to more than a float64 holds",
		"mix:synth=1.7e308,mqar=1.7e308,needle=1.0": "weights sum to more than a float64 holds",
	} {
		_, err := parseMix(spec)
		require.ErrorContains(t, err, want, spec)
		require.ErrorContains(t, err, spec, spec)
	}
	// Distinct components and keys still parse.
	m, err := parseMix("mix:synth=1,mqar=2,text:a.txt=1,text:b.txt=1,heldout=0.2,pairs=8,loss=all")
	require.NoError(t, err)
	require.Len(t, m.texts, 2)
	require.Equal(t, 0.2, m.heldout)
}
