package leaderboard

import (
	"testing"

	"github.com/oryx-go/oryx/internal/testutil"
)

// TestJSONKeysSnakeCase: results files and leaderboard.json have snake_case keys, except lm-eval's own
// "n-shot" and "n-samples" (the results layout lm-eval writes and reads; its "<metric>,none" keys are map
// keys, not field names).
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, Leaderboard{}, averageJSON{}, RunInfo{})
}
