package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/internal/claim"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/guard"
)

// synthCmd writes a synthetic corpus to parquet:
//
//	oryx synth --kind mqar --out mqar.parquet --n 10000 [--vocab 256 --seq-len 256 --pairs 16 --seed 1]
//	oryx synth --kind synthlang --out text.parquet --n 10000 [--seed 1]
func synthCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("synth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("kind", "", `corpus: "mqar" (rows {tokens, mask}) or "synthlang" (rows {text})`)
	out := fs.String("out", "", "output parquet file")
	n := fs.Int("n", 1000, "number of examples (mqar) or documents (synthlang)")
	seed := fs.Uint64("seed", 1, "seed: the corpus is a function of it")
	vocab := fs.Int("vocab", 256, "mqar: vocabulary (filler 0, keys [1, V/2), values [V/2, V))")
	seqLen := fs.Int("seq-len", 256, "mqar: sequence length T (rows hold T+1 tokens)")
	pairs := fs.Int("pairs", 16, "mqar: key-value pairs per sequence")
	force := fs.Bool("force", false, "overwrite --out even when it is not a synthetic corpus of this --kind (or lies in another command's output directory)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("synth: unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return cli.Usagef("--out is required")
	}
	if *n <= 0 || *n > maxSynthRows {
		return cli.Usagef("--n must be in [1, %d], got %d", maxSynthRows, *n)
	}
	columns, ok := datasets.SynthColumns[*kind]
	if !ok {
		return cli.Usagef(`--kind must be "mqar" or "synthlang", got %q`, *kind)
	}
	mqar := datasets.MQARConfig{Vocab: *vocab, SeqLen: *seqLen, NumPairs: *pairs, Seed: *seed}
	if *kind == "mqar" {
		if err := checkMQARFlags(mqar, *n); err != nil {
			return err
		}
	}
	// Rewriting a corpus of the same kind is a rerun; anything else at --out (a run's config.json, a parquet
	// file of other columns, real data) is not synth's to replace.
	what := fmt.Sprintf("a synthetic %s corpus (a parquet file of columns %s)", *kind, strings.Join(columns, ", "))
	if err := claim.File("synth: --out", *out, what, func(path string) error { return datasets.HasColumns(path, columns) }, *force); err != nil {
		return err
	}
	var err error
	switch *kind {
	case "mqar":
		err = datasets.WriteMQARParquet(*out, mqar, *n)
	case "synthlang":
		err = datasets.WriteSynthLangParquet(*out, datasets.SynthLangConfig{Seed: *seed}, *n)
	default:
		return cli.Usagef(`--kind must be "mqar" or "synthlang", got %q`, *kind)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d %s rows (seed %d)\n", *out, *n, *kind, *seed)
	return nil
}

// maxSynthRows bounds --n: the corpus is one parquet file, written row by row (a billion rows is a terabyte
// of synthetic text).
const maxSynthRows = 1 << 30

// checkMQARFlags refuses --vocab, --seq-len and --pairs out of range or inconsistent (usage errors naming the
// flags), and rows that would not fit this machine's memory: they are written 1,024 at a time, each of
// seq-len + 1 ids and as many mask bytes, about twice that while encoded.
func checkMQARFlags(cfg datasets.MQARConfig, n int) error {
	err := errors.Join(guard.Check("--vocab", int64(cfg.Vocab), 4, guard.MaxVocab),
		guard.Check("--seq-len", int64(cfg.SeqLen), 1, guard.MaxSeqLen), guard.Check("--pairs", int64(cfg.NumPairs), 1, guard.MaxSeqLen))
	if err != nil {
		return cli.Usage(err)
	}
	if _, err := datasets.NewMQARGenerator(cfg); err != nil {
		return cli.Usagef("--vocab %d --seq-len %d --pairs %d: %w", cfg.Vocab, cfg.SeqLen, cfg.NumPairs, err)
	}
	b, _ := guard.MulAll(int64(min(n, 1024)), int64(cfg.SeqLen+1), 10)
	return guard.CheckMemory(fmt.Sprintf("--seq-len %d (rows written 1,024 at a time)", cfg.SeqLen), b)
}
