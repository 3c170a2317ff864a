package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"unicode/utf8"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/seedrand"
)

// Pretraining stream: documents → Tokenizer.Encode → one token stream with EOS after every document →
// packed windows of T+1 tokens → seeded shuffle buffer → round-robin sharding over data-parallel workers.
//
// Packing convention. Let S be the token stream (every document's ids followed by EOS, documents in source
// order, epochs one after another). Window k is S[kT : kT+T+1]: windows start every T tokens and overlap by
// exactly one token, so the last target of window k is the first input of window k+1. With inputs = w[:T]
// and targets = w[1:], every token of S is an input exactly once and a target exactly once (except S[0],
// never a target, and the tail at the very end, see below) — nothing is lost and nothing is trained on
// twice. Documents are not aligned to windows: a document longer than T simply continues in the next
// window, and a window may hold the end of one document, EOS, and the start of the next (that is packing;
// attention is not masked at document boundaries). Epochs are concatenated into S the same way, so packing
// carries on across an epoch boundary.
//
// End of data. When the source is exhausted (after the last epoch) the tokens after the last full window's
// end, fewer than T+1, are dropped; StreamStats.DroppedTail counts those never used as inputs.
//
// Shuffling. Windows go through a buffer of ShuffleBuffer windows: it is filled to capacity, then each
// sequence out is a uniformly chosen buffered window (removed and, on the next call, replaced by the next
// packed window); at the end the buffer drains in random order. The choices come from a PCG seeded by Seed
// alone, so the order depends only on (Seed, data, SeqLen, ShuffleBuffer) — not on Rank or World.
// ShuffleBuffer 1 keeps source order.
//
// Sharding. Number the shuffled sequences g = 0, 1, 2, ...; worker Rank of World yields those with
// g mod World == Rank. Every worker reads and tokenizes the whole source (the cost is World× tokenization,
// the benefit is an exact partition: the ranks' streams interleaved round-robin are the single-worker stream).
//
// Bad input. Empty documents (and documents the tokenizer maps to no ids) and documents that are not valid
// UTF-8 are skipped, counted in StreamStats and logged to StreamConfig.Log (os.Stderr when nil; the first
// few of each kind individually, then a summary at the end of the stream). A tokenizer id outside
// [0, VocabSize) is an error.

// DefaultShuffleBuffer is the shuffle buffer size (in windows) used when StreamConfig.ShuffleBuffer is 0.
const DefaultShuffleBuffer = 1024

// EpochsForever, as StreamConfig.Epochs, makes the stream loop over the source without end.
const EpochsForever = -1

// maxLoggedSkips is how many skipped documents of each kind are logged one by one.
const maxLoggedSkips = 10

// StreamConfig configures NewStream.
type StreamConfig struct {
	// SeqLen is T: every sequence has T+1 tokens (inputs seq[:T], targets seq[1:]). Required, ≥ 1.
	SeqLen int `json:"seq_len"`
	// ShuffleBuffer is the shuffle buffer size in windows: 0 means DefaultShuffleBuffer, 1 means no
	// shuffling (source order).
	ShuffleBuffer int `json:"shuffle_buffer"`
	// Seed seeds the shuffle.
	Seed uint64 `json:"seed"`
	// Rank and World shard the stream over data-parallel workers: 0 ≤ Rank < World; World 0 means 1.
	Rank  int `json:"rank"`
	World int `json:"world"`
	// Epochs is the number of passes over the source: 0 means 1, EpochsForever (-1) loops without end.
	Epochs int `json:"epochs"`
	// Log receives skip reports and the end-of-stream summary; nil means os.Stderr. Not part of a cursor.
	Log io.Writer `json:"-"`
}

// normalized returns cfg with defaults filled in, or an error naming the bad field.
func (cfg StreamConfig) normalized() (StreamConfig, error) {
	if cfg.SeqLen < 1 {
		return cfg, fmt.Errorf("datasets: StreamConfig.SeqLen = %d: must be ≥ 1", cfg.SeqLen)
	}
	if cfg.ShuffleBuffer < 0 {
		return cfg, fmt.Errorf("datasets: StreamConfig.ShuffleBuffer = %d: must be ≥ 0 (0 = default %d, 1 = no shuffling)",
			cfg.ShuffleBuffer, DefaultShuffleBuffer)
	}
	if cfg.ShuffleBuffer == 0 {
		cfg.ShuffleBuffer = DefaultShuffleBuffer
	}
	if cfg.World < 0 {
		return cfg, fmt.Errorf("datasets: StreamConfig.World = %d: must be ≥ 1 (0 = 1)", cfg.World)
	}
	if cfg.World == 0 {
		cfg.World = 1
	}
	if cfg.Rank < 0 || cfg.Rank >= cfg.World {
		return cfg, fmt.Errorf("datasets: StreamConfig.Rank = %d: must be in [0, World=%d)", cfg.Rank, cfg.World)
	}
	if cfg.Epochs < EpochsForever {
		return cfg, fmt.Errorf("datasets: StreamConfig.Epochs = %d: must be ≥ 1, 0 (= 1) or EpochsForever (-1)", cfg.Epochs)
	}
	if cfg.Epochs == 0 {
		cfg.Epochs = 1
	}
	return cfg, nil
}

// StreamStats counts what a Stream has done. Counts of documents and tokens cover the whole source as read
// by this worker (every worker reads everything).
type StreamStats struct {
	// Documents read from the source, skipped ones included, over all epochs.
	Documents int64 `json:"documents"`
	// SkippedEmpty counts empty documents and documents the tokenizer encoded to no ids.
	SkippedEmpty int64 `json:"skipped_empty"`
	// SkippedInvalidUTF8 counts documents that are not valid UTF-8.
	SkippedInvalidUTF8 int64 `json:"skipped_invalid_utf8"`
	// Tokens appended to the token stream, EOS included.
	Tokens int64 `json:"tokens"`
	// Packed counts windows packed (the global stream, before shuffling).
	Packed int64 `json:"packed"`
	// Emitted counts sequences out of the shuffle buffer (the global stream, all ranks).
	Emitted int64 `json:"emitted"`
	// Yielded counts sequences Next returned to this worker.
	Yielded int64 `json:"yielded"`
	// DroppedTail counts the tokens at the very end never used as inputs (fewer than T+1 were left).
	DroppedTail int64 `json:"dropped_tail"`
	// Epochs counts completed passes over the source.
	Epochs int `json:"epochs"`
}

// TokenDocumentSource is a DocumentSource whose documents are already token ids (a pre-tokenized corpus, see
// OpenPretokenized): NextTokens returns the next document's ids (no EOS; the stream adds it), and Position,
// Seek and Name follow the DocumentSource contract. NewTokenStream packs such a source exactly as NewStream
// packs the text it came from.
type TokenDocumentSource interface {
	NextTokens() ([]int32, error)
	Position() json.RawMessage
	Seek(pos json.RawMessage) error
	Name() string
}

// streamSource is what a Stream needs of either kind of source besides reading a document.
type streamSource interface {
	Position() json.RawMessage
	Seek(pos json.RawMessage) error
	Name() string
}

// Stream packs a DocumentSource (or a TokenDocumentSource) into shuffled, sharded training sequences of T+1
// token ids. It is not safe for concurrent use.
type Stream struct {
	cfg     StreamConfig
	src     streamSource         // docs or toks
	docs    DocumentSource       // text documents, encoded by tok (nil for a token stream)
	toks    TokenDocumentSource  // token documents (nil for a text stream)
	tok     tokenizers.Tokenizer // nil for a token stream
	tokName string               // tok.Name(), or the token stream's label (see NewTokenStream)
	eos     int32
	vocab   int
	log     io.Writer

	pcg *rand.PCG
	// pending[off:] is the token stream from the start of the next window on.
	pending []int32
	off     int
	buf     [][]int32 // shuffle buffer

	epoch       int   // current epoch, 0-based
	epochDocs   int64 // documents read in the current epoch
	epochTokens int64 // tokens appended in the current epoch
	srcDone     bool  // the source is exhausted for good (last epoch read)
	packDone    bool  // no more windows will be packed
	summarized  bool  // the end-of-stream summary was logged

	stats StreamStats
	err   error // sticky error
}

// NewStream returns a stream over src (rewound to its start) encoded by tok.
func NewStream(cfg StreamConfig, src DocumentSource, tok tokenizers.Tokenizer) (*Stream, error) {
	s, err := newStream(cfg, src, tok)
	if err != nil {
		return nil, err
	}
	if err := src.Seek(nil); err != nil {
		return nil, fmt.Errorf("datasets: stream: rewinding source %s: %w", src.Name(), err)
	}
	return s, nil
}

func newStream(cfg StreamConfig, src DocumentSource, tok tokenizers.Tokenizer) (*Stream, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, errors.New("datasets: stream: nil DocumentSource")
	}
	if tok == nil {
		return nil, errors.New("datasets: stream: nil Tokenizer")
	}
	s, err := newStreamCore(cfg, src, "tokenizer "+tok.Name(), tok.Name(), tok.EOS(), tok.VocabSize())
	if err != nil {
		return nil, err
	}
	s.docs, s.tok = src, tok
	return s, nil
}

// newStreamCore builds the state shared by text and token streams; what names the ids in errors.
func newStreamCore(cfg StreamConfig, src streamSource, what, tokName string, eos, vocab int) (*Stream, error) {
	if vocab < 1 || vocab > 1<<31 {
		return nil, fmt.Errorf("datasets: stream: %s: VocabSize %d does not fit int32 ids", what, vocab)
	}
	if eos < 0 || eos >= vocab {
		return nil, fmt.Errorf("datasets: stream: %s: EOS id %d outside [0, VocabSize=%d)", what, eos, vocab)
	}
	log := cfg.Log
	if log == nil {
		log = os.Stderr
	}
	return &Stream{
		cfg: cfg, src: src, tokName: tokName, eos: int32(eos), vocab: vocab, log: log,
		pcg: seedrand.NewPCG(cfg.Seed, 0x5eed_57ea_a000_0001),
	}, nil
}

// NewTokenStream returns a stream over the token documents of src (rewound to its start), with EOS id eos
// between documents and ids checked against [0, vocab). It packs, shuffles, shards and checkpoints exactly as
// NewStream: over a pre-tokenized copy of a corpus (Pretokenize) it yields the same sequences as NewStream
// over the text with the same tokenizer and configuration, without tokenizing again. An empty document is
// skipped and counted as in NewStream.
//
// The stream has no Tokenizer: its cursors record the label "pretokenized(eos=E,vocab=V)" in place of a
// tokenizer name, so ResumeTokenStream checks eos and vocab; checking that the ids come from the tokenizer
// a model expects is the caller's (see PretokenizedSource.CheckTokenizer).
func NewTokenStream(cfg StreamConfig, src TokenDocumentSource, eos, vocab int) (*Stream, error) {
	s, err := newTokenStream(cfg, src, eos, vocab)
	if err != nil {
		return nil, err
	}
	if err := src.Seek(nil); err != nil {
		return nil, fmt.Errorf("datasets: stream: rewinding source %s: %w", src.Name(), err)
	}
	return s, nil
}

func newTokenStream(cfg StreamConfig, src TokenDocumentSource, eos, vocab int) (*Stream, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, errors.New("datasets: stream: nil TokenDocumentSource")
	}
	label := tokenStreamLabel(eos, vocab)
	s, err := newStreamCore(cfg, src, label, label, eos, vocab)
	if err != nil {
		return nil, err
	}
	s.toks = src
	return s, nil
}

// tokenStreamLabel stands for the tokenizer name in a token stream's cursors and errors.
func tokenStreamLabel(eos, vocab int) string {
	return fmt.Sprintf("pretokenized(eos=%d,vocab=%d)", eos, vocab)
}

// Config returns the stream's configuration with defaults filled in.
func (s *Stream) Config() StreamConfig { return s.cfg }

// Stats returns the counters so far.
func (s *Stream) Stats() StreamStats { return s.stats }

// Next returns this worker's next sequence of SeqLen+1 token ids (a fresh slice the caller may keep), or
// io.EOF at the end of the stream. Any other error is sticky.
func (s *Stream) Next() ([]int32, error) {
	if s.err != nil {
		return nil, s.err
	}
	for {
		seq, err := s.nextGlobal()
		if err != nil {
			if err == io.EOF {
				s.summarize()
			} else {
				s.err = err
			}
			return nil, err
		}
		g := s.stats.Emitted
		s.stats.Emitted++
		if int(g%int64(s.cfg.World)) == s.cfg.Rank {
			s.stats.Yielded++
			return seq, nil
		}
	}
}

// Batch returns the next b sequences. If the stream ends first it returns the sequences it got (possibly
// none) together with io.EOF.
func (s *Stream) Batch(b int) ([][]int32, error) {
	if b < 1 {
		return nil, fmt.Errorf("datasets: Stream.Batch: batch size %d must be ≥ 1", b)
	}
	out := make([][]int32, 0, b)
	for len(out) < b {
		seq, err := s.Next()
		if err != nil {
			if len(out) == 0 {
				out = nil
			}
			return out, err
		}
		out = append(out, seq)
	}
	return out, nil
}

// InputsTargets splits a sequence of T+1 tokens into inputs seq[:T] and targets seq[1:] (views, not copies).
func InputsTargets(seq []int32) (inputs, targets []int32) {
	if len(seq) == 0 {
		return nil, nil
	}
	return seq[:len(seq)-1], seq[1:]
}

// nextGlobal returns the next sequence of the shuffled global stream.
func (s *Stream) nextGlobal() ([]int32, error) {
	for !s.packDone && len(s.buf) < s.cfg.ShuffleBuffer {
		w, err := s.nextWindow()
		if err == io.EOF {
			s.packDone = true
			break
		}
		if err != nil {
			return nil, err
		}
		s.buf = append(s.buf, w)
	}
	n := len(s.buf)
	if n == 0 {
		return nil, io.EOF
	}
	j := seedrand.UniformN(s.pcg, n)
	out := s.buf[j]
	s.buf[j] = s.buf[n-1]
	s.buf[n-1] = nil
	s.buf = s.buf[:n-1]
	return out, nil
}

// nextWindow packs the next window of T+1 tokens, or returns io.EOF when the source is done.
func (s *Stream) nextWindow() ([]int32, error) {
	T := s.cfg.SeqLen
	for len(s.pending)-s.off < T+1 {
		if s.srcDone {
			s.stats.DroppedTail += int64(len(s.pending) - s.off)
			s.pending, s.off = nil, 0
			return nil, io.EOF
		}
		if err := s.readDocument(); err != nil {
			return nil, err
		}
	}
	w := make([]int32, T+1)
	copy(w, s.pending[s.off:s.off+T+1])
	s.off += T
	if s.off >= 1<<12 && 2*s.off >= len(s.pending) {
		n := copy(s.pending, s.pending[s.off:])
		s.pending, s.off = s.pending[:n], 0
	}
	s.stats.Packed++
	return w, nil
}

// readDocument reads one document and appends its ids and EOS to pending, or skips it, or handles the end
// of an epoch.
func (s *Stream) readDocument() error {
	if s.toks != nil {
		return s.readTokenDocument()
	}
	text, err := s.docs.Next()
	if err != nil {
		return s.sourceError(err)
	}
	index := s.startDocument()
	if !utf8.ValidString(text) {
		s.stats.SkippedInvalidUTF8++
		s.logSkip(s.stats.SkippedInvalidUTF8, "invalid UTF-8", index)
		return nil
	}
	var ids []int
	if text != "" {
		ids = s.tok.Encode(text)
	}
	for i, id := range ids {
		if id < 0 || id >= s.vocab {
			return fmt.Errorf("datasets: stream: tokenizer %s returned id %d (token %d of document %d of %s, epoch %d) outside [0, VocabSize=%d)",
				s.tok.Name(), id, i, index, s.src.Name(), s.epoch, s.vocab)
		}
	}
	addDocument(s, ids, index)
	return nil
}

// readTokenDocument is readDocument for a token stream: the ids come from the source as they are.
func (s *Stream) readTokenDocument() error {
	ids, err := s.toks.NextTokens()
	if err != nil {
		return s.sourceError(err)
	}
	index := s.startDocument()
	for i, id := range ids {
		if id < 0 || int(id) >= s.vocab {
			return fmt.Errorf("datasets: stream: source %s holds id %d (token %d of document %d, epoch %d) outside [0, VocabSize=%d)",
				s.src.Name(), id, i, index, s.epoch, s.vocab)
		}
	}
	addDocument(s, ids, index)
	return nil
}

// sourceError handles an error from the source: io.EOF ends the epoch, anything else is wrapped with the
// source, epoch and document.
func (s *Stream) sourceError(err error) error {
	if err == io.EOF {
		return s.endEpoch()
	}
	return fmt.Errorf("datasets: stream: reading %s (epoch %d, document %d): %w", s.src.Name(), s.epoch, s.epochDocs, err)
}

// startDocument counts a document read from the source and returns its index in the epoch.
func (s *Stream) startDocument() int64 {
	index := s.epochDocs
	s.stats.Documents++
	s.epochDocs++
	return index
}

// addDocument appends a document's (validated) ids and EOS to s's pending tokens, or skips (and counts) an
// empty one. Generic so that the text path appends the tokenizer's ints without an intermediate copy.
func addDocument[T int | int32](s *Stream, ids []T, index int64) {
	if len(ids) == 0 {
		s.stats.SkippedEmpty++
		s.logSkip(s.stats.SkippedEmpty, "empty", index)
		return
	}
	for _, id := range ids {
		s.pending = append(s.pending, int32(id))
	}
	s.pending = append(s.pending, s.eos)
	s.stats.Tokens += int64(len(ids) + 1)
	s.epochTokens += int64(len(ids) + 1)
}

// endEpoch handles io.EOF from the source: start the next epoch or mark the source done.
func (s *Stream) endEpoch() error {
	s.stats.Epochs++
	s.epoch++
	if s.cfg.Epochs != EpochsForever && s.epoch >= s.cfg.Epochs {
		s.srcDone = true
		return nil
	}
	if s.cfg.Epochs == EpochsForever && s.epochTokens == 0 {
		return fmt.Errorf("datasets: stream: source %s gave no tokens in a whole pass (%d documents, all skipped or none); cannot loop forever",
			s.src.Name(), s.epochDocs)
	}
	s.epochDocs, s.epochTokens = 0, 0
	if err := s.src.Seek(nil); err != nil {
		return fmt.Errorf("datasets: stream: rewinding %s for epoch %d: %w", s.src.Name(), s.epoch, err)
	}
	return nil
}

func (s *Stream) logSkip(count int64, kind string, index int64) {
	switch {
	case count < maxLoggedSkips:
		fmt.Fprintf(s.log, "datasets: stream over %s: skipped %s document %d of epoch %d\n", s.src.Name(), kind, index, s.epoch)
	case count == maxLoggedSkips:
		fmt.Fprintf(s.log, "datasets: stream over %s: skipped %s document %d of epoch %d (further %s documents are only counted in Stream.Stats)\n",
			s.src.Name(), kind, index, s.epoch, kind)
	}
}

func (s *Stream) summarize() {
	if s.summarized {
		return
	}
	s.summarized = true
	st := s.stats
	fmt.Fprintf(s.log, "datasets: stream over %s done: %d documents in %d epochs, skipped %d empty and %d invalid UTF-8, %d tokens, %d sequences packed, %d yielded to rank %d/%d, %d tail tokens dropped\n",
		s.src.Name(), st.Documents, st.Epochs, st.SkippedEmpty, st.SkippedInvalidUTF8, st.Tokens, st.Packed, st.Yielded, s.cfg.Rank, s.cfg.World, st.DroppedTail)
}

// StreamCursor is the exact state of a Stream between two calls of Next, JSON-serialisable. ResumeStream
// continues from it with exactly the sequences the original stream would have returned.
//
// It stores the shuffle buffer's windows and the packed-but-not-emitted tokens themselves (rather than
// re-reading them), so its size is about ShuffleBuffer×(T+1) token ids plus the tail of the last document
// read: e.g. ~10 MB of JSON for 1024 windows of 2049 tokens.
type StreamCursor struct {
	Version   int          `json:"version"`
	Config    StreamConfig `json:"config"`
	Tokenizer string       `json:"tokenizer"`
	Source    string       `json:"source"`
	// SourcePosition is the source's Position after the last document read (meaningless once SourceDone).
	SourcePosition json.RawMessage `json:"source_position"`
	Epoch          int             `json:"epoch"`
	EpochDocuments int64           `json:"epoch_documents"`
	EpochTokens    int64           `json:"epoch_tokens"`
	SourceDone     bool            `json:"source_done"`
	PackDone       bool            `json:"pack_done"`
	// Pending is the token stream from the start of the next window on (read, not yet fully packed).
	Pending []int32 `json:"pending"`
	// RNG is the shuffle PCG's state (rand.PCG.MarshalBinary).
	RNG []byte `json:"rng"`
	// Buffer is the shuffle buffer's windows, in buffer order.
	Buffer [][]int32   `json:"buffer"`
	Stats  StreamStats `json:"stats"`
}

const streamCursorVersion = 1

// Cursor returns the stream's exact state (a deep copy).
func (s *Stream) Cursor() StreamCursor {
	rng, err := s.pcg.MarshalBinary()
	if err != nil {
		panic(fmt.Sprintf("datasets: marshalling PCG: %v", err)) // rand.PCG.MarshalBinary never fails
	}
	c := StreamCursor{
		Version:        streamCursorVersion,
		Config:         s.cfg,
		Tokenizer:      s.tokName,
		Source:         s.src.Name(),
		Epoch:          s.epoch,
		EpochDocuments: s.epochDocs,
		EpochTokens:    s.epochTokens,
		SourceDone:     s.srcDone,
		PackDone:       s.packDone,
		Pending:        append([]int32{}, s.pending[s.off:]...),
		RNG:            rng,
		Buffer:         make([][]int32, len(s.buf)),
		Stats:          s.stats,
	}
	c.Config.Log = nil
	if !s.srcDone {
		c.SourcePosition = append(json.RawMessage(nil), s.src.Position()...)
	}
	for i, w := range s.buf {
		c.Buffer[i] = append([]int32(nil), w...)
	}
	return c
}

// ResumeStream returns a stream that continues exactly where the stream that produced cur was: it seeks src
// to the cursor's source position and restores the packing buffer, shuffle buffer, RNG and counters. cfg
// must match the cursor's configuration (Log may differ); tok must be the same tokenizer (by Name). A
// different source Name is reported to the log but allowed (a corpus may move).
func ResumeStream(cfg StreamConfig, src DocumentSource, tok tokenizers.Tokenizer, cur StreamCursor) (*Stream, error) {
	s, err := newStream(cfg, src, tok)
	if err != nil {
		return nil, err
	}
	return s.resume("ResumeStream", cur)
}

// ResumeTokenStream is ResumeStream for a token stream (NewTokenStream): cfg must match the cursor's
// configuration, and eos and vocab those the cursor's stream had (its "pretokenized(eos=E,vocab=V)" label).
func ResumeTokenStream(cfg StreamConfig, src TokenDocumentSource, eos, vocab int, cur StreamCursor) (*Stream, error) {
	s, err := newTokenStream(cfg, src, eos, vocab)
	if err != nil {
		return nil, err
	}
	return s.resume("ResumeTokenStream", cur)
}

// resume restores the state of cur into the new stream s; fn names the caller in errors.
func (s *Stream) resume(fn string, cur StreamCursor) (*Stream, error) {
	src := s.src
	if cur.Version != streamCursorVersion {
		return nil, fmt.Errorf("datasets: %s: cursor version %d, want %d", fn, cur.Version, streamCursorVersion)
	}
	want, got := cur.Config, s.cfg
	for _, f := range []struct {
		name      string
		cur, have any
	}{
		{"SeqLen", want.SeqLen, got.SeqLen},
		{"ShuffleBuffer", want.ShuffleBuffer, got.ShuffleBuffer},
		{"Seed", want.Seed, got.Seed},
		{"Rank", want.Rank, got.Rank},
		{"World", want.World, got.World},
		{"Epochs", want.Epochs, got.Epochs},
	} {
		if f.cur != f.have {
			return nil, fmt.Errorf("datasets: %s: StreamConfig.%s = %v but the cursor was taken with %v", fn, f.name, f.have, f.cur)
		}
	}
	if cur.Tokenizer != s.tokName {
		return nil, fmt.Errorf("datasets: %s: tokenizer %q but the cursor was taken with %q", fn, s.tokName, cur.Tokenizer)
	}
	if cur.Source != src.Name() {
		fmt.Fprintf(s.log, "datasets: %s: source is %s but the cursor was taken over %s; resuming at position %s\n", fn,
			src.Name(), cur.Source, cur.SourcePosition)
	}
	if err := s.pcg.UnmarshalBinary(cur.RNG); err != nil {
		return nil, fmt.Errorf("datasets: %s: cursor RNG state: %w", fn, err)
	}
	T := s.cfg.SeqLen
	if len(cur.Buffer) >= s.cfg.ShuffleBuffer && !cur.PackDone {
		return nil, fmt.Errorf("datasets: %s: cursor holds %d buffered windows, more than ShuffleBuffer-1 = %d", fn, len(cur.Buffer), s.cfg.ShuffleBuffer-1)
	}
	check := func(what string, ids []int32) error {
		for _, id := range ids {
			if id < 0 || int(id) >= s.vocab {
				return fmt.Errorf("datasets: %s: cursor %s holds id %d outside [0, VocabSize=%d) of tokenizer %s", fn, what, id, s.vocab, s.tokName)
			}
		}
		return nil
	}
	s.buf = make([][]int32, len(cur.Buffer))
	for i, w := range cur.Buffer {
		if len(w) != T+1 {
			return nil, fmt.Errorf("datasets: %s: cursor buffer window %d has %d tokens, want SeqLen+1 = %d", fn, i, len(w), T+1)
		}
		if err := check("buffer", w); err != nil {
			return nil, err
		}
		s.buf[i] = append([]int32(nil), w...)
	}
	if err := check("pending tokens", cur.Pending); err != nil {
		return nil, err
	}
	s.pending = append([]int32(nil), cur.Pending...)
	s.epoch, s.epochDocs, s.epochTokens = cur.Epoch, cur.EpochDocuments, cur.EpochTokens
	s.srcDone, s.packDone = cur.SourceDone, cur.PackDone
	s.stats = cur.Stats
	if !s.srcDone {
		if err := src.Seek(cur.SourcePosition); err != nil {
			return nil, fmt.Errorf("datasets: %s: seeking %s to %s: %w", fn, src.Name(), cur.SourcePosition, err)
		}
	}
	return s, nil
}
