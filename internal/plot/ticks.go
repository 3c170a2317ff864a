package plot

import (
	"math"
	"strconv"
	"strings"
)

// tickEps is the relative tolerance used when deciding whether a tick lies inside a range.
const tickEps = 1e-9

// niceMantissas are the mantissas of "nice" tick steps: steps are m×10^k with m in this list.
var niceMantissas = [...]float64{1, 2, 5}

// niceStep is a tick step m×10^e, kept in that form so that tick values can be computed
// without accumulating rounding errors (k×0.1 is computed as k×1/10).
type niceStep struct {
	m float64
	e int
}

// value returns the step as a float64.
func (s niceStep) value() float64 { return s.m * math.Pow10(s.e) }

// at returns the k-th multiple of the step.
func (s niceStep) at(k float64) float64 {
	if s.e < 0 && s.e > -300 {
		return k * s.m / math.Pow10(-s.e)
	}
	return k * s.m * math.Pow10(s.e)
}

// multiples returns the first and last k such that k×step lies in [lo, hi].
func (s niceStep) multiples(lo, hi float64) (k0, k1 float64) {
	v := s.value()
	return math.Ceil(lo/v - tickEps), math.Floor(hi/v + tickEps)
}

// niceTicks returns tick values for the linear range [lo, hi]: all multiples of the
// smallest step m×10^k (m ∈ {1, 2, 5}) that yields at most maxTicks ticks inside the range.
// With maxTicks ≥ 8 that gives between 3 and maxTicks ticks; smaller budgets may give 2.
// A degenerate range (hi ≤ lo) gives the single tick lo; non-finite bounds give none.
func niceTicks(lo, hi float64, maxTicks int) []float64 {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	if !(hi > lo) {
		return []float64{lo}
	}
	maxTicks = max(maxTicks, 2)
	// Start one decade below the step that would give exactly maxTicks intervals, so the
	// first candidate has too many ticks, then grow the step until the count fits. (The
	// span is halved when it would overflow.)
	logSpan := log10(hi - lo)
	if math.IsInf(logSpan, 0) {
		logSpan = math.Log10(hi/2-lo/2) + math.Log10(2)
	}
	e := int(math.Floor(logSpan-math.Log10(float64(maxTicks)))) - 1
	for range 8 {
		for _, m := range niceMantissas {
			s := niceStep{m, e}
			v := s.value()
			if v == 0 || math.IsInf(v, 0) {
				continue
			}
			k0, k1 := s.multiples(lo, hi)
			if k1-k0+1 > float64(maxTicks) {
				continue
			}
			ticks := make([]float64, 0, maxTicks)
			for k := k0; k <= k1; k++ {
				t := s.at(k)
				if math.Abs(t) < v*tickEps {
					t = 0 // avoid "-0" and 1e-17 noise
				}
				ticks = append(ticks, t)
			}
			return ticks
		}
		e++
	}
	return []float64{lo, hi}
}

// logTicks returns tick values for a log10 axis over [lo, hi] (lo > 0): powers of ten
// (every stride-th decade when there are more than maxTicks of them); for ranges spanning
// less than three decades, the 1-2-5 multiples of powers of ten when there are 3 to
// maxTicks of them, or else linear nice ticks.
func logTicks(lo, hi float64, maxTicks int) []float64 {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return niceTicks(lo, hi, maxTicks)
	}
	maxTicks = max(maxTicks, 2)
	e0 := int(math.Ceil(log10(lo) - tickEps))
	e1 := int(math.Floor(log10(hi) + tickEps))
	decades := func(stride int) []float64 {
		var ts []float64
		for e := e0; e <= e1; e++ {
			if ((e%stride)+stride)%stride == 0 {
				ts = append(ts, math.Pow10(e))
			}
		}
		return ts
	}
	if n := e1 - e0 + 1; n >= 3 {
		if ts := decades((n + maxTicks - 1) / maxTicks); len(ts) >= 2 {
			return ts
		}
	}
	var ts []float64
	for e := e0 - 1; e <= e1; e++ {
		for _, m := range niceMantissas {
			v := m * math.Pow10(e)
			if v >= lo*(1-tickEps) && v <= hi*(1+tickEps) {
				ts = append(ts, v)
			}
		}
	}
	switch {
	case len(ts) >= 3 && len(ts) <= maxTicks:
		return ts
	case len(ts) > maxTicks && e1 > e0:
		return decades(1)
	}
	return niceTicks(lo, hi, maxTicks)
}

// tickStep returns the spacing of evenly spaced ticks (0 when there are fewer than two).
func tickStep(ticks []float64) float64 {
	if len(ticks) < 2 {
		return 0
	}
	return ticks[1] - ticks[0]
}

// formatTicks formats the ticks of one linear axis consistently: all with the same unit
// suffix (k for |max| ≥ 1e4, M ≥ 1e6, G ≥ 1e9, T ≥ 1e12) and just enough decimals for step,
// or all in compact scientific notation ("1.2e-4") when the largest magnitude is below 1e-3
// or at least 1e15. Zero is always "0".
func formatTicks(ticks []float64, step float64) []string {
	maxAbs := 0.0
	for _, t := range ticks {
		if !math.IsNaN(t) && !math.IsInf(t, 0) {
			maxAbs = max(maxAbs, math.Abs(t))
		}
	}
	step = math.Abs(step)
	sci := maxAbs >= 1e15 || (maxAbs > 0 && maxAbs < 1e-3)
	unit, suffix := 1.0, ""
	switch {
	case sci:
	case maxAbs >= 1e12:
		unit, suffix = 1e12, "T"
	case maxAbs >= 1e9:
		unit, suffix = 1e9, "G"
	case maxAbs >= 1e6:
		unit, suffix = 1e6, "M"
	case maxAbs >= 1e4:
		unit, suffix = 1e3, "k"
	}
	labels := make([]string, len(ticks))
	for i, t := range ticks {
		switch {
		case math.IsNaN(t):
			labels[i] = "NaN"
		case math.IsInf(t, 1):
			labels[i] = "+Inf"
		case math.IsInf(t, -1):
			labels[i] = "-Inf"
		case t == 0:
			labels[i] = "0"
		case sci:
			labels[i] = formatSci(t, step)
		default:
			labels[i] = formatFixed(t/unit, step/unit) + suffix
		}
	}
	return labels
}

// formatNumber formats a single value compactly with up to 3 significant digits,
// following the rules of formatTicks: 1000 → "1000", 12345 → "12.3k", 1.5e6 → "1.5M",
// 0.00012 → "1.2e-4".
func formatNumber(v float64) string {
	step := 0.0
	if v != 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
		step = math.Pow10(decade(v) - 2)
	}
	return formatTicks([]float64{v}, step)[0]
}

// decade returns the exponent of the leading digit of a finite v ≠ 0 (0 otherwise), floor(log10(|v|)), exactly:
// math.Log10 alone can land just below an integer (math.Log10(1e15+0.5) < 15).
func decade(v float64) int {
	v = math.Abs(v)
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	e := int(math.Floor(log10(v)))
	for e < 308 && math.Pow10(e+1) <= v {
		e++
	}
	for e > -324 && math.Pow10(e) > v {
		e--
	}
	return e
}

// smallestNormal is the smallest positive normal float64.
const smallestNormal = 0x1p-1022

// log10 is math.Log10, also accurate for subnormal v (math.Log10 of a subnormal can be off
// by many units on some platforms).
func log10(v float64) float64 {
	if v > 0 && v < smallestNormal {
		return math.Log2(v) * math.Log10(2)
	}
	return math.Log10(v)
}

// decimalsFor returns how many decimals are needed to show multiples of step, a nice
// step (m×10^k with m ∈ {1, 2, 5}).
func decimalsFor(step float64) int {
	if !(step > 0) || math.IsInf(step, 0) {
		return 3
	}
	return min(max(0, -decade(step)), 16)
}

// formatFixed formats x in fixed-point notation with the decimals step needs, trailing
// zeros removed.
func formatFixed(x, step float64) string {
	s := strconv.FormatFloat(x, 'f', decimalsFor(step), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// formatSci formats x as compact scientific notation ("1.2e-4", "3e15") with the mantissa
// decimals step needs (at most 16), trailing zeros removed.
func formatSci(x, step float64) string {
	dec := 2
	if step > 0 && !math.IsInf(step, 0) {
		dec = decade(x) - decade(step)
		dec = min(max(dec, 0), 16)
	}
	s := strconv.FormatFloat(x, 'e', dec, 64)
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	e, err := strconv.Atoi(exp)
	if err != nil {
		return s
	}
	return mant + "e" + strconv.Itoa(e)
}
