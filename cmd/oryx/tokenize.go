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
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/internal/interrupt"
	"github.com/oryx-go/oryx/internal/progress"
	"github.com/oryx-go/oryx/internal/rundir"
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
	if err := rundir.Claim("tokenize: --out", *out, rundir.KindCorpus, *force); err != nil {
		return err
	}

	ctx, stop := interrupt.Context(context.Background())
	defer stop()
	bar := newProgressBar(stderr, isTerminal(stderr), time.Now)
	stats, err := datasets.Pretokenize(datasets.PretokenizeConfig{
		Input: *input, Column: *column, OutDir: *out, ShardRows: *shardRows, Tokenizer: tok, Workers: *workers,
		Progress: bar.update, Context: ctx,
	})
	bar.finish()
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	rate := 0.0
	if stats.Seconds > 0 {
		rate = float64(stats.Tokens) / stats.Seconds
	}
	fmt.Fprintf(stdout, "tokenized %d documents, %d tokens (%s) into %d %s in %s in %.1f s (%s tokens/s); "+
		"skipped %d (%d empty, %d null); %d repaired UTF-8; tokenizer %s (vocab %d, eos %d)\n",
		stats.Documents, stats.Tokens, human.Count(float64(stats.Tokens)), stats.Shards, plural(stats.Shards, "shard", "shards"),
		*out, stats.Seconds, human.Count(rate),
		stats.Skipped, stats.SkippedEmpty, stats.SkippedNull, stats.RepairedUTF8,
		tok.Name(), tok.VocabSize(), tok.EOS())
	return nil
}

// isTerminal is the project's one terminal test (internal/progress), for the commands' progress output.
var isTerminal = progress.IsTerminal

// progressBar renders datasets.PretokenizeProgress (internal/progress). On a terminal it redraws one line
// "\r[#####     ] 45% 1.2M docs 310k tok/s ETA 1m20s" at most every 200 ms; otherwise it writes a line each
// time another 10% of the input rows is done.
type progressBar struct {
	r       *progress.Reporter
	final   datasets.PretokenizeProgress
	started bool
}

func newProgressBar(w io.Writer, terminal bool, now func() time.Time) *progressBar {
	mode := progress.Log
	if terminal {
		mode = progress.Terminal
	}
	return &progressBar{r: progress.New(w, progress.Options{Mode: mode, Now: now, LogInterval: -1, LogSteps: 10})}
}

func (b *progressBar) update(p datasets.PretokenizeProgress) {
	b.final, b.started = p, true
	b.r.Update(float64(p.Rows), float64(p.TotalRows), false, func() string { return b.line(p) })
}

// finish draws the last state and ends the terminal line.
func (b *progressBar) finish() {
	if b.r.Terminal() && b.started {
		b.r.Update(float64(b.final.Rows), float64(b.final.TotalRows), true, func() string { return b.line(b.final) })
		b.r.Finish()
	}
}

// line is the progress text: a bar (terminal only), percent, documents, tokens/s and ETA.
func (b *progressBar) line(p datasets.PretokenizeProgress) string {
	frac := 0.0
	if p.TotalRows > 0 {
		frac = min(1, float64(p.Rows)/float64(p.TotalRows))
	}
	bar := b.r.Terminal()
	var sb strings.Builder
	if bar {
		sb.WriteString("[" + progress.Bar(frac, 20, "#", " ") + "] ")
	} else {
		sb.WriteString("tokenize: ")
	}
	secs := p.Elapsed.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(p.Tokens) / secs
	}
	fmt.Fprintf(&sb, "%3.0f%% %s docs %s tok/s", 100*frac, human.Count(float64(p.Documents)), human.Count(rate))
	if !bar {
		fmt.Fprintf(&sb, " (%d/%d rows, %d tokens, %d shards)", p.Rows, p.TotalRows, p.Tokens, p.Shards)
	}
	switch {
	case frac >= 1:
		fmt.Fprintf(&sb, " in %s", formatDuration(p.Elapsed))
	case frac > 0:
		fmt.Fprintf(&sb, " ETA %s", formatDuration(progress.Remaining(p.Elapsed, frac, 1-frac)))
	}
	return sb.String()
}

// formatDuration renders d rounded to the second ("0s", "45s", "1m20s", "2h3m0s").
func formatDuration(d time.Duration) string {
	return d.Round(time.Second).String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
