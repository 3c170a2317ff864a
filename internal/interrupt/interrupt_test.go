package interrupt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSignalCancels: SIGINT to this process cancels the context (and does not kill the test binary).
func TestSignalCancels(t *testing.T) {
	ctx, stop := Context(context.Background())
	defer stop()
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGINT did not cancel the context")
	}
	require.ErrorIs(t, ctx.Err(), context.Canceled)
}

func TestIs(t *testing.T) {
	other := errors.New("trainer interrupted")
	require.True(t, Is(fmt.Errorf("task x: %w", context.Canceled)))
	require.True(t, Is(fmt.Errorf("run: %w", other), other))
	require.False(t, Is(errors.New("disk full"), other))
	require.False(t, Is(nil))
}
