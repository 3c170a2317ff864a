package plot

import "math"

// Range padding added to automatically computed ranges, as a fraction of the data span
// (in log10 units on a log axis), so that extreme points and dots are not cut by the frame.
const (
	padX = 0.02
	padY = 0.05
)

// pixelLimit bounds mapped pixel coordinates, so that points far outside a fixed range
// stay finite and convertible to int.
const pixelLimit = 1e9

// axis maps data values of one dimension onto pixel coordinates.
type axis struct {
	log    bool    // log10 scale
	lo, hi float64 // data range, lo < hi (both > 0 on a log axis)
	p0, p1 float64 // pixel coordinates of lo and hi (p0 > p1 for the Y axis)
	ticks  []float64
	labels []string
}

// valid reports whether v can be placed on the axis: finite, and positive on a log axis.
func (a *axis) valid(v float64) bool { return validValue(v, a.log) }

// validValue reports whether v is finite (and positive when log is set).
func validValue(v float64, log bool) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	return !log || v > 0
}

// scale maps a data value to the axis' linear coordinate (log10 on a log axis).
func (a *axis) scale(v float64) float64 {
	if a.log {
		return log10(v)
	}
	return v
}

// pixel maps a valid data value to a (fractional) pixel coordinate, clamped to ±pixelLimit.
func (a *axis) pixel(v float64) float64 {
	// Halved differences cannot overflow, even for a range of ±math.MaxFloat64.
	tl, th := a.scale(a.lo), a.scale(a.hi)
	p := a.p0 + (a.scale(v)/2-tl/2)/(th/2-tl/2)*(a.p1-a.p0)
	if math.IsNaN(p) {
		return a.p0
	}
	return math.Max(-pixelLimit, math.Min(pixelLimit, p))
}

// extent accumulates the range of a set of values.
type extent struct {
	lo, hi float64
	ok     bool
}

// add includes v in the extent.
func (e *extent) add(v float64) {
	if !e.ok {
		e.lo, e.hi, e.ok = v, v, true
		return
	}
	e.lo, e.hi = math.Min(e.lo, v), math.Max(e.hi, v)
}

// resolveRange turns a data extent into an axis range: padded by pad (fraction of the
// span), widened when degenerate, defaulting to [0, 1] (linear) or [1, 10] (log) without
// data. fixedLo/fixedHi, when non-nil, replace the corresponding bound; if the other,
// automatic bound then ends up on the wrong side it is moved to give a sensible range.
// The caller guarantees fixed bounds are valid (finite, positive on log, lo < hi if both).
func resolveRange(e extent, log bool, pad float64, fixedLo, fixedHi *float64) (lo, hi float64) {
	fwd := func(v float64) float64 { return v }
	inv := fwd
	if log {
		fwd, inv = log10, func(v float64) float64 { return math.Pow(10, v) }
	}
	tl, th := 0.0, 1.0
	if e.ok {
		tl, th = fwd(e.lo), fwd(e.hi)
		if th > tl {
			p := (th - tl) * pad
			if !math.IsInf(tl-p, 0) && !math.IsInf(th+p, 0) {
				tl, th = tl-p, th+p
			}
		} else if log {
			tl, th = tl-1, th+1
		} else {
			d := math.Abs(tl) * 0.1
			if d == 0 {
				d = 1
			}
			tl, th = tl-d, th+d
		}
	}
	lo, hi = inv(tl), inv(th)
	if fixedLo != nil {
		lo = *fixedLo
	}
	if fixedHi != nil {
		hi = *fixedHi
	}
	if !(hi > lo) || math.IsInf(hi, 0) || math.IsInf(lo, 0) {
		switch {
		case fixedLo != nil && fixedHi == nil:
			hi = widen(lo, log, +1)
		case fixedHi != nil && fixedLo == nil:
			lo = widen(hi, log, -1)
		default:
			lo, hi = inv(0), inv(1)
		}
	}
	return lo, hi
}

// widen returns a value a sensible distance above (dir > 0) or below (dir < 0) v.
func widen(v float64, log bool, dir float64) float64 {
	if log {
		return v * math.Pow(10, dir)
	}
	return v + dir*math.Max(math.Abs(v), 1)
}
