package oryx

import (
	"fmt"
	"math"
	"reflect"

	"github.com/gomlx/gomlx/pkg/ml/context"
)

// checkFiniteParams returns an error naming the first model parameter that holds a NaN or an infinity (and
// how many of its values are not finite): such weights make every score NaN or meaningless, and an
// evaluation must fail on them rather than write a number.
func checkFiniteParams(ctx *context.Context) error {
	for v := range ctx.IterVariables() {
		if !IsModelParam(v.ScopeAndName()) {
			continue
		}
		t, err := v.Value()
		if err != nil {
			return fmt.Errorf("parameter %s: %w", v.ScopeAndName(), err)
		}
		bad, first := 0, 0.0
		err = t.ConstFlatData(func(flat any) {
			bad, first = countNonFinite(flat)
		})
		if err != nil {
			return fmt.Errorf("parameter %s: %w", v.ScopeAndName(), err)
		}
		if bad > 0 {
			return fmt.Errorf("parameter %s holds %d non-finite value(s) (e.g. %v) of %d: the weights are unusable "+
				"(a diverged training step or a corrupted file)", v.ScopeAndName(), bad, first, t.Shape().Size())
		}
	}
	return nil
}

// countNonFinite counts the NaN and ±Inf values of a flat float slice ([]float32, []float64, or a slice of a
// 16-bit type with a Float32 method) and returns the first.
func countNonFinite(flat any) (n int, first float64) {
	check := func(x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if n == 0 {
				first = x
			}
			n++
		}
	}
	switch xs := flat.(type) {
	case []float32:
		for _, x := range xs {
			check(float64(x))
		}
	case []float64:
		for _, x := range xs {
			check(x)
		}
	default:
		rv := reflect.ValueOf(flat)
		if rv.Kind() != reflect.Slice {
			return 0, 0
		}
		for i := range rv.Len() {
			f, ok := rv.Index(i).Interface().(interface{ Float32() float32 })
			if !ok {
				return 0, 0 // not a float type
			}
			check(float64(f.Float32()))
		}
	}
	return n, first
}
