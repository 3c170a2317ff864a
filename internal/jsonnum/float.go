// Package jsonnum is the JSON number of the project's records (metrics.jsonl, summary.json, the study's and
// the frontier's files): a float64 that survives JSON when it is not finite.
package jsonnum

import (
	"encoding/json"
	"math"
)

// Float is a float64 that survives JSON when it is not finite: NaN and ±Inf are written as null (JSON
// has no such numbers) and null reads back as NaN, so a skipped step's loss stays visibly missing.
type Float float64

// MarshalJSON writes non-finite values as null.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads null as NaN.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}
