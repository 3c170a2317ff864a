package repocheck

import (
	"path"
	"regexp"
	"strings"
	"testing"
)

// backendCall is a call of internal/backend's getters.
var backendCall = regexp.MustCompile(`\bbackend\.(Get|MustGet)\(`)

// getsBackendDirectly reports whether production file rel may call internal/backend's getters: only the
// packages below oryx, which cannot import it (internal/..., layers/..., datasets/...), package oryx itself,
// whose Backend is the one way for everything else, and oryx/oryxtest, the tests' helpers (tests may use
// MustGet).
func getsBackendDirectly(rel string) bool {
	dir := path.Dir(rel)
	for _, below := range []string{"internal", "layers", "datasets"} {
		if dir == below || strings.HasPrefix(dir, below+"/") {
			return true
		}
	}
	return dir == "oryx" || dir == "oryx/oryxtest"
}

// TestOneWayToTheBackend: production code that can import oryx gets the backend through oryx.Backend, not
// internal/backend's Get or MustGet (tests may use MustGet).
func TestOneWayToTheBackend(t *testing.T) {
	prod := func(rel string) bool {
		return checked(rel) && strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") && !getsBackendDirectly(rel)
	}
	forEachFile(t, prod, 50, func(rel string, data []byte) {
		for i, line := range strings.Split(string(data), "\n") {
			if backendCall.MatchString(line) {
				t.Errorf("%s:%d: gets the backend from internal/backend: call oryx.Backend()", rel, i+1)
			}
		}
	})
}
