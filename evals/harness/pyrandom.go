package harness

// PyRandom is Python's random.Random (CPython's MT19937 and its seeding), enough of it to draw exactly the
// samples lm-eval's bootstrap draws: Seed(int), Random() and Choices. It is not safe for concurrent use.
type PyRandom struct {
	mt  [624]uint32
	idx int
}

// NewPyRandom returns a generator seeded as random.Random(seed) (seed >= 0).
func NewPyRandom(seed uint64) *PyRandom {
	r := &PyRandom{}
	r.Seed(seed)
	return r
}

// Seed is random.seed(n) for a non-negative int n: init_by_array over n's 32-bit words, least significant
// first ([0] for n = 0).
func (r *PyRandom) Seed(n uint64) {
	key := []uint32{uint32(n)}
	if hi := uint32(n >> 32); hi != 0 {
		key = append(key, hi)
	}
	r.initByArray(key)
}

func (r *PyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = 624
}

func (r *PyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(624, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := 623; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 is MT19937's genrand_uint32.
func (r *PyRandom) Uint32() uint32 {
	if r.idx >= 624 {
		const upper, lower = 0x80000000, 0x7fffffff
		mag := [2]uint32{0, 0x9908b0df}
		var kk int
		for kk = 0; kk < 624-397; kk++ {
			y := (r.mt[kk] & upper) | (r.mt[kk+1] & lower)
			r.mt[kk] = r.mt[kk+397] ^ (y >> 1) ^ mag[y&1]
		}
		for ; kk < 623; kk++ {
			y := (r.mt[kk] & upper) | (r.mt[kk+1] & lower)
			r.mt[kk] = r.mt[kk+(397-624)] ^ (y >> 1) ^ mag[y&1]
		}
		y := (r.mt[623] & upper) | (r.mt[0] & lower)
		r.mt[623] = r.mt[396] ^ (y >> 1) ^ mag[y&1]
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// Random is random.random(): a float in [0, 1) with 53 random bits (genrand_res53).
func (r *PyRandom) Random() float64 {
	a, b := r.Uint32()>>5, r.Uint32()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// ChoiceIndex is the index random.choices(population, k=...) draws for a population of n items (no
// weights): floor(random() * n).
func (r *PyRandom) ChoiceIndex(n int) int { return int(r.Random() * float64(n)) }
