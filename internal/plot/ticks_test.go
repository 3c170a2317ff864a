package plot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// checkNiceTicks verifies the properties every niceTicks result must have.
func checkNiceTicks(t *testing.T, lo, hi float64, budget int, ticks []float64) {
	t.Helper()
	tol := (hi - lo) * 1e-9
	for _, v := range ticks {
		if v < lo-tol || v > hi+tol {
			t.Fatalf("niceTicks(%g, %g, %d) = %v: tick %g outside the range", lo, hi, budget, ticks, v)
		}
	}
	if len(ticks) > budget {
		t.Fatalf("niceTicks(%g, %g, %d) = %v: more than %d ticks", lo, hi, budget, ticks, budget)
	}
	// A larger budget guarantees more ticks: the next smaller nice step (at most 2.5×
	// smaller) gave more than budget ticks.
	minTicks := 1
	switch {
	case budget >= 8:
		minTicks = 3
	case budget >= 5:
		minTicks = 2
	}
	if len(ticks) < minTicks {
		t.Fatalf("niceTicks(%g, %g, %d) = %v: fewer than %d ticks", lo, hi, budget, ticks, minTicks)
	}
	if len(ticks) < 2 {
		return
	}
	step := ticks[1] - ticks[0]
	mant := step / math.Pow10(int(math.Floor(math.Log10(step)+1e-6)))
	if math.Abs(mant-1) > 1e-6 && math.Abs(mant-2) > 1e-6 && math.Abs(mant-5) > 1e-6 {
		t.Fatalf("niceTicks(%g, %g, %d) = %v: step %g is not 1, 2 or 5 ×10^k", lo, hi, budget, ticks, step)
	}
	for i := 1; i < len(ticks); i++ {
		if d := ticks[i] - ticks[i-1]; math.Abs(d-step) > step*1e-6 {
			t.Fatalf("niceTicks(%g, %g, %d) = %v: uneven spacing %g vs %g", lo, hi, budget, ticks, d, step)
		}
	}
	for _, v := range ticks {
		if k := v / step; math.Abs(k-math.Round(k)) > 1e-6 {
			t.Fatalf("niceTicks(%g, %g, %d) = %v: tick %g is not a multiple of the step", lo, hi, budget, ticks, v)
		}
	}
}

func TestNiceTicksExample(t *testing.T) {
	got := niceTicks(0, 7.3, 10)
	want := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	if len(got) != len(want) {
		t.Fatalf("niceTicks(0, 7.3, 10) = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("niceTicks(0, 7.3, 10) = %v, want %v", got, want)
		}
	}
	got = niceTicks(0, 7.3, 5)
	if want := []float64{0, 2, 4, 6}; len(got) != 4 || got[1] != 2 || got[3] != 6 {
		t.Fatalf("niceTicks(0, 7.3, 5) = %v, want %v", got, want)
	}
	// Decimal steps are computed exactly: 0.3, not 0.30000000000000004.
	for _, v := range niceTicks(0, 1, 10) {
		if s := formatFixed(v, 0.1); len(s) > 3 {
			t.Fatalf("tick %v formats as %q", v, s)
		}
	}
}

func TestNiceTicksProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		scale := math.Pow10(rng.IntN(30) - 15)
		lo := (rng.Float64()*2 - 1) * scale * 10
		if rng.IntN(4) == 0 {
			lo = 0
		}
		hi := lo + rng.Float64()*scale*10 + scale*1e-3
		for budget := 2; budget <= 10; budget++ {
			ticks := niceTicks(lo, hi, budget)
			checkNiceTicks(t, lo, hi, budget, ticks)
			if budget >= 8 && (len(ticks) < 3 || len(ticks) > 10) {
				t.Fatalf("niceTicks(%g, %g, %d) = %v: want 3..10 ticks", lo, hi, budget, ticks)
			}
		}
	}
}

func TestNiceTicksDegenerate(t *testing.T) {
	if got := niceTicks(3, 3, 10); len(got) != 1 || got[0] != 3 {
		t.Errorf("niceTicks(3, 3) = %v, want [3]", got)
	}
	if got := niceTicks(math.NaN(), 1, 10); got != nil {
		t.Errorf("niceTicks(NaN, 1) = %v, want nil", got)
	}
	if got := niceTicks(-math.MaxFloat64, math.MaxFloat64, 10); len(got) == 0 {
		t.Errorf("niceTicks(-max, max) gave no ticks")
	}
	for _, v := range niceTicks(-1, 1, 10) {
		if v == 0 && math.Signbit(v) {
			t.Errorf("niceTicks(-1, 1) has a negative zero")
		}
	}
}

func TestLogTicks(t *testing.T) {
	eq := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-12*math.Abs(b[i]) {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct {
		lo, hi float64
		budget int
		want   []float64
	}{
		{1e-3, 10, 10, []float64{1e-3, 1e-2, 0.1, 1, 10}},
		{0.5e-3, 20, 10, []float64{1e-3, 1e-2, 0.1, 1, 10}},
		{1, 1e12, 5, []float64{1, 1e3, 1e6, 1e9, 1e12}},
		{1, 50, 10, []float64{1, 2, 5, 10, 20, 50}},
		{0.8, 30, 4, []float64{1, 10}},
	} {
		if got := logTicks(tc.lo, tc.hi, tc.budget); !eq(got, tc.want) {
			t.Errorf("logTicks(%g, %g, %d) = %v, want %v", tc.lo, tc.hi, tc.budget, got, tc.want)
		}
	}
	// Less than a decade falls back to linear nice ticks inside the range.
	got := logTicks(2.1, 9, 10)
	if len(got) < 3 {
		t.Fatalf("logTicks(2.1, 9) = %v, want ≥ 3 ticks", got)
	}
	for _, v := range got {
		if v < 2.1 || v > 9 {
			t.Fatalf("logTicks(2.1, 9) = %v: %g outside the range", got, v)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{1, "1"},
		{-2.5, "-2.5"},
		{0.5, "0.5"},
		{0.001, "0.001"},
		{0.00012, "1.2e-4"},
		{1e-4, "1e-4"},
		{1000, "1000"},
		{9999, "9999"},
		{12345, "12.3k"},
		{1e5, "100k"},
		{1.5e6, "1.5M"},
		{2e9, "2G"},
		{3e12, "3T"},
		{1e15, "1e15"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
	} {
		if got := formatNumber(tc.v); got != tc.want {
			t.Errorf("formatNumber(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestFormatTicks(t *testing.T) {
	for _, tc := range []struct {
		ticks []float64
		want  []string
	}{
		{[]float64{0, 5000, 10000, 15000}, []string{"0", "5k", "10k", "15k"}},
		{[]float64{0, 2000, 4000, 6000, 8000}, []string{"0", "2000", "4000", "6000", "8000"}},
		{[]float64{0, 0.5e6, 1e6, 1.5e6}, []string{"0", "0.5M", "1M", "1.5M"}},
		{[]float64{0, 0.2, 0.4, 0.6000000000000001}, []string{"0", "0.2", "0.4", "0.6"}},
		{[]float64{-1, -0.5, 0, 0.5}, []string{"-1", "-0.5", "0", "0.5"}},
		{[]float64{0, 5e-5, 1e-4, 1.5e-4}, []string{"0", "5e-5", "1e-4", "1.5e-4"}},
		{[]float64{2.5, 2.55, 2.6}, []string{"2.5", "2.55", "2.6"}},
	} {
		got := formatTicks(tc.ticks, tickStep(tc.ticks))
		for i := range tc.want {
			if got[i] != tc.want[i] {
				t.Errorf("formatTicks(%v) = %q, want %q", tc.ticks, got, tc.want)
				break
			}
		}
	}
}

func TestDecade(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want int
	}{
		{1, 0}, {9.99, 0}, {10, 1}, {1e15, 15}, {1e15 + 0.5, 15}, {-0.05, -2}, {1e-300, -300},
		{math.MaxFloat64, 308}, {5e-324, -324}, {1000, 3}, {999.9999, 2},
	} {
		if got := decade(tc.v); got != tc.want {
			t.Errorf("decade(%g) = %d, want %d", tc.v, got, tc.want)
		}
	}
	for e := -300; e <= 300; e++ {
		if got := decade(math.Pow10(e)); got != e {
			t.Errorf("decade(1e%d) = %d", e, got)
		}
	}
}
