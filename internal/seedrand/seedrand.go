// Package seedrand derives reproducible random streams from seeds: the one SplitMix64 mixer the project
// hashes seeds with, PCG streams keyed by (seed, stream), and uniform draws written out so that the sequences
// derived from a seed can never change with the Go release. Data order, synthetic corpora, mode schedules and
// the training mixture all draw through it, so a resumed run sees exactly the numbers the first one saw.
package seedrand

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

const golden = 0x9e3779b97f4a7c15 // 2^64 / φ, SplitMix64's increment

// finalize is SplitMix64's output function (Steele et al.; Stafford's variant 13).
func finalize(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// SplitMix64 is the 64-bit mixer (Steele et al.): one SplitMix64 step from state x.
func SplitMix64(x uint64) uint64 { return finalize(x + golden) }

// Mix64 hashes two words into a seed, e.g. (run seed, step): the SplitMix64 output function applied to
// a·φ + b + a fixed offset.
func Mix64(a, b uint64) uint64 { return finalize(a*golden + b + 0x632be59bd9b4e019) }

// NewPCG returns a PCG whose state is a hash of (seed, stream): distinct streams give unrelated sequences.
func NewPCG(seed, stream uint64) *rand.PCG {
	a := SplitMix64(seed ^ SplitMix64(stream))
	return rand.NewPCG(a, SplitMix64(a^stream^0x6a09e667f3bcc909))
}

// UniformN returns a uniform integer in [0, n), n ≥ 1, by Lemire's method. It is written out here (rather
// than rand.Rand.IntN) so that the sequences derived from a seed can never change with the Go release.
func UniformN(src *rand.PCG, n int) int {
	bound := uint64(n)
	hi, lo := bits.Mul64(src.Uint64(), bound)
	if lo < bound {
		thresh := -bound % bound
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), bound)
		}
	}
	return int(hi)
}

// UniformFloat returns a uniform float64 in [0, 1).
func UniformFloat(src *rand.PCG) float64 {
	return float64(src.Uint64()>>11) * 0x1p-53
}

// Normals fills dst with standard normal draws from src by the Box–Muller transform (pairs of uniforms, both
// outputs used), written out like UniformN so that a seed's sequence never changes with the Go release.
func Normals(src *rand.PCG, dst []float64) {
	for i := 0; i < len(dst); i += 2 {
		u1 := 1 - UniformFloat(src) // (0, 1]: log(u1) is finite
		u2 := UniformFloat(src)
		r := math.Sqrt(-2 * math.Log(u1))
		s, c := math.Sincos(2 * math.Pi * u2)
		dst[i] = r * c
		if i+1 < len(dst) {
			dst[i+1] = r * s
		}
	}
}
