package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	newSet := func() *flag.FlagSet {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("n", 1, "a number")
		return fs
	}
	for _, args := range [][]string{{"--bogus"}, {"--n", "abc"}, {"--n"}} {
		err := Parse(newSet(), args)
		require.True(t, IsUsage(err), "%v: %v", args, err)
		require.Equal(t, ExitUsage, ExitCode(err), "%v", args)
	}
	err := Parse(newSet(), []string{"-h"})
	require.ErrorIs(t, err, flag.ErrHelp)
	require.False(t, IsUsage(err))
	require.Equal(t, 0, ExitCode(err))
	require.NoError(t, Parse(newSet(), []string{"--n", "3"}))
}

func TestExitCode(t *testing.T) {
	trainer := errors.New("trainer interrupted")
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{flag.ErrHelp, 0},
		{fmt.Errorf("run: %w", flag.ErrHelp), 0},
		{Usagef("--batch must be in [1, 8], got %d", 0), ExitUsage},
		{fmt.Errorf("evals: %w", Usagef("--checkpoint is required")), ExitUsage},
		{Usage(errors.New("unexpected arguments")), ExitUsage},
		{errors.New("checkpoint missing"), ExitFailure},
		{fmt.Errorf("task: %w", context.Canceled), ExitSignal},
		{fmt.Errorf("train: %w", trainer), ExitSignal},
	} {
		require.Equal(t, c.want, ExitCode(c.err, trainer), "%v", c.err)
	}
	require.Nil(t, Usage(nil))
	require.Equal(t, "--n: bad: inner", Usagef("--n: bad: %w", errors.New("inner")).Error())
	inner := errors.New("inner")
	require.ErrorIs(t, Usagef("x: %w", inner), inner)
}

func TestReport(t *testing.T) {
	var b bytes.Buffer
	require.Equal(t, 0, Report(&b, "evals", nil))
	require.Equal(t, 0, Report(&b, "evals", flag.ErrHelp))
	require.Empty(t, b.String())
	require.Equal(t, ExitUsage, Report(&b, "evals", Usagef("--batch must be in [1, 8], got 0")))
	require.Equal(t, "evals: --batch must be in [1, 8], got 0\n", b.String())
}
