package harness

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// The expected texts were printed by CPython 3.11 (repr, json.dumps with ensure_ascii=False, str).
func TestPyFloatRepr(t *testing.T) {
	for x, want := range map[float64]string{0: "0.0", 1: "1.0", 1e16: "1e+16", 1e15: "1000000000000000.0",
		123456789012345678: "1.2345678901234568e+17", 0.0001: "0.0001", 0.00001: "1e-05", 1.5e-05: "1.5e-05",
		2.5: "2.5", 1.0 / 3: "0.3333333333333333", 1e-7: "1e-07", 1e22: "1e+22",
		1.7976931348623157e308: "1.7976931348623157e+308", 5e-324: "5e-324", -2.829456339823082: "-2.829456339823082",
		100: "100.0", 12345.678: "12345.678", 0.000123: "0.000123"} {
		require.Equal(t, want, PyFloatRepr(x), "%v", x)
	}
	require.Equal(t, "-0.0", PyFloatRepr(math.Copysign(0, -1)))
	require.Equal(t, "nan", PyFloatRepr(math.NaN()))
	require.Equal(t, "-inf", PyFloatRepr(math.Inf(-1)))
}

func TestPyJSON(t *testing.T) {
	v := Doc{{"a", []any{1, 2.0, "x\u2028\n\t\x01\x7f\"\\ é", true, nil, []any{}, Doc{}}}, {"b", Doc{{"c", []string{}}}}}
	got, err := PyJSON(v, 2)
	require.NoError(t, err)
	require.Equal(t, "{\n  \"a\": [\n    1,\n    2.0,\n    \"x\u2028\\n\\t\\u0001\x7f\\\"\\\\ é\",\n    true,\n    null,\n    [],\n    {}\n  ],\n  \"b\": {\n    \"c\": []\n  }\n}", string(got))
	got, err = PyJSON(Doc{{"a", []any{1, 2.0}}, {"b", map[string]any{}}, {"n", math.NaN()}}, -1)
	require.NoError(t, err)
	require.Equal(t, `{"a": [1, 2.0], "b": {}, "n": NaN}`, string(got))
	_, err = PyJSON(struct{}{}, -1)
	require.Error(t, err)
}

func TestPyRepr(t *testing.T) {
	require.Equal(t, `"it's"`, PyRepr("it's"))
	require.Equal(t, `'a"b'`, PyRepr(`a"b`))
	require.Equal(t, `'a\'b"c'`, PyRepr(`a'b"c`))
	require.Equal(t, `'x\ny\\'`, PyRepr("x\ny\\"))
	require.Equal(t, `'é\x00\x7f\u2028'`, PyRepr("é\x00\x7f\u2028"))
	require.Equal(t, `['a', 1, 2.0, True, None]`, PyStr([]any{"a", 1, 2.0, true, nil}))
	require.Equal(t, "x", PyStr("x"))
	require.Equal(t, "False", PyStr(false))
	require.Equal(t, "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9", HashString("0"))
}
