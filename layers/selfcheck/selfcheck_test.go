package selfcheck

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunChecksEveryForm: a short self check names the backend, measures every form of both mixers against
// the loop form and passes.
func TestRunChecksEveryForm(t *testing.T) {
	var out strings.Builder
	require.NoError(t, Run(&out, 12, 4))
	for _, want := range []string{"compiled in:", "ssd  loop", "ssd  scan", "ssd  dense", "ssd  step", "gdn  loop",
		"gdn  scan", "gdn  step", "selfcheck: OK"} {
		require.Contains(t, out.String(), want)
	}
	require.NotContains(t, out.String(), "gdn  dense", "the gated delta rule has no dense form")
}
