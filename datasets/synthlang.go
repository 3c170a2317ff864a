package datasets

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/internal/seedrand"
)

// SynthLang is a small synthetic language mix, rendered as plain text (any tokenizer encodes it), on which
// a tiny model's LM loss means something: most of it is learnable structure, and the rest is known noise
// whose entropy the generator measures exactly.
//
// A document is 1..MaxLines lines (uniform), separated by "\n"; each line is one of five tasks, drawn by the
// Mix weights:
//
//	story     1–3 English-like sentences from a probabilistic grammar over a small lexicon (16 nouns, 12
//	          verbs, 12 adjectives, 8 places): subject–verb–object with number agreement (the cat chases / the
//	          cats chase), determiner agreement (a/an/the with singulars, the/some with plurals, a vs an by the
//	          next word's first letter), optional adjective and prepositional phrase, and object-relative
//	          clauses that put a noun between subject and verb ("The foxes that a dog sees chase an owl.") so
//	          agreement must be carried across it; sentences are capitalised and end in ".".
//	count     "count from 17 by 3: 17 20 23 26 29." — after the header every number is determined; only
//	          where the list stops is random.
//	copy      "copy: kqz mw tjab = kqz mw tjab." — random words, then an exact copy (induction-head fodder).
//	brackets  "brackets: ([]{()})." — a random well-nested string over three bracket kinds; every closing
//	          bracket is determined by the stack, and the string always ends balanced.
//	add       "add 23 + 58 = 81." — two-digit addition; the sum is determined (harder for tiny models).
//
// Every random choice's probability is known, so DocumentBits returns the document's exact information
// content −log2 P(derivation). The grammar is unambiguous (the text determines every choice), so that is
// −log2 P(text), and its average per byte, EntropyRate, is the cross-entropy a model that had learned the
// generator perfectly would reach (the floor for the loss). With the default mix (seed 1, 3000 documents,
// ~220 bytes each; see TestSynthLangEntropy's log) it is 0.82 bits/byte (0.57 nats/byte), against 4.81
// bits/byte for the byte unigram entropy (a model that learnt only byte frequencies) and 2.08 for DEFLATE at
// best compression. Per task: count 0.32, story 0.67, brackets 0.74, add 0.77, copy 1.72 bits/byte (the
// copied half is free; the random letters are 4.7 bits each). A byte-level model's loss in nats/token is
// these numbers × ln 2, slightly diluted by the EOS token after each document; so a tiny model's loss going
// from ~3.3 nats (unigram) towards ~0.6 measures how much structure it picked up.
//
// Document i depends only on (config, i), drawn from a PCG seeded by (Seed, i), so a source over the
// documents can seek anywhere in O(1).

// SynthMix weighs the tasks of SynthLang lines (relative weights, ≥ 0, not all 0).
type SynthMix struct {
	Story    float64 `json:"story"`
	Count    float64 `json:"count"`
	Copy     float64 `json:"copy"`
	Brackets float64 `json:"brackets"`
	Add      float64 `json:"add"`
}

// DefaultSynthMix is the mix used when SynthLangConfig.Mix is all zero.
var DefaultSynthMix = SynthMix{Story: 0.4, Count: 0.15, Copy: 0.15, Brackets: 0.15, Add: 0.15}

// DefaultSynthMaxLines is the lines-per-document maximum used when SynthLangConfig.MaxLines is 0.
const DefaultSynthMaxLines = 8

// SynthLangConfig configures the synthetic language.
type SynthLangConfig struct {
	Seed uint64 `json:"seed"`
	// MaxLines: each document has 1..MaxLines lines, uniform; 0 means DefaultSynthMaxLines.
	MaxLines int `json:"max_lines"`
	// Mix weighs the tasks; all zero means DefaultSynthMix.
	Mix SynthMix `json:"mix"`
}

func (cfg SynthLangConfig) normalized() (SynthLangConfig, error) {
	if cfg.MaxLines == 0 {
		cfg.MaxLines = DefaultSynthMaxLines
	}
	if cfg.MaxLines < 0 {
		return cfg, fmt.Errorf("datasets: SynthLangConfig.MaxLines = %d: must be ≥ 1 (0 = %d)", cfg.MaxLines, DefaultSynthMaxLines)
	}
	if cfg.Mix == (SynthMix{}) {
		cfg.Mix = DefaultSynthMix
	}
	for _, w := range []struct {
		name string
		v    float64
	}{{"Story", cfg.Mix.Story}, {"Count", cfg.Mix.Count}, {"Copy", cfg.Mix.Copy}, {"Brackets", cfg.Mix.Brackets}, {"Add", cfg.Mix.Add}} {
		if !(w.v >= 0) || math.IsInf(w.v, 0) {
			return cfg, fmt.Errorf("datasets: SynthLangConfig.Mix.%s = %v: must be finite and ≥ 0", w.name, w.v)
		}
	}
	return cfg, nil
}

// SynthLang generates the synthetic language's documents by index.
type SynthLang struct {
	cfg     SynthLangConfig
	weights [5]float64 // story, count, copy, brackets, add
}

// NewSynthLang validates cfg and returns a generator.
func NewSynthLang(cfg SynthLangConfig) (*SynthLang, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	m := cfg.Mix
	return &SynthLang{cfg: cfg, weights: [5]float64{m.Story, m.Count, m.Copy, m.Brackets, m.Add}}, nil
}

// Config returns the configuration with defaults filled in.
func (g *SynthLang) Config() SynthLangConfig { return g.cfg }

// Document returns document i.
func (g *SynthLang) Document(i uint64) string {
	text, _ := g.DocumentBits(i)
	return text
}

// DocumentBits returns document i and its information content −log2 P(document) in bits.
func (g *SynthLang) DocumentBits(i uint64) (string, float64) {
	w := &synthWriter{rng: seedrand.NewPCG(g.cfg.Seed, seedrand.SplitMix64(i)^0x53594e54)} // "SYNT"
	lines := 1 + w.uniform(g.cfg.MaxLines)
	for l := range lines {
		if l > 0 {
			w.b.WriteByte('\n')
		}
		switch w.weighted(g.weights[:]) {
		case 0:
			w.story()
		case 1:
			w.count()
		case 2:
			w.copyTask()
		case 3:
			w.brackets()
		case 4:
			w.add()
		}
	}
	return w.b.String(), w.bits
}

// EntropyRate returns the information content per byte (bits/byte) of documents 0..nDocs-1: the loss
// floor of a model that knows the generator.
func (g *SynthLang) EntropyRate(nDocs int) float64 {
	bits, bytes := 0.0, 0
	for i := range nDocs {
		text, b := g.DocumentBits(uint64(i))
		bits += b
		bytes += len(text)
	}
	if bytes == 0 {
		return 0
	}
	return bits / float64(bytes)
}

// GenerateSynthLang returns documents 0..nDocs-1 of cfg.
func GenerateSynthLang(cfg SynthLangConfig, nDocs int) ([]string, error) {
	if nDocs < 0 {
		return nil, fmt.Errorf("datasets: GenerateSynthLang: nDocs = %d must be ≥ 0", nDocs)
	}
	g, err := NewSynthLang(cfg)
	if err != nil {
		return nil, err
	}
	docs := make([]string, nDocs)
	for i := range docs {
		docs[i] = g.Document(uint64(i))
	}
	return docs, nil
}

// SynthLangSource is a DocumentSource over SynthLang documents 0, 1, 2, ... (n of them, or without end).
// Its position is the next document's index as a JSON number.
type SynthLangSource struct {
	g    *SynthLang
	n    int64 // 0: infinite
	next int64
}

var _ DocumentSource = (*SynthLangSource)(nil)

// NewSynthLangSource returns a source of nDocs documents of cfg; nDocs 0 means without end (pair it with a
// Stream of any Epochs: it never reaches io.EOF).
func NewSynthLangSource(cfg SynthLangConfig, nDocs int64) (*SynthLangSource, error) {
	if nDocs < 0 {
		return nil, fmt.Errorf("datasets: NewSynthLangSource: nDocs = %d must be ≥ 0 (0 = without end)", nDocs)
	}
	g, err := NewSynthLang(cfg)
	if err != nil {
		return nil, err
	}
	return &SynthLangSource{g: g, n: nDocs}, nil
}

// Next returns the next document, or io.EOF after the nDocs-th.
func (s *SynthLangSource) Next() (string, error) {
	if s.n > 0 && s.next >= s.n {
		return "", io.EOF
	}
	d := s.g.Document(uint64(s.next))
	s.next++
	return d, nil
}

// Position is the index of the next document, as a JSON number.
func (s *SynthLangSource) Position() json.RawMessage {
	return json.RawMessage(strconv.FormatInt(s.next, 10))
}

// Seek goes to document index pos (a JSON number); nil or null rewinds.
func (s *SynthLangSource) Seek(pos json.RawMessage) error {
	if isStartPosition(pos) {
		s.next = 0
		return nil
	}
	var i int64
	if err := json.Unmarshal(pos, &i); err != nil {
		return fmt.Errorf("datasets: %s: seek position %s is not a document index: %w", s.Name(), pos, err)
	}
	if i < 0 || (s.n > 0 && i > s.n) {
		return fmt.Errorf("datasets: %s: seek position %d out of range", s.Name(), i)
	}
	s.next = i
	return nil
}

// Name identifies the source and its configuration, e.g. "synthlang(seed=1,max_lines=8,mix=...,n=1000)".
func (s *SynthLangSource) Name() string {
	c := s.g.cfg
	m := c.Mix
	n := "inf"
	if s.n > 0 {
		n = strconv.FormatInt(s.n, 10)
	}
	return fmt.Sprintf("synthlang(seed=%d,max_lines=%d,mix=%g/%g/%g/%g/%g,n=%s)", c.Seed, c.MaxLines,
		m.Story, m.Count, m.Copy, m.Brackets, m.Add, n)
}

// TextRow is a parquet row with one string column "text", the shape of Hugging Face text corpora.
type TextRow struct {
	Text string `parquet:"text"`
}

// WriteSynthLangParquet writes documents 0..nDocs-1 of cfg to a parquet file at path with one column,
// text (string), like a Hugging Face text corpus shard, atomically (see ParquetWriter). Read it back with
// OpenParquetTextSource(path, "text").
func WriteSynthLangParquet(path string, cfg SynthLangConfig, nDocs int) error {
	if nDocs < 0 {
		return fmt.Errorf("datasets: WriteSynthLangParquet: nDocs = %d must be ≥ 0", nDocs)
	}
	g, err := NewSynthLang(cfg)
	if err != nil {
		return err
	}
	i := 0
	return writeParquetRows(path, func(batch []TextRow) ([]TextRow, error) {
		for ; i < nDocs && len(batch) < cap(batch); i++ {
			batch = append(batch, TextRow{Text: g.Document(uint64(i))})
		}
		return batch, nil
	})
}

// synthWriter renders one document and adds up the information content of its random choices.
type synthWriter struct {
	rng  *rand.PCG
	b    strings.Builder
	bits float64
	// capital: the next word starts a sentence.
	capital bool
}

// uniform returns a uniform choice in [0, n) and accounts log2 n bits.
func (w *synthWriter) uniform(n int) int {
	w.bits += math.Log2(float64(n))
	return seedrand.UniformN(w.rng, n)
}

// coin returns true with probability p and accounts its information.
func (w *synthWriter) coin(p float64) bool {
	if seedrand.UniformFloat(w.rng) < p {
		w.bits -= math.Log2(p)
		return true
	}
	w.bits -= math.Log2(1 - p)
	return false
}

// weighted returns index i with probability ws[i]/Σws and accounts its information.
func (w *synthWriter) weighted(ws []float64) int {
	total := 0.0
	for _, x := range ws {
		total += x
	}
	u := seedrand.UniformFloat(w.rng) * total
	last := 0
	for i, x := range ws {
		if x <= 0 {
			continue
		}
		last = i
		if u < x {
			w.bits -= math.Log2(x / total)
			return i
		}
		u -= x
	}
	w.bits -= math.Log2(ws[last] / total) // rounding at the top end
	return last
}

// word writes a word, preceded by a space unless at the start of a line, capitalised at a sentence start.
func (w *synthWriter) word(s string) {
	if w.b.Len() > 0 {
		if last := w.b.String()[w.b.Len()-1]; last != '\n' {
			w.b.WriteByte(' ')
		}
	}
	if w.capital {
		w.capital = false
		w.b.WriteString(strings.ToUpper(s[:1]))
		s = s[1:]
	}
	w.b.WriteString(s)
}

var (
	synthNouns = [][2]string{
		{"cat", "cats"}, {"dog", "dogs"}, {"bird", "birds"}, {"fox", "foxes"}, {"child", "children"},
		{"teacher", "teachers"}, {"robot", "robots"}, {"farmer", "farmers"}, {"mouse", "mice"},
		{"horse", "horses"}, {"owl", "owls"}, {"king", "kings"}, {"queen", "queens"}, {"wolf", "wolves"},
		{"baby", "babies"}, {"artist", "artists"},
	}
	synthVerbs = [][2]string{ // third person singular, plural
		{"sees", "see"}, {"chases", "chase"}, {"likes", "like"}, {"follows", "follow"}, {"helps", "help"},
		{"finds", "find"}, {"watches", "watch"}, {"carries", "carry"}, {"feeds", "feed"}, {"pushes", "push"},
		{"calls", "call"}, {"hears", "hear"},
	}
	synthAdjectives = []string{"big", "small", "red", "old", "happy", "quiet", "green", "quick", "angry",
		"tiny", "brave", "lazy"}
	synthPlaces = []string{"garden", "river", "bridge", "forest", "kitchen", "market", "hill", "house"}
	synthPreps  = []string{"in", "near", "under", "behind", "beside"}
)

// nounPhrase writes Det [Adj] Noun with the given number.
func (w *synthWriter) nounPhrase(plural bool) {
	// Choices first (the determiner's form depends on the next word).
	definite := w.coin(0.5) // the / (a|an|some)
	var adj string
	if w.coin(0.3) {
		adj = synthAdjectives[w.uniform(len(synthAdjectives))]
	}
	n := synthNouns[w.uniform(len(synthNouns))]
	noun := n[0]
	if plural {
		noun = n[1]
	}
	next := noun
	if adj != "" {
		next = adj
	}
	switch {
	case definite:
		w.word("the")
	case plural:
		w.word("some")
	case strings.ContainsRune("aeiou", rune(next[0])):
		w.word("an")
	default:
		w.word("a")
	}
	if adj != "" {
		w.word(adj)
	}
	w.word(noun)
}

func (w *synthWriter) verb(plural bool) {
	v := synthVerbs[w.uniform(len(synthVerbs))]
	if plural {
		w.word(v[1])
	} else {
		w.word(v[0])
	}
}

func (w *synthWriter) sentence() {
	w.capital = true
	plural := w.coin(0.5)
	w.nounPhrase(plural)
	if w.coin(0.2) { // object-relative clause: "that" NP V
		w.word("that")
		inner := w.coin(0.5)
		w.nounPhrase(inner)
		w.verb(inner)
	}
	w.verb(plural)
	w.nounPhrase(w.coin(0.5))
	if w.coin(0.3) {
		w.word(synthPreps[w.uniform(len(synthPreps))])
		w.word("the")
		w.word(synthPlaces[w.uniform(len(synthPlaces))])
	}
	w.b.WriteByte('.')
}

func (w *synthWriter) story() {
	n := 1 + w.uniform(3)
	for range n {
		w.sentence()
	}
}

var synthSteps = []int{1, 2, 3, 4, 5, 10}

func (w *synthWriter) count() {
	start := w.uniform(100)
	step := synthSteps[w.uniform(len(synthSteps))]
	n := 3 + w.uniform(8) // 3..10 numbers
	w.word("count from " + strconv.Itoa(start) + " by " + strconv.Itoa(step) + ":")
	for k := range n {
		w.word(strconv.Itoa(start + k*step))
	}
	w.b.WriteByte('.')
}

func (w *synthWriter) copyTask() {
	n := 2 + w.uniform(5) // 2..6 words
	words := make([]string, n)
	for i := range words {
		b := make([]byte, 2+w.uniform(4)) // 2..5 letters
		for j := range b {
			b[j] = byte('a' + w.uniform(26))
		}
		words[i] = string(b)
	}
	w.word("copy:")
	for _, s := range words {
		w.word(s)
	}
	w.word("=")
	for _, s := range words {
		w.word(s)
	}
	w.b.WriteByte('.')
}

func (w *synthWriter) brackets() {
	const open, closing = "([{", ")]}"
	pairs := 1 + w.uniform(8) // 1..8 pairs
	w.word("brackets:")
	w.b.WriteByte(' ')
	var stack []byte
	for opened := 0; opened < pairs || len(stack) > 0; {
		// Open when nothing is open or nothing is left to open; else a fair coin.
		var doOpen bool
		switch {
		case opened == pairs:
			doOpen = false
		case len(stack) == 0:
			doOpen = true
		default:
			doOpen = w.coin(0.5)
		}
		if doOpen {
			k := w.uniform(3)
			w.b.WriteByte(open[k])
			stack = append(stack, closing[k])
			opened++
		} else {
			w.b.WriteByte(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
	}
	w.b.WriteByte('.')
}

func (w *synthWriter) add() {
	a, b := w.uniform(100), w.uniform(100)
	w.word("add " + strconv.Itoa(a) + " + " + strconv.Itoa(b) + " = " + strconv.Itoa(a+b) + ".")
}
