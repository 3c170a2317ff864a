package datasets

import (
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
