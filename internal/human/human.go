// Package human formats numbers for people, one way across the project's commands, logs, plots and tables.
// It is built on github.com/dustin/go-humanize.
package human

import (
	"math"
	"strconv"

	"github.com/dustin/go-humanize"
)

// Count formats a count (parameters, tokens, documents, a rate of them) as LM papers write it: three
// significant digits and a suffix for thousands, millions, billions and trillions — k, M, B, T (go-humanize's
// SI prefixes, with B for G) — and the rounded number below 1000:
//
//	0, 999, 1.5k, 104k, 1.23M, 129M, 1.43B, 28B, 5T, -1.5k
func Count(n float64) string {
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return strconv.FormatFloat(n, 'g', -1, 64)
	}
	if math.Abs(n) < 999.5 {
		return strconv.FormatFloat(math.Round(n)+0, 'f', 0, 64) // +0: no "-0"
	}
	// Round to three significant digits first, so that 999,500 is 1M rather than 1000k.
	scale := math.Pow(10, math.Floor(math.Log10(math.Abs(n)))-2)
	v, prefix := humanize.ComputeSI(math.Round(n/scale) * scale)
	if prefix == "G" {
		prefix = "B"
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + prefix
}

// Int is Count of an integer count.
func Int[T ~int | ~int32 | ~int64 | ~uint64](n T) string { return Count(float64(n)) }
