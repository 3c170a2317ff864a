package recipe

import (
	"testing"

	"github.com/oryx-go/oryx/internal/testutil"
)

// TestJSONKeysSnakeCase: the --plan JSON has snake_case keys only (the model and training configs inside it
// included).
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, Plan{}, HardwarePlan{})
}
