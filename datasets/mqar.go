package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/internal/seedrand"
)

// Multi-query associative recall (MQAR), after Zoology (Arora et al. 2023, "Zoology: Measuring and
// Improving Recall in Efficient Language Models", data/associative_recall.py multiquery_ar).
//
// Vocabulary. Of V ids, 0 is the filler, keys are [1, V/2) and values are [V/2, V) (Zoology's split: key
// 0 is never drawn).
//
// Layout of one example, Tokens of length SeqLen+1 (inputs Tokens[:SeqLen], targets Tokens[1:], the same
// T+1 convention as Stream):
//
//	k1 v1 k2 v2 ... kP vP | query region
//
// NumPairs distinct keys with distinct values come first (positions 0..2P-1, keys at even positions). The
// query region is (SeqLen-2P)/2 two-token slots starting at 2P; NumQueries slots are drawn without
// replacement with probability ∝ (slot+1)^(PowerA-1) (Zoology's power law, a = 0.01 by default: queries
// cluster near the context but reach far), and each chosen slot holds a presented key followed by its value.
// Queried keys are a random permutation of the pairs (cycled when NumQueries > NumPairs, so each key is
// queried ⌊Q/P⌋ or ⌈Q/P⌉ times). Every other position holds the filler 0 (or, with NoiseFiller, a uniform
// random id of [0, V), Zoology's random_non_queries).
//
// Loss and accuracy count only the values after query keys: TargetMask (length SeqLen, aligned with the
// targets Tokens[1:]) is true exactly at the query keys' positions, whose target is the value.
//
// Difference from Zoology: there the queried value is only a label (the input after a query key is
// filler); here it is also written into the sequence, so an example is an ordinary next-token sequence.
// Under causal masking this changes nothing at the masked positions.
//
// Determinism. Example i depends only on (config, i): it is drawn from a PCG seeded by (Seed, i), so any
// example can be regenerated alone, and GenerateMQAR(cfg, n) is examples 0..n-1. Use different seeds (or
// disjoint index ranges) for train and test.

// MQARFiller is the id at positions that are neither pairs nor queries (unless NoiseFiller).
const MQARFiller = 0

// DefaultMQARPowerA is Zoology's power_a, used when MQARConfig.PowerA is 0.
const DefaultMQARPowerA = 0.01

// MQARConfig configures MQAR generation.
type MQARConfig struct {
	// Vocab is V: filler 0, keys [1, V/2), values [V/2, V).
	Vocab int `json:"vocab"`
	// SeqLen is T: Tokens has T+1 ids.
	SeqLen int `json:"seq_len"`
	// NumPairs is the number of key–value pairs presented (P ≥ 1).
	NumPairs int `json:"num_pairs"`
	// NumQueries is the number of queries (Q); 0 means NumPairs (Zoology). 2P + 2Q ≤ T.
	NumQueries int `json:"num_queries"`
	// PowerA shapes where queries fall: slot s (0-based) has weight (s+1)^(PowerA-1); 0 means
	// DefaultMQARPowerA (0.01, near-biased), 1 is uniform.
	PowerA float64 `json:"power_a"`
	// NoiseFiller fills unused positions with uniform random ids of [0, V) instead of MQARFiller.
	NoiseFiller bool `json:"noise_filler"`
	// Seed seeds every example (with its index).
	Seed uint64 `json:"seed"`
}

func (cfg MQARConfig) normalized() (MQARConfig, error) {
	if cfg.NumQueries == 0 {
		cfg.NumQueries = cfg.NumPairs
	}
	if cfg.PowerA == 0 {
		cfg.PowerA = DefaultMQARPowerA
	}
	switch {
	case cfg.NumPairs < 1:
		return cfg, fmt.Errorf("datasets: MQARConfig.NumPairs = %d: must be ≥ 1", cfg.NumPairs)
	case cfg.NumQueries < 1:
		return cfg, fmt.Errorf("datasets: MQARConfig.NumQueries = %d: must be ≥ 1 (0 = NumPairs)", cfg.NumQueries)
	case cfg.Vocab < 4 || cfg.Vocab > math.MaxInt32:
		return cfg, fmt.Errorf("datasets: MQARConfig.Vocab = %d: must be in [4, 2^31)", cfg.Vocab)
	case cfg.Vocab/2-1 < cfg.NumPairs:
		return cfg, fmt.Errorf("datasets: MQARConfig.Vocab = %d: only %d keys ([1, V/2)) for NumPairs = %d distinct keys",
			cfg.Vocab, cfg.Vocab/2-1, cfg.NumPairs)
	case cfg.SeqLen < 1:
		return cfg, fmt.Errorf("datasets: MQARConfig.SeqLen = %d: must be ≥ 1", cfg.SeqLen)
	case 2*cfg.NumPairs+2*cfg.NumQueries > cfg.SeqLen:
		return cfg, fmt.Errorf("datasets: MQARConfig.SeqLen = %d: too short for NumPairs = %d and NumQueries = %d (need 2·NumPairs + 2·NumQueries ≤ SeqLen)",
			cfg.SeqLen, cfg.NumPairs, cfg.NumQueries)
	case math.IsNaN(cfg.PowerA) || math.IsInf(cfg.PowerA, 0) || cfg.PowerA < 0:
		return cfg, fmt.Errorf("datasets: MQARConfig.PowerA = %v: must be > 0 (0 = %v)", cfg.PowerA, DefaultMQARPowerA)
	}
	return cfg, nil
}

// MQARExample is one MQAR sequence.
type MQARExample struct {
	// Tokens has SeqLen+1 ids: inputs Tokens[:SeqLen], targets Tokens[1:].
	Tokens []int32 `json:"tokens"`
	// TargetMask has SeqLen entries aligned with the targets: true where the target is a queried value
	// (i.e. at the query keys' positions).
	TargetMask []bool `json:"target_mask"`
	// KeyPositions are the positions in Tokens of the presented keys (0, 2, ..., 2P-2); each key's value
	// follows it.
	KeyPositions []int `json:"key_positions"`
	// QueryPositions are the positions in Tokens of the query keys, ascending; each query's value follows
	// it, and TargetMask is true exactly there.
	QueryPositions []int `json:"query_positions"`
}

// Inputs returns Tokens[:SeqLen].
func (e MQARExample) Inputs() []int32 { return e.Tokens[:len(e.Tokens)-1] }

// Targets returns Tokens[1:].
func (e MQARExample) Targets() []int32 { return e.Tokens[1:] }

// MQARGenerator makes MQAR examples by index.
type MQARGenerator struct {
	cfg     MQARConfig
	weights []float64 // slot weights, (s+1)^(a-1)
}

// NewMQARGenerator validates cfg and returns a generator.
func NewMQARGenerator(cfg MQARConfig) (*MQARGenerator, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	space := (cfg.SeqLen - 2*cfg.NumPairs) / 2
	w := make([]float64, space)
	for s := range w {
		w[s] = math.Pow(float64(s+1), cfg.PowerA-1)
	}
	return &MQARGenerator{cfg: cfg, weights: w}, nil
}

// Config returns the configuration with defaults filled in.
func (g *MQARGenerator) Config() MQARConfig { return g.cfg }

// Example returns example i; it depends only on (config, i).
func (g *MQARGenerator) Example(i uint64) MQARExample {
	cfg := g.cfg
	rng := seedrand.NewPCG(cfg.Seed, seedrand.SplitMix64(i)^0x4d51_4152) // "MQAR"
	T, P, Q, V := cfg.SeqLen, cfg.NumPairs, cfg.NumQueries, cfg.Vocab
	half := V / 2

	tokens := make([]int32, T+1)
	if cfg.NoiseFiller {
		for j := range tokens {
			tokens[j] = int32(seedrand.UniformN(rng, V))
		}
	} else {
		for j := range tokens {
			tokens[j] = MQARFiller
		}
	}
	keys := sampleDistinct(rng, half-1, P) // offsets in [0, half-1) → keys 1 + offset
	vals := sampleDistinct(rng, V-half, P)
	ex := MQARExample{
		Tokens:         tokens,
		TargetMask:     make([]bool, T),
		KeyPositions:   make([]int, P),
		QueryPositions: make([]int, 0, Q),
	}
	for p := range P {
		tokens[2*p] = int32(1 + keys[p])
		tokens[2*p+1] = int32(half + vals[p])
		ex.KeyPositions[p] = 2 * p
	}
	// Which pair each query asks: a random permutation, cycled.
	order := sampleDistinct(rng, P, P)
	// Where: Q distinct slots, weighted, without replacement (Efraimidis–Spirakis: the Q largest
	// ln(u)/w have the law of successive weighted draws without replacement).
	slots := g.sampleSlots(rng, Q)
	for q, s := range slots {
		p := order[q%P]
		pos := 2*P + 2*s
		tokens[pos] = tokens[2*p]
		tokens[pos+1] = tokens[2*p+1]
		ex.TargetMask[pos] = true
		ex.QueryPositions = append(ex.QueryPositions, pos)
	}
	slices.Sort(ex.QueryPositions)
	return ex
}

// sampleSlots draws k distinct slots with probability ∝ g.weights, in draw order.
func (g *MQARGenerator) sampleSlots(rng *rand.PCG, k int) []int {
	type keyed struct {
		key  float64
		slot int
	}
	ks := make([]keyed, len(g.weights))
	for s, w := range g.weights {
		u := (float64(rng.Uint64()>>11) + 0.5) * 0x1p-53 // (0, 1)
		ks[s] = keyed{math.Log(u) / w, s}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		switch {
		case a.key > b.key:
			return -1
		case a.key < b.key:
			return 1
		}
		return a.slot - b.slot
	})
	out := make([]int, k)
	for j := range out {
		out[j] = ks[j].slot
	}
	return out
}

// sampleDistinct returns k distinct uniform integers of [0, n) in random order (partial Fisher–Yates over a
// sparse map when n is large).
func sampleDistinct(rng *rand.PCG, n, k int) []int {
	out := make([]int, k)
	if n <= 4*k+64 {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		for i := range k {
			j := i + seedrand.UniformN(rng, n-i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		copy(out, perm[:k])
		return out
	}
	swapped := make(map[int]int, 2*k)
	at := func(i int) int {
		if v, ok := swapped[i]; ok {
			return v
		}
		return i
	}
	for i := range k {
		j := i + seedrand.UniformN(rng, n-i)
		vi, vj := at(i), at(j)
		swapped[i], swapped[j] = vj, vi
		out[i] = vj
	}
	return out
}

// GenerateMQAR returns examples 0..n-1 of cfg.
func GenerateMQAR(cfg MQARConfig, n int) ([]MQARExample, error) {
	if n < 0 {
		return nil, fmt.Errorf("datasets: GenerateMQAR: n = %d must be ≥ 0", n)
	}
	g, err := NewMQARGenerator(cfg)
	if err != nil {
		return nil, err
	}
	out := make([]MQARExample, n)
	for i := range out {
		out[i] = g.Example(uint64(i))
	}
	return out, nil
}

// MQARRow is one parquet row written by WriteMQARParquet: tokens (SeqLen+1 ids) and mask (SeqLen flags,
// aligned with tokens[1:]).
type MQARRow struct {
	Tokens []int32 `parquet:"tokens,list"`
	Mask   []bool  `parquet:"mask,list"`
}

// WriteMQARParquet writes examples 0..n-1 of cfg to a parquet file at path with columns tokens
// (list<int32>) and mask (list<bool>), atomically (see ParquetWriter).
func WriteMQARParquet(path string, cfg MQARConfig, n int) error {
	if n < 0 {
		return fmt.Errorf("datasets: WriteMQARParquet: n = %d must be ≥ 0", n)
	}
	g, err := NewMQARGenerator(cfg)
	if err != nil {
		return err
	}
	i := 0
	return writeParquetRows(path, func(batch []MQARRow) ([]MQARRow, error) {
		for ; i < n && len(batch) < cap(batch); i++ {
			ex := g.Example(uint64(i))
			batch = append(batch, MQARRow{Tokens: ex.Tokens, Mask: ex.TargetMask})
		}
		return batch, nil
	})
}

// writeParquetRows writes the parquet file path (atomically, with NewParquetWriter) from the rows fill
// appends to an empty batch (of capacity parquetWriteBatch), batch after batch, until fill returns none.
func writeParquetRows[T any](path string, fill func(batch []T) ([]T, error)) error {
	pw, err := hfparquet.NewWriter[T](path)
	if err != nil {
		return err
	}
	batch := make([]T, 0, parquetWriteBatch)
	for {
		batch, err = fill(batch[:0])
		if err == nil && len(batch) > 0 {
			err = pw.Write(batch...)
		}
		if err != nil {
			pw.Abort()
			return err
		}
		if len(batch) == 0 {
			return pw.Close()
		}
	}
}

const parquetWriteBatch = 1024
