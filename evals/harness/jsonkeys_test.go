package harness

import (
	"testing"

	"github.com/oryx-go/oryx/internal/testutil"
)

// TestJSONKeysSnakeCase: task results and the samples' request details have snake_case keys.
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, Result{}, metricJSON{}, SampleRequest{})
}
