package main

import (
	"flag"
	"os"

	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/layers/selfcheck"
)

// maxSelfcheckT bounds -T: the token-by-token form unrolls T steps into one graph.
const maxSelfcheckT = 4096

// selfcheckCmd is `oryx selfcheck`: the backend in use and every mixer's forms cross-checked on it
// (layers/selfcheck), reported on standard output.
func selfcheckCmd(args []string) error {
	fs := flag.NewFlagSet("selfcheck", flag.ContinueOnError)
	seqLen := fs.Int("T", 96, "sequence length")
	chunk := fs.Int("chunk", 32, "chunk length")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("selfcheck: unexpected arguments %q", fs.Args())
	}
	if *seqLen <= 0 || *chunk <= 0 {
		return cli.Usagef("flags -T and -chunk must be > 0, got %d and %d", *seqLen, *chunk)
	}
	if *seqLen > maxSelfcheckT || *chunk > guard.MaxChunk {
		return cli.Usagef("flags -T and -chunk must be ≤ %d and ≤ %d, got %d and %d", maxSelfcheckT, guard.MaxChunk, *seqLen, *chunk)
	}
	return selfcheck.Run(os.Stdout, *seqLen, *chunk)
}
