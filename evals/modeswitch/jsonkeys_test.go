package modeswitch

import (
	"testing"

	"github.com/oryx-go/oryx/internal/testutil"
)

// TestJSONKeysSnakeCase: switch.json has snake_case keys.
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, Curves{})
}
