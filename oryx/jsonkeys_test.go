package oryx

import (
	"testing"

	"github.com/oryx-go/oryx/internal/testutil"
)

// TestJSONKeysSnakeCase: a checkpoint's config.json has snake_case keys only.
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, Config{})
}
