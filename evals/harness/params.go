package harness

import (
	"fmt"
	"sort"
	"strings"
)

// params are the Config.Params keys task families read (key → one-line description), registered from the
// families' init functions, so that a misspelled --param key is an error instead of being ignored.
var params = map[string]string{}

// RegisterParam declares a Config.Params key a task family reads. Registering a key twice panics.
func RegisterParam(key, doc string) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := params[key]; dup {
		panic(fmt.Sprintf("harness: param %q registered twice", key))
	}
	params[key] = doc
}

// Params returns the registered param keys with their descriptions, as "key: doc" lines sorted by key.
func Params() []string {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]string, 0, len(params))
	for k, d := range params {
		out = append(out, k+": "+d)
	}
	sort.Strings(out)
	return out
}

// ParseParams parses "key=value" entries (repeated --param flags) into Config.Params. A malformed entry or
// a key no task family registered is an error listing the known keys.
func ParseParams(entries []string) (map[string]string, error) {
	out := map[string]string{}
	for _, e := range entries {
		k, v, ok := strings.Cut(e, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("harness: param %q: want key=value", e)
		}
		registry.RLock()
		_, known := params[k]
		registry.RUnlock()
		if !known {
			return nil, fmt.Errorf("harness: unknown param %q; known params:\n  %s", k, strings.Join(Params(), "\n  "))
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}
