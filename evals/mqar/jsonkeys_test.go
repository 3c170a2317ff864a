package mqar

import (
	"testing"

	"github.com/oryx-go/oryx/internal/testutil"
)

// TestJSONKeysSnakeCase: mqar.json (`evals mqar`) has snake_case keys.
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, Result{})
}
