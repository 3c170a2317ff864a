package datasets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/claim"
	"github.com/oryx-go/oryx/internal/safefile"
	"github.com/parquet-go/parquet-go"
)

// Pre-tokenized corpora: Pretokenize encodes a text parquet corpus once into token shards, and
// OpenPretokenized reads them back as a TokenDocumentSource that NewTokenStream packs exactly as NewStream
// packs the text (same sequences, same shuffle, same sharding), without tokenizing again.
//
// Layout of a pre-tokenized directory:
//
//	tokens-00000.parquet, tokens-00001.parquet, ...   one row per document: TokenRow{Tokens} (a list<int32>
//	                                                  column "tokens"), ShardRows documents per shard, in
//	                                                  source order; no EOS (the stream adds it)
//	manifest.json                                     PretokenizedManifest: tokenizer, vocab, EOS, source,
//	                                                  shards with their row and token counts, totals
//
// Every shard is written atomically (ParquetWriter) and the manifest last, atomically too: a directory with a
// manifest is a finished corpus, one without is an interrupted run. Documents the stream would skip (empty
// text, text that encodes to no ids) are skipped here and counted in the manifest, as are the null rows the
// column reader skips; invalid UTF-8 is repaired to U+FFFD by the column reader (counted), as it is when the
// stream reads the text, so the two paths see the same documents.

// PretokenizedManifestFile is the name of the manifest in a pre-tokenized directory.
const PretokenizedManifestFile = claim.CorpusManifestFile // internal/rundir tells a corpus by it (claim.Dir)

// DefaultShardRows is the documents per shard when PretokenizeConfig.ShardRows is 0.
const DefaultShardRows = 100_000

const (
	ptkManifestVersion = 1
	ptkShardPrefix     = "tokens-"
	// ptkRowGroupTokens is the tokens after which a shard's row group is flushed: the writer buffers a row
	// group in memory, so this bounds it (4M int32 ids ≈ 16 MB before compression).
	ptkRowGroupTokens = 1 << 22
	// A batch of documents handed to an encoding worker: this many documents or this many bytes of text.
	ptkBatchDocs  = 256
	ptkBatchBytes = 1 << 20
)

// ptkShardName matches the shard files Pretokenize writes.
// Five digits keep the names in shard order when sorted (OpenParquet reads a directory in name order).
var ptkShardName = regexp.MustCompile(`^tokens-[0-9]{5}\.parquet$`)

// ptkMaxShards is the most shards five digits can number.
const ptkMaxShards = 100_000

// TokenRow is one row of a token shard: the ids of one document, without EOS.
type TokenRow struct {
	Tokens []int32 `parquet:"tokens,list"`
}

// PretokenizeConfig configures Pretokenize.
type PretokenizeConfig struct {
	// Input is the text corpus: a parquet file, directory or glob (see OpenParquet). Required.
	Input string
	// Column is the text column; "" means "text".
	Column string
	// OutDir is the output directory, created if needed. It must not hold a manifest (a finished corpus is
	// never overwritten); shard files left by an interrupted run (tokens-NNNNN.parquet and temporary files)
	// are removed; any other *.parquet file in it is an error. Required.
	OutDir string
	// ShardRows is the documents per shard; 0 means DefaultShardRows.
	ShardRows int
	// Tokenizer encodes the documents. Required. With Workers > 1 its Encode must be safe for concurrent use
	// (the tokenizers of this package are).
	Tokenizer tokenizers.Tokenizer
	// Workers is the number of goroutines encoding documents; 0 means runtime.GOMAXPROCS(0). The output does
	// not depend on it.
	Workers int
	// Progress, when set, is called after every batch of documents written (from the goroutine running
	// Pretokenize), and once at the end.
	Progress func(PretokenizeProgress)
	// Context, when set, stops Pretokenize when cancelled: the shard being written is dropped, the finished
	// shards stay, no manifest is written (the directory is an interrupted run: rerunning starts it over) and
	// the error wraps the context's error.
	Context context.Context
}

// PretokenizeProgress is what PretokenizeConfig.Progress reports.
type PretokenizeProgress struct {
	// Rows is the input rows read (null rows included) of TotalRows, the rows of all input files.
	Rows, TotalRows int64
	// Documents and Tokens written so far.
	Documents, Tokens int64
	// Shards begun so far (the one being written included).
	Shards int
	// Elapsed is the time since Pretokenize started.
	Elapsed time.Duration
}

// PretokenizeStats is what Pretokenize did.
type PretokenizeStats struct {
	// Documents written (one row each) and their Tokens (EOS not included).
	Documents int64
	Tokens    int64
	// Rows is the input rows read, null rows included.
	Rows int64
	// Skipped is every input row not written: SkippedEmpty + SkippedNull + SkippedInvalidUTF8.
	Skipped int64
	// SkippedEmpty counts empty documents and documents the tokenizer encoded to no ids.
	SkippedEmpty int64
	// SkippedNull counts null rows (skipped by the column reader).
	SkippedNull int64
	// SkippedInvalidUTF8 counts documents that are not valid UTF-8 (none from a parquet column, whose reader
	// repairs them; see RepairedUTF8).
	SkippedInvalidUTF8 int64
	// RepairedUTF8 counts documents whose invalid UTF-8 the column reader replaced by U+FFFD (still written).
	RepairedUTF8 int64
	// Shards written.
	Shards int
	// Seconds is the wall time.
	Seconds float64
}

// PretokenizedShard is a shard's entry in the manifest.
type PretokenizedShard struct {
	// Name is the file name in the directory (no path).
	Name string `json:"name"`
	// Rows is its documents, Tokens their ids (EOS not included).
	Rows   int64 `json:"rows"`
	Tokens int64 `json:"tokens"`
}

// PretokenizedManifest is manifest.json of a pre-tokenized directory.
type PretokenizedManifest struct {
	Version int `json:"version"`
	// Tokenizer is the tokenizer's Name, VocabSize its VocabSize and EOS its EOS id: every id is in
	// [0, VocabSize), and EOS is what a stream puts between documents.
	Tokenizer string `json:"tokenizer"`
	VocabSize int    `json:"vocab_size"`
	EOS       int    `json:"eos"`
	// Source is the input pattern and Column the text column.
	Source string `json:"source"`
	Column string `json:"column"`
	// Shards in reading order.
	Shards []PretokenizedShard `json:"shards"`
	// Documents and Tokens are the totals of Shards.
	Documents int64 `json:"documents"`
	Tokens    int64 `json:"tokens"`
	// Input rows read, and what was not written (see PretokenizeStats).
	Rows               int64 `json:"rows"`
	SkippedEmpty       int64 `json:"skipped_empty"`
	SkippedNull        int64 `json:"skipped_null"`
	SkippedInvalidUTF8 int64 `json:"skipped_invalid_utf8"`
	RepairedUTF8       int64 `json:"repaired_utf8"`
}

// ptkBatch is a run of consecutive documents, encoded by one worker.
type ptkBatch struct {
	texts []string
	pos   []hfparquet.Position // of each text
	rows  int64                // input rows passed after the batch's last document
	ids   [][]int32            // encoded (nil: skipped as empty)
	bad   []bool               // invalid UTF-8 (skipped)
	err   error
	done  chan struct{} // closed when ids (or err) are ready
}

// Pretokenize encodes the documents of cfg.Input with cfg.Tokenizer into token shards in cfg.OutDir and
// writes the manifest last (see the layout above). It streams: a batch of documents at a time is read,
// encoded (by cfg.Workers goroutines, order kept) and written, and each shard's row groups are flushed every
// few million tokens, so memory does not grow with the corpus.
//
// A tokenizer id outside [0, VocabSize) is an error naming the document's file and row. A corpus in which no
// document has tokens is an error (there would be nothing to train on).
func Pretokenize(cfg PretokenizeConfig) (stats PretokenizeStats, err error) {
	start := time.Now()
	vocab, eos, err := ptkCheckConfig(&cfg)
	if err != nil {
		return stats, err
	}
	tok := cfg.Tokenizer
	if err := ptkRefuseFinished(cfg.OutDir); err != nil {
		return stats, err
	}
	src, err := OpenParquetTextSource(cfg.Input, cfg.Column)
	if err != nil {
		return stats, err
	}
	defer src.Close()
	if err := ptkPrepareOutDir(cfg.OutDir); err != nil {
		return stats, err
	}
	_, totalRows := src.Progress()

	ordered, stop := ptkStart(src, cfg.Workers, tok, vocab)
	defer stop()
	w := &ptkWriter{dir: cfg.OutDir, shardRows: int64(cfg.ShardRows), tok: tok}
	defer w.abort()
	if err := ptkWriteOrdered(cfg, w, ordered, &stats, start, totalRows); err != nil {
		return stats, err
	}
	if err := w.finish(); err != nil {
		return stats, err
	}
	// The reader has returned (it closed ordered): its source is ours again.
	stats.Rows, _ = src.Progress()
	stats.SkippedNull, stats.RepairedUTF8 = src.Skipped(), src.InvalidUTF8()
	stats.Skipped = stats.SkippedEmpty + stats.SkippedNull + stats.SkippedInvalidUTF8
	stats.Documents, stats.Tokens, stats.Shards = w.docs, w.tokens, len(w.shards)
	if stats.Documents == 0 {
		return stats, fmt.Errorf("datasets: Pretokenize: %s: no document has tokens (%d rows: %d null, %d empty, %d invalid UTF-8); nothing written",
			src.Name(), stats.Rows, stats.SkippedNull, stats.SkippedEmpty, stats.SkippedInvalidUTF8)
	}
	m := PretokenizedManifest{
		Version: ptkManifestVersion, Tokenizer: tok.Name(), VocabSize: vocab, EOS: eos,
		Source: cfg.Input, Column: cfg.Column, Shards: w.shards, Documents: stats.Documents, Tokens: stats.Tokens,
		Rows: stats.Rows, SkippedEmpty: stats.SkippedEmpty, SkippedNull: stats.SkippedNull,
		SkippedInvalidUTF8: stats.SkippedInvalidUTF8, RepairedUTF8: stats.RepairedUTF8,
	}
	if err := ptkWriteManifest(cfg.OutDir, m); err != nil {
		return stats, err
	}
	stats.Seconds = time.Since(start).Seconds()
	if cfg.Progress != nil {
		cfg.Progress(PretokenizeProgress{Rows: stats.Rows, TotalRows: totalRows, Documents: stats.Documents, Tokens: stats.Tokens,
			Shards: stats.Shards, Elapsed: time.Since(start)})
	}
	return stats, nil
}

// ptkCheckConfig refuses an incomplete or out-of-range cfg, fills its defaults (shard rows, workers, column)
// and returns the tokenizer's vocabulary size and EOS id, checked to fit int32 ids.
func ptkCheckConfig(cfg *PretokenizeConfig) (vocab, eos int, err error) {
	if cfg.Input == "" {
		return 0, 0, errors.New("datasets: Pretokenize: PretokenizeConfig.Input is empty")
	}
	if cfg.OutDir == "" {
		return 0, 0, errors.New("datasets: Pretokenize: PretokenizeConfig.OutDir is empty")
	}
	if cfg.Tokenizer == nil {
		return 0, 0, errors.New("datasets: Pretokenize: PretokenizeConfig.Tokenizer is nil")
	}
	if cfg.ShardRows < 0 {
		return 0, 0, fmt.Errorf("datasets: Pretokenize: PretokenizeConfig.ShardRows = %d: must be ≥ 1 (0 = %d)", cfg.ShardRows, DefaultShardRows)
	}
	if cfg.ShardRows == 0 {
		cfg.ShardRows = DefaultShardRows
	}
	if cfg.Workers < 0 {
		return 0, 0, fmt.Errorf("datasets: Pretokenize: PretokenizeConfig.Workers = %d: must be ≥ 0 (0 = all CPUs)", cfg.Workers)
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Column == "" {
		cfg.Column = "text"
	}
	tok := cfg.Tokenizer
	vocab, eos = tok.VocabSize(), tok.EOS()
	if vocab < 1 || vocab > 1<<31 {
		return 0, 0, fmt.Errorf("datasets: Pretokenize: tokenizer %s: VocabSize %d does not fit int32 ids", tok.Name(), vocab)
	}
	if eos < 0 || eos >= vocab {
		return 0, 0, fmt.Errorf("datasets: Pretokenize: tokenizer %s: EOS id %d outside [0, VocabSize=%d)", tok.Name(), eos, vocab)
	}
	return vocab, eos, nil
}

// ptkStart starts the pipeline: a reader goroutine cuts src into batches and hands each to one of workers
// encoding goroutines and, in order, to the returned channel, whose reader waits for each batch's ids and
// writes them. stop ends the goroutines (on an early return, the reader stops and closes work, so the
// workers end too) and waits for them.
func ptkStart(src *ParquetTextSource, workers int, tok tokenizers.Tokenizer, vocab int) (ordered <-chan *ptkBatch, stop func()) {
	quit := make(chan struct{})
	work := make(chan *ptkBatch, workers)
	out := make(chan *ptkBatch, 2*workers)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(out)
		ptkRead(src, work, out, quit)
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				ptkEncode(b, tok, vocab)
				close(b.done)
			}
		}()
	}
	return out, func() {
		close(quit)
		wg.Wait()
	}
}

// ptkWriteOrdered writes the batches' documents in order (counting the skipped ones in stats) and reports
// progress; a cancelled cfg.Context stops it with an error saying what was kept.
func ptkWriteOrdered(cfg PretokenizeConfig, w *ptkWriter, ordered <-chan *ptkBatch, stats *PretokenizeStats,
	start time.Time, totalRows int64) error {
	var done <-chan struct{}
	if cfg.Context != nil {
		done = cfg.Context.Done()
	}
	interrupted := func() error {
		var kept int64
		for _, sh := range w.shards {
			kept += sh.Rows
		}
		return fmt.Errorf("datasets: Pretokenize: interrupted after %d documents in %d finished shard(s); %s "+
			"has no manifest (rerun to start over): %w", kept, len(w.shards), cfg.OutDir, cfg.Context.Err())
	}
	for b := range ordered {
		if done != nil && cfg.Context.Err() != nil {
			return interrupted()
		}
		select {
		case <-b.done:
		case <-done:
			return interrupted()
		}
		if b.err != nil {
			return b.err
		}
		for i, ids := range b.ids {
			switch {
			case b.bad[i]:
				stats.SkippedInvalidUTF8++
			case len(ids) == 0:
				stats.SkippedEmpty++
			default:
				if err := w.write(ids); err != nil {
					return err
				}
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(PretokenizeProgress{Rows: b.rows, TotalRows: totalRows, Documents: w.docs, Tokens: w.tokens,
				Shards: w.begun(), Elapsed: time.Since(start)})
		}
	}
	return nil
}

// ptkRefuseFinished refuses an output directory that holds a manifest (a finished corpus).
func ptkRefuseFinished(dir string) error {
	manifest := filepath.Join(dir, PretokenizedManifestFile)
	if _, err := os.Lstat(manifest); err == nil {
		return fmt.Errorf("datasets: Pretokenize: %s already exists: %s holds a finished pre-tokenized corpus; "+
			"remove it or choose another output directory", manifest, dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("datasets: Pretokenize: %w", err)
	}
	return nil
}

// ptkPrepareOutDir creates dir, refuses foreign parquet files in it, and removes the shards and temporary
// files of an interrupted run.
func ptkPrepareOutDir(dir string) error {
	if err := ptkRefuseFinished(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("datasets: Pretokenize: output directory: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("datasets: Pretokenize: output directory: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		stale := !e.IsDir() && (ptkShardName.MatchString(name) ||
			strings.HasPrefix(name, "."+ptkShardPrefix) && strings.Contains(name, ".parquet.tmp-") ||
			strings.HasPrefix(name, "."+PretokenizedManifestFile+".tmp-"))
		if stale {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("datasets: Pretokenize: removing %s left by an interrupted run: %w", filepath.Join(dir, name), err)
			}
		}
	}
	others, err := hfparquet.Walk(dir)
	if err != nil {
		return err
	}
	if len(others) > 0 {
		return fmt.Errorf("datasets: Pretokenize: output directory %s holds parquet files that are not its shards (%s): "+
			"use an empty directory", dir, strings.Join(others, ", "))
	}
	return nil
}

// ptkRead cuts the source into batches, sending each to the workers and, in the same order, to the writer.
// Read errors travel in a batch of their own. It returns at the end of the source, after an error, or when
// quit is closed.
func ptkRead(src *ParquetTextSource, work, ordered chan<- *ptkBatch, quit <-chan struct{}) {
	send := func(b *ptkBatch) bool {
		select {
		case ordered <- b:
		case <-quit:
			return false
		}
		if b.err != nil {
			close(b.done)
			return true
		}
		select {
		case work <- b:
			return true
		case <-quit:
			return false
		}
	}
	for {
		b := &ptkBatch{done: make(chan struct{})}
		size := 0
		for len(b.texts) < ptkBatchDocs && size < ptkBatchBytes {
			text, pos, err := src.col.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.err = err
				send(b)
				return
			}
			b.texts = append(b.texts, text)
			b.pos = append(b.pos, pos)
			size += len(text)
		}
		b.rows, _ = src.Progress()
		if len(b.texts) == 0 {
			return
		}
		if !send(b) {
			return
		}
	}
}

// ptkEncode encodes a batch, checking the ids.
func ptkEncode(b *ptkBatch, tok tokenizers.Tokenizer, vocab int) {
	b.ids = make([][]int32, len(b.texts))
	b.bad = make([]bool, len(b.texts))
	for i, text := range b.texts {
		if text == "" {
			continue
		}
		if !utf8.ValidString(text) {
			b.bad[i] = true
			continue
		}
		ids := tok.Encode(text)
		if len(ids) == 0 {
			continue
		}
		out := make([]int32, len(ids))
		for j, id := range ids {
			if id < 0 || id >= vocab {
				b.err = fmt.Errorf("datasets: Pretokenize: tokenizer %s returned id %d (token %d of the document at %v) outside [0, VocabSize=%d)",
					tok.Name(), id, j, b.pos[i], vocab)
				return
			}
			out[j] = int32(id)
		}
		b.ids[i] = out
	}
	b.texts = nil // the text is no longer needed
}

// ptkWriter writes documents into consecutive shards.
type ptkWriter struct {
	dir       string
	shardRows int64
	tok       tokenizers.Tokenizer

	pw          *hfparquet.Writer[TokenRow]
	cur         PretokenizedShard // the open shard
	groupTokens int64             // tokens in the open row group
	shards      []PretokenizedShard
	docs        int64
	tokens      int64
}

func (w *ptkWriter) write(ids []int32) error {
	if w.pw == nil {
		if len(w.shards) >= ptkMaxShards {
			return fmt.Errorf("datasets: Pretokenize: more than %d shards of %d documents: raise ShardRows", ptkMaxShards, w.shardRows)
		}
		name := fmt.Sprintf("%s%05d.parquet", ptkShardPrefix, len(w.shards))
		pw, err := hfparquet.NewWriter[TokenRow](filepath.Join(w.dir, name),
			parquet.KeyValueMetadata("oryx.tokenizer", w.tok.Name()),
			parquet.KeyValueMetadata("oryx.vocab_size", fmt.Sprint(w.tok.VocabSize())),
			parquet.KeyValueMetadata("oryx.eos", fmt.Sprint(w.tok.EOS())))
		if err != nil {
			return err
		}
		w.pw, w.cur, w.groupTokens = pw, PretokenizedShard{Name: name}, 0
	}
	if err := w.pw.Write(TokenRow{Tokens: ids}); err != nil {
		return err
	}
	n := int64(len(ids))
	w.cur.Rows++
	w.cur.Tokens += n
	w.docs++
	w.tokens += n
	w.groupTokens += n
	if w.cur.Rows >= w.shardRows {
		return w.closeShard()
	}
	if w.groupTokens >= ptkRowGroupTokens {
		w.groupTokens = 0
		return w.pw.Flush()
	}
	return nil
}

func (w *ptkWriter) closeShard() error {
	pw := w.pw
	w.pw = nil
	if err := pw.Close(); err != nil {
		return err
	}
	// The writer's temporary file was created 0600; a corpus is for others to read too.
	if err := os.Chmod(filepath.Join(w.dir, w.cur.Name), 0o644); err != nil {
		return fmt.Errorf("datasets: Pretokenize: %w", err)
	}
	w.shards = append(w.shards, w.cur)
	return nil
}

// begun is the number of shards begun: those closed and the open one.
func (w *ptkWriter) begun() int {
	if w.pw != nil {
		return len(w.shards) + 1
	}
	return len(w.shards)
}

// finish closes the last shard.
func (w *ptkWriter) finish() error {
	if w.pw == nil {
		return nil
	}
	return w.closeShard()
}

// abort discards the open shard (after an error; a no-op after finish).
func (w *ptkWriter) abort() {
	if w.pw != nil {
		w.pw.Abort()
		w.pw = nil
	}
}

// ptkWriteManifest writes dir/manifest.json atomically: a temporary file, synced, then renamed.
func ptkWriteManifest(dir string, m PretokenizedManifest) (err error) {
	path := filepath.Join(dir, PretokenizedManifestFile)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("datasets: Pretokenize: writing %s: %w", path, err)
	}
	data = append(data, '\n')
	tmp, err := os.CreateTemp(dir, "."+PretokenizedManifestFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("datasets: Pretokenize: writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("datasets: Pretokenize: writing %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("datasets: Pretokenize: writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("datasets: Pretokenize: writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("datasets: Pretokenize: writing %s: %w", path, err)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("datasets: Pretokenize: %s appeared while writing (another run into the same directory?)", path)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("datasets: Pretokenize: writing %s: %w", path, err)
	}
	return nil
}

// ---- Reading back ----

// PretokenizedPosition is the position of a PretokenizedSource: Shard indexes the manifest's shards and Row
// counts that shard's rows from 0. The position past the last document is {Shard: len(shards), Row: 0}.
type PretokenizedPosition struct {
	Shard int   `json:"shard"`
	Row   int64 `json:"row"`
}

// PretokenizedSource reads a pre-tokenized directory (Pretokenize) as a TokenDocumentSource: documents in
// shard order, a row group and a page at a time (a shard is never loaded whole), with exact positions
// (PretokenizedPosition JSON) for resuming. Close it when done.
type PretokenizedSource struct {
	dir   string
	man   PretokenizedManifest
	set   *hfparquet.Set
	col   *hfparquet.Int64ListColumn
	docs  int64 // documents returned since the last Seek
	check bool  // docs counts from the start (for the end-of-data check)
}

var _ TokenDocumentSource = (*PretokenizedSource)(nil)

// OpenPretokenized opens the pre-tokenized directory dir: it reads and validates the manifest (an error names
// the file and the field), checks that the directory's parquet files are exactly the manifest's shards with
// the manifest's row counts, and that every shard has a list<int32> "tokens" column. No token data is read.
func OpenPretokenized(dir string) (*PretokenizedSource, error) {
	m, err := ReadPretokenizedManifest(dir)
	if err != nil {
		return nil, err
	}
	mpath := filepath.Join(dir, PretokenizedManifestFile)
	for _, sh := range m.Shards {
		if _, err := os.Stat(filepath.Join(dir, sh.Name)); err != nil {
			return nil, fmt.Errorf("datasets: pre-tokenized corpus %s: shard %s listed in %s: %w", dir, sh.Name, mpath, err)
		}
	}
	set, err := hfparquet.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("datasets: pre-tokenized corpus %s: %w", dir, err)
	}
	files, rows := set.Files(), set.FileRows()
	want := make(map[string]bool, len(m.Shards))
	for _, sh := range m.Shards {
		want[filepath.Join(dir, sh.Name)] = true
	}
	for _, f := range files {
		if !want[f] {
			return nil, fmt.Errorf("datasets: pre-tokenized corpus %s: %s is not a shard listed in %s", dir, f, mpath)
		}
	}
	if len(files) != len(m.Shards) {
		return nil, fmt.Errorf("datasets: pre-tokenized corpus %s: %d parquet files but %s lists %d shards", dir, len(files), mpath, len(m.Shards))
	}
	for i, sh := range m.Shards { // shard names sort in shard order, as OpenParquet sorts files
		if files[i] != filepath.Join(dir, sh.Name) {
			return nil, fmt.Errorf("datasets: pre-tokenized corpus %s: %s: shards are not in name order (shard %d is %s)", dir, mpath, i, sh.Name)
		}
		if rows[i] != sh.Rows {
			return nil, fmt.Errorf("datasets: pre-tokenized corpus %s: %s has %d rows but %s says %d (replaced or truncated?)",
				dir, files[i], rows[i], mpath, sh.Rows)
		}
	}
	col, err := set.Int64Lists("tokens")
	if err != nil {
		return nil, fmt.Errorf("datasets: pre-tokenized corpus %s: %w", dir, err)
	}
	return &PretokenizedSource{dir: dir, man: m, set: set, col: col, check: true}, nil
}

// ReadPretokenizedManifest reads and validates dir/manifest.json; an error names the file and the field.
func ReadPretokenizedManifest(dir string) (PretokenizedManifest, error) {
	var m PretokenizedManifest
	path := filepath.Join(dir, PretokenizedManifestFile)
	data, err := safefile.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return m, fmt.Errorf("datasets: pre-tokenized corpus %s: no %s (not a pre-tokenized directory, or an unfinished Pretokenize run): %w",
				dir, PretokenizedManifestFile, err)
		}
		return m, fmt.Errorf("datasets: pre-tokenized corpus %s: %w", dir, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("datasets: %s: not a valid manifest: %w", path, err)
	}
	if dec.More() {
		return m, fmt.Errorf("datasets: %s: not a valid manifest: data after the JSON object", path)
	}
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("datasets: %s: field %q: %s", path, field, fmt.Sprintf(format, args...))
	}
	switch {
	case m.Version != ptkManifestVersion:
		return m, bad("version", "%d, want %d", m.Version, ptkManifestVersion)
	case m.Tokenizer == "":
		return m, bad("tokenizer", "missing or empty")
	case m.VocabSize < 1 || m.VocabSize > 1<<31:
		return m, bad("vocab_size", "%d does not fit int32 ids (want 1 to 2^31)", m.VocabSize)
	case m.EOS < 0 || m.EOS >= m.VocabSize:
		return m, bad("eos", "%d outside [0, vocab_size=%d)", m.EOS, m.VocabSize)
	case len(m.Shards) == 0:
		return m, bad("shards", "missing or empty")
	}
	var docs, tokens int64
	seen := make(map[string]bool, len(m.Shards))
	for i, sh := range m.Shards {
		field := fmt.Sprintf("shards[%d]", i)
		switch {
		case !ptkShardName.MatchString(sh.Name):
			return m, bad(field+".name", "%q is not a shard file name (tokens-NNNNN.parquet)", sh.Name)
		case seen[sh.Name]:
			return m, bad(field+".name", "%q listed twice", sh.Name)
		case i > 0 && sh.Name <= m.Shards[i-1].Name:
			return m, bad(field+".name", "%q is not after %q: shards must be in name order", sh.Name, m.Shards[i-1].Name)
		case sh.Rows < 1:
			return m, bad(field+".rows", "%d, want ≥ 1", sh.Rows)
		case sh.Tokens < sh.Rows:
			return m, bad(field+".tokens", "%d is fewer than its %d rows (every document has tokens)", sh.Tokens, sh.Rows)
		}
		seen[sh.Name] = true
		docs += sh.Rows
		tokens += sh.Tokens
	}
	if m.Documents != docs {
		return m, bad("documents", "%d but the shards hold %d rows", m.Documents, docs)
	}
	if m.Tokens != tokens {
		return m, bad("tokens", "%d but the shards hold %d tokens", m.Tokens, tokens)
	}
	return m, nil
}

// NextTokens returns the next document's ids (a fresh slice, no EOS), or io.EOF after the last. An id
// outside [0, vocab_size) is an error naming the shard and row.
func (s *PretokenizedSource) NextTokens() ([]int32, error) {
	v, pos, err := s.col.Next()
	if err == io.EOF {
		if s.check && s.docs != s.man.Documents {
			return nil, fmt.Errorf("datasets: pre-tokenized corpus %s: read %d documents but %s lists %d",
				s.dir, s.docs, PretokenizedManifestFile, s.man.Documents)
		}
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	s.docs++
	out := make([]int32, len(v))
	for i, id := range v {
		if id < 0 || id >= int64(s.man.VocabSize) {
			return nil, fmt.Errorf("datasets: pre-tokenized corpus %s: %s row %d: token %d is id %d, outside [0, vocab_size=%d)",
				s.dir, s.man.Shards[pos.File].Name, pos.Row, i, id, s.man.VocabSize)
		}
		out[i] = int32(id)
	}
	return out, nil
}

// Position returns the PretokenizedPosition JSON of the next document.
func (s *PretokenizedSource) Position() json.RawMessage {
	p := s.col.Position()
	b, err := json.Marshal(PretokenizedPosition{Shard: p.File, Row: p.Row})
	if err != nil {
		panic(fmt.Sprintf("datasets: marshalling PretokenizedPosition: %v", err)) // two integers: cannot fail
	}
	return b
}

// Seek continues at a position from Position (PretokenizedPosition JSON); nil or null rewinds.
func (s *PretokenizedSource) Seek(pos json.RawMessage) error {
	var p PretokenizedPosition
	if !isStartPosition(pos) {
		dec := json.NewDecoder(bytes.NewReader(pos))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("datasets: %s: seek position %s is not a PretokenizedPosition: %w", s.Name(), pos, err)
		}
	}
	if err := s.col.Seek(hfparquet.Position{File: p.Shard, Row: p.Row}); err != nil {
		return fmt.Errorf("datasets: %s: seek to shard %d row %d: %w", s.Name(), p.Shard, p.Row, err)
	}
	s.docs, s.check = 0, p.Shard == 0 && p.Row == 0
	return nil
}

// Name is "pretokenized(DIR)".
func (s *PretokenizedSource) Name() string { return "pretokenized(" + s.dir + ")" }

// Manifest returns the validated manifest (a copy).
func (s *PretokenizedSource) Manifest() PretokenizedManifest {
	m := s.man
	m.Shards = slices.Clone(m.Shards)
	return m
}

// EOS is the manifest's EOS id (an argument of NewTokenStream).
func (s *PretokenizedSource) EOS() int { return s.man.EOS }

// VocabSize is the manifest's vocabulary size (an argument of NewTokenStream).
func (s *PretokenizedSource) VocabSize() int { return s.man.VocabSize }

// CheckTokenizer reports whether the corpus was made with tok: same Name, VocabSize and EOS, or an error
// naming the manifest and both values. A model trained on the corpus must use that tokenizer.
func (s *PretokenizedSource) CheckTokenizer(tok tokenizers.Tokenizer) error {
	mpath := filepath.Join(s.dir, PretokenizedManifestFile)
	switch {
	case tok.Name() != s.man.Tokenizer:
		return fmt.Errorf("datasets: pre-tokenized corpus %s was made with tokenizer %q (%s), not %q", s.dir, s.man.Tokenizer, mpath, tok.Name())
	case tok.VocabSize() != s.man.VocabSize:
		return fmt.Errorf("datasets: pre-tokenized corpus %s: tokenizer %q has VocabSize %d but %s says %d", s.dir, tok.Name(), tok.VocabSize(), mpath, s.man.VocabSize)
	case tok.EOS() != s.man.EOS:
		return fmt.Errorf("datasets: pre-tokenized corpus %s: tokenizer %q has EOS %d but %s says %d", s.dir, tok.Name(), tok.EOS(), mpath, s.man.EOS)
	}
	return nil
}

// Progress returns the documents passed and the total (for progress bars).
func (s *PretokenizedSource) Progress() (done, total int64) { return s.col.Progress() }

// Close closes the open shard.
func (s *PretokenizedSource) Close() error { return s.col.Close() }
