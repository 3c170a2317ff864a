package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/claim"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/interrupt"
	"github.com/oryx-go/oryx/internal/progress"
)

// maxTokenizeWorkers bounds --workers: each is a goroutine with its own buffers, and encoding is CPU-bound
// (more workers than cores only add memory).
const maxTokenizeWorkers = 1024

// tokenizeCmd implements `oryx tokenize`: encode a text parquet corpus once into token shards
// (datasets.Pretokenize), with a progress bar on stderr and a summary line on stdout.
func tokenizeCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	input := fs.String("input", "", "text corpus: a parquet file, a directory (every *.parquet below it) or a quoted glob (required)")
	column := fs.String("column", "text", "the text column")
	tokSpec := fs.String("tokenizer", "", "bytes, PATH/tokenizer.json (Hugging Face byte-level BPE) or PATH/tokenizer.model (SentencePiece) (required)")
	out := fs.String("out", "", "output directory for tokens-NNNNN.parquet shards and manifest.json (required; must not hold a finished corpus)")
	shardRows := fs.Int("shard-rows", datasets.DefaultShardRows, "documents per shard")
	workers := fs.Int("workers", 0, "goroutines encoding documents (0 = all CPUs)")
	force := fs.Bool("force", false, "write into --out even when it holds another command's output (a run directory, an export, ...)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: oryx tokenize --input PATTERN [--column text] --tokenizer (bytes|PATH/tokenizer.json|PATH/tokenizer.model)\n"+
			"                     --out DIR [--shard-rows N] [--workers N]\n\n"+
			"Encodes every document of a text parquet corpus once and writes the ids (no EOS; the training stream\n"+
			"adds it) as parquet shards of --shard-rows documents (list<int32> column \"tokens\") plus manifest.json\n"+
			"(written last: a directory without it is an unfinished run). Empty and null documents are skipped and\n"+
			"counted. Progress goes to stderr (a bar on a terminal, a line every 10% otherwise); the summary to stdout.\n\n")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("tokenize: unexpected arguments %q (quote a glob: --input 'data/*.parquet')", fs.Args())
	}
	if *input == "" {
		return cli.Usagef("tokenize: --input PATTERN is required (a parquet file, directory or glob)")
	}
	if *out == "" {
		return cli.Usagef("tokenize: --out DIR is required")
	}
	if *tokSpec == "" {
		return cli.Usagef("tokenize: --tokenizer is required: bytes, PATH/tokenizer.json or PATH/tokenizer.model")
	}
	if strings.TrimSpace(*column) == "" {
		return cli.Usagef("tokenize: --column must not be empty")
	}
	if *shardRows < 1 {
		return cli.Usagef("tokenize: --shard-rows must be >= 1, got %d", *shardRows)
	}
	if *workers < 0 || *workers > maxTokenizeWorkers {
		return cli.Usagef("tokenize: --workers must be >= 0 and <= %d (0 = all CPUs), got %d", maxTokenizeWorkers, *workers)
	}
	tok, err := tokenizers.Load(*tokSpec)
	if err != nil {
		return fmt.Errorf("tokenize: --tokenizer: %w", err)
	}
	if err := claim.Dir("tokenize: --out", *out, claim.Corpus, *force); err != nil {
		return err
	}

	ctx, stop := interrupt.Context(context.Background())
	defer stop()
	bar := datasets.NewPretokenizeBar(stderr, progress.IsTerminal(stderr), time.Now)
	stats, err := datasets.Pretokenize(datasets.PretokenizeConfig{
		Input: *input, Column: *column, OutDir: *out, ShardRows: *shardRows, Tokenizer: tok, Workers: *workers,
		Progress: bar.Update, Context: ctx,
	})
	bar.Finish()
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	fmt.Fprintln(stdout, stats.Summary(*out, tok))
	return nil
}
