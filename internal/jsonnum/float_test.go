package jsonnum

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFloatNonFiniteIsNull: NaN and ±Inf are written as null (JSON has no such numbers), null reads back
// as NaN, and finite values round-trip exactly.
func TestFloatNonFiniteIsNull(t *testing.T) {
	data, err := json.Marshal([]Float{Float(math.NaN()), Float(math.Inf(1)), Float(math.Inf(-1)), 0.1, -2.5e-300})
	require.NoError(t, err)
	require.Equal(t, `[null,null,null,0.1,-2.5e-300]`, string(data))
	var back []Float
	require.NoError(t, json.Unmarshal(data, &back))
	require.True(t, math.IsNaN(float64(back[0])) && math.IsNaN(float64(back[1])) && math.IsNaN(float64(back[2])))
	require.Equal(t, []Float{0.1, -2.5e-300}, back[3:])
	require.Error(t, json.Unmarshal([]byte(`"1"`), &back[0]), "a string is not a number")
}
