package niah

import (
	"fmt"
	"math"
	"math/bits"
)

// pyRandom reproduces CPython's random.Random (MT19937 with CPython's seeding and its integer helpers) for
// the calls RULER's niah.py makes: seed(int), getrandbits, randint, choice, shuffle, sample and
// uuid.UUID(int=getrandbits(128), version=4). With the same seed and the same sequence of calls it returns
// the same values as Python 3 (checked against CPython in pyrandom_test.go), which is what makes the keys,
// values and needle depths of RULER mode identical to RULER's for a given seed.
type pyRandom struct {
	mt  [624]uint32
	mti int
}

// newPyRandom returns a generator seeded as random.Random(seed) is: init_by_array over the 32-bit words of
// seed, least significant first ([0] for seed 0).
func newPyRandom(seed uint64) *pyRandom {
	r := &pyRandom{}
	key := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		key = append(key, hi)
	}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = 624
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(624, len(key))
	for ; k > 0; k-- {
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
	for k = 623; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// uint32 is genrand_uint32.
func (r *pyRandom) uint32() uint32 {
	const n, m = 624, 397
	if r.mti >= n {
		mag := [2]uint32{0, 0x9908b0df}
		var kk int
		for kk = 0; kk < n-m; kk++ {
			y := (r.mt[kk] & 0x80000000) | (r.mt[kk+1] & 0x7fffffff)
			r.mt[kk] = r.mt[kk+m] ^ (y >> 1) ^ mag[y&1]
		}
		for ; kk < n-1; kk++ {
			y := (r.mt[kk] & 0x80000000) | (r.mt[kk+1] & 0x7fffffff)
			r.mt[kk] = r.mt[kk+(m-n)] ^ (y >> 1) ^ mag[y&1]
		}
		y := (r.mt[n-1] & 0x80000000) | (r.mt[0] & 0x7fffffff)
		r.mt[n-1] = r.mt[m-1] ^ (y >> 1) ^ mag[y&1]
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// getrandbits returns random.getrandbits(k) for 0 ≤ k ≤ 64: 32-bit words filled least significant first,
// the last one keeping its top bits.
func (r *pyRandom) getrandbits(k int) uint64 {
	if k < 0 || k > 64 {
		panic(fmt.Sprintf("niah: getrandbits(%d) out of range", k))
	}
	if k <= 32 {
		if k == 0 {
			return 0
		}
		return uint64(r.uint32() >> (32 - k))
	}
	lo := uint64(r.uint32())
	hi := uint64(r.uint32() >> (64 - k))
	return lo | hi<<32
}

// randbelow returns random._randbelow(n) for n ≥ 1: getrandbits(n.bit_length()) until below n.
func (r *pyRandom) randbelow(n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("niah: randbelow(%d)", n))
	}
	k := bits.Len64(uint64(n))
	for {
		if v := r.getrandbits(k); v < uint64(n) {
			return int(v)
		}
	}
}

// randint returns random.randint(a, b), a ≤ b.
func (r *pyRandom) randint(a, b int) int { return a + r.randbelow(b-a+1) }

// shuffle permutes n items as random.shuffle does, calling swap(i, j).
func (r *pyRandom) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i >= 1; i-- {
		j := r.randbelow(i + 1)
		swap(i, j)
	}
}

// sample returns the indices of random.sample(population, k) for a population of n items (CPython's two
// algorithms: a shrinking pool when n is small relative to k, rejection from a set otherwise).
func (r *pyRandom) sample(n, k int) []int {
	if k < 0 || k > n {
		panic(fmt.Sprintf("niah: sample of %d from %d", k, n))
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
			j := r.randbelow(n - i)
			result[i] = pool[j]
			pool[j] = pool[n-i-1]
		}
		return result
	}
	selected := make(map[int]bool, k)
	for i := range k {
		j := r.randbelow(n)
		for selected[j] {
			j = r.randbelow(n)
		}
		selected[j] = true
		result[i] = j
	}
	return result
}

// uuid4 returns str(uuid.UUID(int=random.getrandbits(128), version=4)).
func (r *pyRandom) uuid4() string {
	// getrandbits(128): four 32-bit words, least significant first.
	w := [4]uint64{uint64(r.uint32()), uint64(r.uint32()), uint64(r.uint32()), uint64(r.uint32())}
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
