package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Python's text forms of values, byte for byte, for what lm-eval writes and hashes: its sample records are
// json.dumps(…, ensure_ascii=False) lines, their "resps" are str() of every value, and doc_hash, prompt_hash
// and target_hash are SHA-256 of json.dumps(doc, indent=2, ensure_ascii=False), of the first request's
// context and of str(target). Go's encoding/json differs (it escapes U+2028, writes 1.0 as 1, sorts map
// keys), so the records are written here.
//
// Values: nil (None), bool, the integer types, float64/float32 (Python floats), string, Doc (a dict in
// its key order), map[string]any (a dict, keys sorted: used only where lm-eval's order is sorted or
// irrelevant), and slices or arrays of any of these (lists; Python tuples are written as lists, as json
// does).

// Doc is a Python dict in its insertion order: a document as lm-eval sees it (the dataset's columns in
// file order, fields a task's process_docs adds after them).
type Doc []DocField

// DocField is one key of a Doc.
type DocField struct {
	Key   string
	Value any
}

// Get returns the value of key (nil, false when absent).
func (d Doc) Get(key string) (any, bool) {
	for _, f := range d {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// MarshalJSON writes the Doc as a JSON object in its order (Python's json.dumps form, no indent).
func (d Doc) MarshalJSON() ([]byte, error) { return PyJSON(d, -1) }

// PyJSON is Python's json.dumps(v, ensure_ascii=False), with indent spaces per level when indent ≥ 0 (as
// json.dumps(…, indent=indent)), else on one line with ", " and ": " separators. Non-finite floats are
// written NaN, Infinity, -Infinity, as Python does.
func PyJSON(v any, indent int) ([]byte, error) {
	var b strings.Builder
	if err := pyJSON(&b, v, indent, 0); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

func pyJSON(b *strings.Builder, v any, indent, depth int) error {
	newline := func(d int) {
		if indent >= 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent*d))
		}
	}
	sep := ", "
	if indent >= 0 {
		sep = ","
	}
	list := func(n int, item func(i int) error) error {
		if n == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteString(sep)
			}
			newline(depth + 1)
			if err := item(i); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte(']')
		return nil
	}
	object := func(keys []string, value func(i int) any) error {
		if len(keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(sep)
			}
			newline(depth + 1)
			b.WriteString(pyJSONString(k))
			b.WriteString(": ")
			if err := pyJSON(b, value(i), indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte('}')
		return nil
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(map[bool]string{true: "true", false: "false"}[x])
	case string:
		b.WriteString(pyJSONString(x))
	case float64:
		b.WriteString(pyJSONFloat(x))
	case float32:
		b.WriteString(pyJSONFloat(float64(x)))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		fmt.Fprint(b, x)
	case json.Number: // a number as another encoder wrote it
		b.WriteString(string(x))
	case Doc:
		keys := make([]string, len(x))
		for i, f := range x {
			keys[i] = f.Key
		}
		return object(keys, func(i int) any { return x[i].Value })
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return object(keys, func(i int) any { return x[keys[i]] })
	case []any:
		return list(len(x), func(i int) error { return pyJSON(b, x[i], indent, depth+1) })
	default:
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
			return list(rv.Len(), func(i int) error { return pyJSON(b, rv.Index(i).Interface(), indent, depth+1) })
		}
		return fmt.Errorf("harness: no Python JSON form for %T", v)
	}
	return nil
}

// pyJSONString is a JSON string as Python's json module writes it with ensure_ascii=False: only '"', '\\'
// and the control characters below U+0020 are escaped (\n, \r, \t, \b, \f, else \u00xx).
func pyJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// pyJSONFloat is a float as json.dumps writes it: repr, with NaN, Infinity, -Infinity.
func pyJSONFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return PyFloatRepr(x)
}

// PyFloatRepr is Python's repr(x) (and str(x)) of a float: the shortest digits that round-trip, in fixed
// notation with at least one decimal ("1.0", "0.0001") when 1e-4 ≤ |x| < 1e16, else in exponent notation
// ("1e-05", "1.5e+16"); nan, inf, -inf.
func PyFloatRepr(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(x, 'e', -1, 64) // [-]d[.ddd]e±XX
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp < -4 || exp >= 16 {
		return e
	}
	neg := strings.HasPrefix(mant, "-")
	digits := strings.Replace(strings.TrimPrefix(mant, "-"), ".", "", 1)
	var s string
	if point := exp + 1; point <= 0 {
		s = "0." + strings.Repeat("0", -point) + digits
	} else if point >= len(digits) {
		s = digits + strings.Repeat("0", point-len(digits)) + ".0"
	} else {
		s = digits[:point] + "." + digits[point:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// PyStr is Python's str(v): strings as they are, floats as repr, True/False, None, and containers as
// their repr (lists "[...]" with repr of strings, dicts "{...}").
func PyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return PyRepr(v)
}

// PyRepr is Python's repr(v) for the values PyJSON writes (a Doc or map as a dict).
func PyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		return map[bool]string{true: "True", false: "False"}[x]
	case string:
		return pyReprString(x)
	case float64:
		return PyFloatRepr(x)
	case float32:
		return PyFloatRepr(float64(x))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(x)
	case Doc:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = pyReprString(f.Key) + ": " + PyRepr(f.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyReprString(k) + ": " + PyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = PyRepr(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// pyReprString is Python's repr of a str: single quotes unless the string holds ' and no ", backslash
// escapes for \\, the quote, \n, \r, \t, and \xNN, \uNNNN or \UNNNNNNNN for characters that are not
// printable (str.isprintable).
func pyReprString(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == quote || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == utf8.RuneError || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
	return b.String()
}

// HashString is lm-eval's hash_string: the hex SHA-256 of the UTF-8 text.
func HashString(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
