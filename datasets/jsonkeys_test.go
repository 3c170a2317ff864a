package datasets

import (
	"testing"

	"github.com/oryx-go/oryx/internal/testutil"
)

// TestJSONKeysSnakeCase: manifest.json and the data cursors stored in trainer states have snake_case keys.
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, PretokenizedManifest{}, PretokenizedPosition{}, StreamCursor{}, mixState{}, DataSpec{})
}
