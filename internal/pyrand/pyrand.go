// Package pyrand reproduces CPython's random.Random: the MT19937 Mersenne Twister with CPython's seeding
// from an integer and the helpers built on it (getrandbits, random, _randbelow, randint, choice, choices,
// sample, shuffle and uuid.UUID(int=getrandbits(128), version=4)).
//
// With the same seed and the same sequence of calls a Rand returns the same values as Python 3 (checked
// against values printed by CPython in pyrand_test.go). That is its only purpose: it lets code that
// re-implements a Python tool (lm-eval's bootstrap, RULER's needle generation) draw exactly what the tool
// draws. For any other use, prefer math/rand/v2.
package pyrand

import (
	"fmt"
	"math"
	"math/bits"
)

const (
	mtN = 624 // MT19937's state size in 32-bit words
	mtM = 397 // MT19937's middle word offset
)

// Rand is a CPython random.Random generator. The zero value is not seeded (it yields only zeros): create one
// with New or call Seed first. A Rand is not safe for concurrent use.
type Rand struct {
	mt  [mtN]uint32
	idx int
}

// New returns a generator seeded as random.Random(seed) is.
func New(seed uint64) *Rand {
	r := &Rand{}
	r.Seed(seed)
	return r
}

// Seed is random.seed(seed) for a non-negative int seed: init_by_array over the 32-bit words of seed, least
// significant first ([0] for seed 0). It fully resets r, so a reseeded Rand equals a new one.
func (r *Rand) Seed(seed uint64) {
	key := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		key = append(key, hi)
	}
	r.initByArray(key)
}

func (r *Rand) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = mtN
}

func (r *Rand) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 is MT19937's genrand_uint32, the next 32-bit output; it equals random.getrandbits(32).
func (r *Rand) Uint32() uint32 {
	if r.idx >= mtN {
		const upper, lower = 0x80000000, 0x7fffffff
		mag := [2]uint32{0, 0x9908b0df}
		var kk int
		for kk = 0; kk < mtN-mtM; kk++ {
			y := (r.mt[kk] & upper) | (r.mt[kk+1] & lower)
			r.mt[kk] = r.mt[kk+mtM] ^ (y >> 1) ^ mag[y&1]
		}
		for ; kk < mtN-1; kk++ {
			y := (r.mt[kk] & upper) | (r.mt[kk+1] & lower)
			r.mt[kk] = r.mt[kk+(mtM-mtN)] ^ (y >> 1) ^ mag[y&1]
		}
		y := (r.mt[mtN-1] & upper) | (r.mt[0] & lower)
		r.mt[mtN-1] = r.mt[mtM-1] ^ (y >> 1) ^ mag[y&1]
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

// Getrandbits is random.getrandbits(k) for 0 ≤ k ≤ 64: 32-bit words filled least significant first, the
// last one keeping its top bits. It panics for k outside [0, 64].
func (r *Rand) Getrandbits(k int) uint64 {
	if k < 0 || k > 64 {
		panic(fmt.Sprintf("pyrand: getrandbits(%d) out of range", k))
	}
	if k <= 32 {
		if k == 0 {
			return 0
		}
		return uint64(r.Uint32() >> (32 - k))
	}
	lo := uint64(r.Uint32())
	hi := uint64(r.Uint32() >> (64 - k))
	return lo | hi<<32
}

// Random is random.random(): a float in [0, 1) with 53 random bits (genrand_res53).
func (r *Rand) Random() float64 {
	a, b := r.Uint32()>>5, r.Uint32()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// Randbelow is random._randbelow(n) for n ≥ 1: getrandbits(n.bit_length()) until the draw is below n. It
// is also the index random.choice(seq) draws for len(seq) == n, and randrange(a, a+n) is a + Randbelow(n).
// It panics for n < 1.
func (r *Rand) Randbelow(n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("pyrand: randbelow(%d)", n))
	}
	k := bits.Len64(uint64(n))
	for {
		if v := r.Getrandbits(k); v < uint64(n) {
			return int(v)
		}
	}
}

// Randint is random.randint(a, b) for a ≤ b: a value in [a, b], both ends included.
func (r *Rand) Randint(a, b int) int { return a + r.Randbelow(b-a+1) }

// ChoicesIndex is the index each draw of random.choices(population, k=...) makes for a population of n
// items without weights: floor(random() * n). Note that it differs from random.choice (see Randbelow).
func (r *Rand) ChoicesIndex(n int) int { return int(r.Random() * float64(n)) }

// Shuffle permutes n items as random.shuffle does, calling swap(i, j) for each exchange.
func (r *Rand) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i >= 1; i-- {
		j := r.Randbelow(i + 1)
		swap(i, j)
	}
}

// Sample returns the indices of random.sample(population, k) for a population of n items, in selection
// order (CPython's two algorithms: a shrinking pool when n is small relative to k, rejection from a set
// otherwise). It panics unless 0 ≤ k ≤ n.
func (r *Rand) Sample(n, k int) []int {
	if k < 0 || k > n {
		panic(fmt.Sprintf("pyrand: sample of %d from %d", k, n))
	}
	result := make([]int, k)
	setsize := 21
	if k > 5 {
		setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
	}
	if n <= setsize {
		pool := make([]int, n)
		for i := range pool {
			pool[i] = i
		}
		for i := range k {
			j := r.Randbelow(n - i)
			result[i] = pool[j]
			pool[j] = pool[n-i-1]
		}
		return result
	}
	selected := make(map[int]bool, k)
	for i := range k {
		j := r.Randbelow(n)
		for selected[j] {
			j = r.Randbelow(n)
		}
		selected[j] = true
		result[i] = j
	}
	return result
}

// UUID4 is str(uuid.UUID(int=random.getrandbits(128), version=4)): a canonical lowercase UUID string.
func (r *Rand) UUID4() string {
	// getrandbits(128): four 32-bit words, least significant first.
	w := [4]uint64{uint64(r.Uint32()), uint64(r.Uint32()), uint64(r.Uint32()), uint64(r.Uint32())}
	lo := w[0] | w[1]<<32
	hi := w[2] | w[3]<<32
	// version=4: clear the variant bits (int bits 62–63) and set 10; clear the version (bits 76–79), set 4.
	lo &^= 0xc000 << 48
	lo |= 0x8000 << 48
	hi &^= 0xf000 << 0
	hi |= 4 << 12
	s := fmt.Sprintf("%016x%016x", hi, lo)
	return s[0:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:32]
}
