// Package testutil holds what several packages' tests share: the numeric test oracles (relative error and
// central finite differences), the -short sweep gate, and the check that every JSON key a type writes is
// snake_case (CheckSnakeCaseJSON). Only tests import it (and it imports nothing of the project), so these
// exist once instead of being copied between layers, oryx, internal/backend and the commands.
package testutil

import (
	"math"
	"testing"
)

// RelErr is max|got − want| / max|want| (or the absolute error when want is all zeros); +Inf when the
// lengths differ or a difference is NaN.
func RelErr(got, want []float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var diff, scale float64
	for i := range want {
		diff = max(diff, math.Abs(got[i]-want[i]))
		scale = max(scale, math.Abs(want[i]))
	}
	if math.IsNaN(diff) {
		return math.Inf(1)
	}
	if scale == 0 {
		return diff
	}
	return diff / scale
}

// CentralDiff is (f(+eps) − f(−eps)) / 2eps: the derivative at 0 of f, a function of a perturbation.
func CentralDiff(f func(delta float64) float64, eps float64) float64 {
	return (f(eps) - f(-eps)) / (2 * eps)
}

// FiniteDiffGrad returns the central finite-difference gradient of f with respect to every entry of every
// slice in params (perturbed in place, one entry at a time, and restored).
func FiniteDiffGrad(f func() float64, params [][]float64, eps float64) [][]float64 {
	grads := make([][]float64, len(params))
	for p, x := range params {
		grads[p] = make([]float64, len(x))
		for i := range x {
			orig := x[i]
			grads[p][i] = CentralDiff(func(d float64) float64 { x[i] = orig + d; return f() }, eps)
			x[i] = orig
		}
	}
	return grads
}

// Sweep returns the cases a parameter sweep runs: all of them, or under `go test -short` only the first
// keep. The XLA suite (scripts/test-xla.sh) runs -short because XLA CPU compiles every new graph for
// seconds; each sweep then keeps its most telling cases first (e.g. the Oryx variants before the baselines),
// and `XLA_FULL=1 make test-xla` or the pure-Go suite runs them all.
func Sweep[T any](all []T, keep int) []T {
	if testing.Short() && keep < len(all) {
		return all[:keep]
	}
	return all
}
