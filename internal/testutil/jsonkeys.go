package testutil

import (
	"encoding"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// JSONKeys lists the object keys encoding/json writes for values of t and of every type reachable from
// it (struct fields, embedded structs, pointers, slices, arrays and map values), as "Type.Field: key".
// Types with their own MarshalJSON or MarshalText are not entered (their keys are checked where they
// are defined); map keys are data, not names, and are not listed.
func JSONKeys(t reflect.Type) []string {
	var keys []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			if implementsMarshaler(t) {
				return
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || implementsMarshaler(t) {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || (!f.IsExported() && !f.Anonymous) {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				walk(f.Type) // embedded: its fields are promoted
				continue
			}
			if name == "" {
				name = f.Name
			}
			keys = append(keys, t.Name()+"."+f.Name+": "+name)
			walk(f.Type)
		}
	}
	walk(t)
	return keys
}

func implementsMarshaler(t reflect.Type) bool {
	m := reflect.TypeFor[json.Marshaler]()
	tm := reflect.TypeFor[encoding.TextMarshaler]()
	return t.Implements(m) || t.Implements(tm) || reflect.PointerTo(t).Implements(m) || reflect.PointerTo(t).Implements(tm)
}

// NonSnakeCaseJSON lists, as "Type: Type.Field: key", every key JSONKeys finds in the types of values that
// is not snake_case (lower-case words joined by "_"), except the keys in allowed (an external format's names).
func NonSnakeCaseJSON(allowed []string, values ...any) []string {
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	var bad []string
	for _, v := range values {
		for _, k := range JSONKeys(reflect.TypeOf(v)) {
			if key := k[strings.LastIndex(k, ": ")+2:]; !snakeCase.MatchString(key) && !ok[key] {
				bad = append(bad, reflect.TypeOf(v).String()+": "+k)
			}
		}
	}
	return bad
}

// CheckSnakeCaseJSON fails the test for every key NonSnakeCaseJSON finds.
func CheckSnakeCaseJSON(t testing.TB, allowed []string, values ...any) {
	t.Helper()
	for _, k := range NonSnakeCaseJSON(allowed, values...) {
		t.Errorf("JSON key not snake_case: %s", k)
	}
}
