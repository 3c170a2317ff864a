package datasets

import (
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"
)

// checkMQAR verifies the documented structure of ex.
func checkMQAR(t *testing.T, cfg MQARConfig, ex MQARExample) {
	t.Helper()
	T, P, Q, V := cfg.SeqLen, cfg.NumPairs, cfg.NumQueries, cfg.Vocab
	if Q == 0 {
		Q = P
	}
	half := int32(V / 2)
	require.Len(t, ex.Tokens, T+1)
	require.Len(t, ex.TargetMask, T)
	require.Len(t, ex.KeyPositions, P)
	require.Len(t, ex.QueryPositions, Q)
	valueOf := map[int32]int32{}
	seenVal := map[int32]bool{}
	for p, pos := range ex.KeyPositions {
		require.Equal(t, 2*p, pos)
		k, v := ex.Tokens[pos], ex.Tokens[pos+1]
		require.True(t, k >= 1 && k < half, "key %d", k)
		require.True(t, v >= half && v < int32(V), "value %d", v)
		_, dup := valueOf[k]
		require.False(t, dup, "duplicate key %d", k)
		require.False(t, seenVal[v], "duplicate value %d", v)
		valueOf[k], seenVal[v] = v, true
	}
	isQuery := map[int]bool{}
	asked := map[int32]int{}
	for i, pos := range ex.QueryPositions {
		if i > 0 {
			require.Greater(t, pos, ex.QueryPositions[i-1])
		}
		require.GreaterOrEqual(t, pos, 2*P)
		require.Equal(t, 0, (pos-2*P)%2, "queries on slot boundaries")
		require.Less(t, pos+1, T, "the value is an input too")
		k := ex.Tokens[pos]
		v, ok := valueOf[k]
		require.True(t, ok, "query key %d was presented", k)
		require.Equal(t, v, ex.Tokens[pos+1], "value follows its query key")
		require.Equal(t, v, ex.Targets()[pos], "the masked target is the value")
		isQuery[pos] = true
		asked[k]++
	}
	// Each key asked ⌊Q/P⌋ or ⌈Q/P⌉ times.
	for k := range valueOf {
		n := asked[k]
		require.True(t, n == Q/P || n == (Q+P-1)/P, "key %d asked %d times", k, n)
	}
	for i, m := range ex.TargetMask {
		require.Equal(t, isQuery[i], m, "mask at %d", i)
	}
	if !cfg.NoiseFiller {
		for i, tok := range ex.Tokens {
			if i < 2*P || isQuery[i] || (i > 0 && isQuery[i-1]) {
				continue
			}
			require.Equal(t, int32(MQARFiller), tok, "filler at %d", i)
		}
	} else {
		for _, tok := range ex.Tokens {
			require.True(t, tok >= 0 && tok < int32(V))
		}
	}
}

func TestMQARStructure(t *testing.T) {
	for _, cfg := range []MQARConfig{
		{Vocab: 8192, SeqLen: 256, NumPairs: 16, Seed: 1},              // Zoology-like, large key space (sparse sampling)
		{Vocab: 40, SeqLen: 64, NumPairs: 19, NumQueries: 7, Seed: 2},  // every key used, few queries
		{Vocab: 64, SeqLen: 100, NumPairs: 4, NumQueries: 45, Seed: 3}, // queries cycle over keys
		{Vocab: 64, SeqLen: 33, NumPairs: 8, NumQueries: 8, Seed: 4, PowerA: 1},
		{Vocab: 100, SeqLen: 128, NumPairs: 8, NoiseFiller: true, Seed: 5},
	} {
		exs, err := GenerateMQAR(cfg, 50)
		require.NoError(t, err)
		for _, ex := range exs {
			checkMQAR(t, cfg, ex)
		}
	}
}

func TestMQARDeterministicByIndex(t *testing.T) {
	cfg := MQARConfig{Vocab: 512, SeqLen: 128, NumPairs: 8, Seed: 42}
	exs, err := GenerateMQAR(cfg, 20)
	require.NoError(t, err)
	g, err := NewMQARGenerator(cfg)
	require.NoError(t, err)
	for _, i := range []int{19, 3, 0, 7} {
		require.Equal(t, exs[i], g.Example(uint64(i)))
	}
	require.NotEqual(t, exs[0].Tokens, exs[1].Tokens)
	cfg.Seed = 43
	other, err := GenerateMQAR(cfg, 1)
	require.NoError(t, err)
	require.NotEqual(t, exs[0].Tokens, other[0].Tokens)
}

func TestMQARPowerLawPlacement(t *testing.T) {
	// a = 0.01 puts queries nearer the context than a = 1 (uniform).
	meanSlot := func(a float64) float64 {
		cfg := MQARConfig{Vocab: 256, SeqLen: 512, NumPairs: 8, PowerA: a, Seed: 9}
		exs, err := GenerateMQAR(cfg, 300)
		require.NoError(t, err)
		sum, n := 0.0, 0
		for _, ex := range exs {
			for _, pos := range ex.QueryPositions {
				sum += float64(pos-2*cfg.NumPairs) / 2
				n++
			}
		}
		return sum / float64(n)
	}
	near, uniform := meanSlot(0.01), meanSlot(1)
	space := float64(512-16) / 2
	t.Logf("mean query slot of %v: power law a=0.01 %.1f, uniform %.1f", space, near, uniform)
	require.InDelta(t, (space-1)/2, uniform, space*0.05)
	require.Less(t, near, uniform*0.8)
}

func TestMQARConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		cfg   MQARConfig
		field string
	}{
		{MQARConfig{Vocab: 64, SeqLen: 64, NumPairs: 0}, "NumPairs"},
		{MQARConfig{Vocab: 64, SeqLen: 64, NumPairs: 4, NumQueries: -1}, "NumQueries"},
		{MQARConfig{Vocab: 2, SeqLen: 64, NumPairs: 1}, "Vocab"},
		{MQARConfig{Vocab: 16, SeqLen: 64, NumPairs: 8}, "Vocab"}, // only 7 keys
		{MQARConfig{Vocab: 64, SeqLen: 0, NumPairs: 4}, "SeqLen"},
		{MQARConfig{Vocab: 64, SeqLen: 15, NumPairs: 4}, "SeqLen"}, // 2·4 + 2·4 = 16 > 15
		{MQARConfig{Vocab: 64, SeqLen: 64, NumPairs: 4, PowerA: -1}, "PowerA"},
	} {
		_, err := GenerateMQAR(tc.cfg, 1)
		require.ErrorContains(t, err, "MQARConfig."+tc.field, "%+v", tc.cfg)
	}
	// The tightest fit is valid.
	exs, err := GenerateMQAR(MQARConfig{Vocab: 18, SeqLen: 16, NumPairs: 4}, 10)
	require.NoError(t, err)
	for _, ex := range exs {
		checkMQAR(t, MQARConfig{Vocab: 18, SeqLen: 16, NumPairs: 4}, ex)
	}
}

func TestMQARParquet(t *testing.T) {
	cfg := MQARConfig{Vocab: 128, SeqLen: 64, NumPairs: 6, Seed: 7}
	path := filepath.Join(t.TempDir(), "mqar.parquet")
	const n = 2500 // more than one write batch
	require.NoError(t, WriteMQARParquet(path, cfg, n))
	rows, err := parquet.ReadFile[MQARRow](path)
	require.NoError(t, err)
	require.Len(t, rows, n)
	g, err := NewMQARGenerator(cfg)
	require.NoError(t, err)
	for _, i := range []int{0, 1, 1024, n - 1} {
		ex := g.Example(uint64(i))
		require.Equal(t, ex.Tokens, rows[i].Tokens)
		require.Equal(t, ex.TargetMask, rows[i].Mask)
	}
	require.Error(t, WriteMQARParquet(path, MQARConfig{}, 1))

	// The package's HF parquet reader sees tokens as a list<int32> column.
	set, err := hfparquet.Open(path)
	require.NoError(t, err)
	cols, err := set.Columns(set.Files()[0])
	require.NoError(t, err)
	require.Equal(t, []string{"tokens", "mask"}, cols)
	col, err := set.Int64Lists("tokens")
	require.NoError(t, err)
	defer col.Close()
	first, _, err := col.Next()
	require.NoError(t, err)
	ex := g.Example(0)
	require.Len(t, first, len(ex.Tokens))
	for j := range first {
		require.Equal(t, int64(ex.Tokens[j]), first[j])
	}
}
