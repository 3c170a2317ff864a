package backend

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUpstreamNote: an XLA build against upstream GoMLX is told what it lacks and the two go.mod lines that
// bring the patched modules (scripts/consumer-check.sh runs such a build); the pure-Go backend never is.
func TestUpstreamNote(t *testing.T) {
	note := upstreamNote()
	require.Contains(t, note, "without in-place buffer donation")
	require.Contains(t, note, "third_party/PATCHES.md")
	for _, m := range []string{"gomlx", "go-xla"} {
		require.Contains(t, note, "replace github.com/gomlx/"+m+" => ")
		require.True(t, strings.Contains(note, "/third_party/"+m+"\n") || strings.HasSuffix(note, "/third_party/"+m), m)
	}
	b, err := NewWithConfig(DefaultConfig)
	require.NoError(t, err)
	require.Empty(t, patchNote(b), "pure Go updates donated buffers in place")
}
