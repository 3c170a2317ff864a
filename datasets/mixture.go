package datasets

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/seedrand"
)

// streamBatches adapts a Stream to a BatchSource.
type streamBatches struct{ s *Stream }

func (s streamBatches) Batch(n int) ([][]int32, error)  { return s.s.Batch(n) }
func (s streamBatches) State() (json.RawMessage, error) { return json.Marshal(s.s.Cursor()) }

// MaskedBatch: a packed stream trains on every token.
func (s streamBatches) MaskedBatch(n int) ([][]int32, [][]bool, error) {
	seqs, err := s.s.Batch(n)
	return seqs, make([][]bool, len(seqs)), err
}

// The training mixture of the tiny study, spec
//
//	mix:ITEM,ITEM,...     ITEM = synth=W | mqar=W | needle=W | text:PATH=W | parquet:PATTERN[#COLUMN]=W
//	                             | pairs=P | loss=answers|all | heldout=F
//
// (weights relative, ≥ 0 for the synthetic components, > 0 for a text component; several text and parquet
// components may be given; a path may not hold a comma). Every sequence of SeqLen+1 tokens is drawn from one
// component, chosen from a hash of (seed, sequence index), so the choice needs no state:
//
//	synth   a window of the packed synthetic-language stream (the text the model learns language from);
//	mqar    an MQAR example (MQARConfig, Zoology's layout) with vocabulary 128 shifted to ids
//	        MQARTokenOffset+[0, 128) — bytes 128–255, which never occur in the ASCII synthetic language — and
//	        a number of key–value pairs uniform in [4, pairs] (default pairs = 16);
//	needle  a mini needle-in-a-haystack document (GenerateMiniNeedle) at a uniform depth, followed by
//	        its answer and ".", padded with EOS to the length;
//	text:PATH               a window of the training part of a plain-text file (or of each file of a glob);
//	parquet:PATTERN#COLUMN  a window of the training part of a parquet string column (default column "text");
//	        both split once into a training and a held-out part, heldout=F (default 0.1) of each file's bytes
//	        or rows (textcorpus.go), and tokenized with the run's tokenizer.
//
// Alone, "text:PATH" and "parquet:PATTERN[#COLUMN]" are data specs of their own: the mixture of that one
// component with heldout=0.1. A spec without text components draws exactly the rows it drew before text
// components existed.
//
// Loss masks (MaskedBatch), loss=answers (the default) or loss=all: with answers, MQAR rows train only on
// their queried values (MQARExample.TargetMask) and needle rows only on the answer " 4821." — the random
// keys, values, filler and haystack are unpredictable by construction, and training on them buries the
// recall signal under noise; language and text rows train on every token. loss=all trains every token
// of every row (the mixture's first version).
//
// Training examples are indexed by the sequence index with seeds disjoint from the evaluation ones
// (MixTrainSeed; the study evaluates with other seeds). The state saved with checkpoints is the sequence
// count, the synthetic-language stream's cursor and each text component's count of windows drawn.

// MQARTokenOffset shifts MQAR ids into bytes 128–255 for byte-level models.
const MQARTokenOffset = 128

// MQARVocab is the MQAR vocabulary of the mixture (keys 1–63, values 64–127 before the offset).
const MQARVocab = 128

// MixTrainSeed seeds the mixture's MQAR and needle examples; MixValSeed those of its held-out validation rows
// (MixtureValidationSet).
const (
	MixTrainSeed = 1000
	MixValSeed   = 2000
)

type mixSpec struct {
	wSynth, wMQAR, wNeedle float64
	pairs                  int
	allTokens              bool       // loss=all: no answer masks
	texts                  []textItem // real-text components (textcorpus.go), in spec order
	heldout                float64    // their held-out fraction
}

// mixGrammar is the mixture's grammar for errors.
const mixGrammar = "mix:synth=W,mqar=W,needle=W,text:PATH=W,parquet:PATTERN[#COLUMN]=W[,pairs=P][,loss=answers|all][,heldout=F]"

// parseMix parses a mixture spec, or a lone real-text spec ("text:PATH", "parquet:PATTERN[#COLUMN]"), which is
// the mixture of that one component.
func parseMix(spec string) (mixSpec, error) {
	m := mixSpec{pairs: 16, heldout: DefaultHeldOut}
	if kind, body, ok := cutTextKind(spec); ok {
		it, err := parseTextItem(kind, body)
		if err != nil {
			return m, fmt.Errorf("data spec %q: %w", spec, err)
		}
		m.texts = []textItem{it}
		return m, nil
	}
	rest, ok := strings.CutPrefix(spec, "mix:")
	if !ok {
		return m, fmt.Errorf("mixture spec %q: want %s", spec, mixGrammar)
	}
	// A key or a text component given twice is refused: the last one silently won (synth=1,synth=0 trained
	// no synth rows; heldout=0.1,heldout=0.2 held out 0.2), or the same text was loaded twice.
	seen := map[string]bool{}
	repeated := func(key string) error {
		if seen[key] {
			return fmt.Errorf("mixture spec %q: %s is given twice; give it once (for text, its weight is the sum)", spec, key)
		}
		seen[key] = true
		return nil
	}
	for _, kv := range strings.Split(rest, ",") {
		kv = strings.TrimSpace(kv)
		if kind, body, ok := cutTextKind(kv); ok {
			i := strings.LastIndexByte(body, '=')
			if i < 0 {
				return m, fmt.Errorf("mixture spec %q: item %q needs a weight: %s:PATH=W", spec, kv, kind)
			}
			it, err := parseTextItem(kind, body[:i])
			if err != nil {
				return m, fmt.Errorf("mixture spec %q: %w", spec, err)
			}
			if it.weight, err = strconv.ParseFloat(body[i+1:], 64); err != nil || !(it.weight > 0) || math.IsInf(it.weight, 0) {
				return m, fmt.Errorf("mixture spec %q: the weight of %s is %q: want a number > 0", spec, it.spec(), body[i+1:])
			}
			if err := repeated(it.spec()); err != nil {
				return m, err
			}
			m.texts = append(m.texts, it)
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return m, fmt.Errorf("mixture spec %q: item %q is not key=value", spec, kv)
		}
		if err := repeated(k); err != nil {
			return m, err
		}
		if k == "loss" {
			switch v {
			case "answers":
				m.allTokens = false
			case "all":
				m.allTokens = true
			default:
				return m, fmt.Errorf("mixture spec %q: loss=%q, want answers or all", spec, v)
			}
			continue
		}
		if k == "text" || k == "parquet" {
			return m, fmt.Errorf("mixture spec %q: item %q: write a %s component as %s:PATH=W (the path after the colon, the weight after '=')", spec, kv, k, k)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0) || math.IsInf(f, 0) {
			return m, fmt.Errorf("mixture spec %q: %s=%q must be a number ≥ 0", spec, k, v)
		}
		switch k {
		case "synth":
			m.wSynth = f
		case "mqar":
			m.wMQAR = f
		case "needle":
			m.wNeedle = f
		case "pairs":
			m.pairs = int(f)
		case "heldout":
			if !(f > 0 && f <= maxHeldOut) {
				return m, fmt.Errorf("mixture spec %q: heldout=%s: the held-out fraction of the text components must be in (0, %g]", spec, v, maxHeldOut)
			}
			m.heldout = f
		default:
			return m, fmt.Errorf("mixture spec %q: unknown key %q (synth, mqar, needle, text:PATH, parquet:PATTERN, pairs, loss, heldout)", spec, k)
		}
	}
	if total := m.wSynth + m.wMQAR + m.wNeedle + m.textWeight(); total <= 0 {
		return m, fmt.Errorf("mixture spec %q: all weights are 0", spec)
	} else if math.IsInf(total, 0) {
		// The draw scales a uniform number by the total: an infinite one always drew the last component.
		return m, fmt.Errorf("mixture spec %q: the weights sum to more than a float64 holds; scale them down (only their ratios matter)", spec)
	}
	if m.pairs < 4 {
		return m, fmt.Errorf("mixture spec %q: pairs must be ≥ 4", spec)
	}
	return m, nil
}

// textWeight is the sum of the text components' weights.
func (m mixSpec) textWeight() float64 {
	var w float64
	for _, it := range m.texts {
		w += it.weight
	}
	return w
}

// cutTextKind splits "text:BODY" and "parquet:BODY".
func cutTextKind(s string) (kind, body string, ok bool) {
	for _, k := range []string{"text", "parquet"} {
		if b, ok := strings.CutPrefix(s, k+":"); ok {
			return k, b, true
		}
	}
	return "", "", false
}

type mixSource struct {
	spec mixSpec
	seed uint64
	// exampleSeed seeds the MQAR and needle examples (MixTrainSeed; MixValSeed for validation rows).
	exampleSeed uint64
	seqLen      int
	tok         tokenizers.Tokenizer
	text        *Stream
	mqar        map[int]*MQARGenerator // by pair count
	corpora     []*textWindows         // the text components' windows (their training or held-out part)
	rows        int64                  // sequences yielded so far
}

type mixState struct {
	Rows int64        `json:"rows"`
	Text StreamCursor `json:"text"` // the synthetic language's stream
	// Corpora are the text components' positions, in spec order (absent without text components).
	Corpora []corpusState `json:"corpora,omitempty"`
}

// corpusState is a text component's position: the windows drawn, and its token count (a check that the
// files are those the checkpoint read).
type corpusState struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	Drawn  int64  `json:"drawn"`
}

func newMixSource(spec string, tok tokenizers.Tokenizer, seqLen int, seed uint64, state json.RawMessage, log io.Writer) (*mixSource, error) {
	return openMix(spec, tok, seqLen, seed, MixTrainSeed, TrainSynthSeed, false, state, log)
}

// openMix opens the mixture spec with its examples drawn from exampleSeed, its language from the
// SynthLang seed synthSeed, and its text components from their held-out part when heldOut (else their
// training part).
func openMix(spec string, tok tokenizers.Tokenizer, seqLen int, seed, exampleSeed, synthSeed uint64, heldOut bool, state json.RawMessage, log io.Writer) (*mixSource, error) {
	ms, err := parseMix(spec)
	if err != nil {
		return nil, err
	}
	if ms.wMQAR > 0 {
		if 2*ms.pairs*2 > seqLen {
			return nil, fmt.Errorf("mixture spec %q: %d MQAR pairs and queries need seq_len ≥ %d", spec, ms.pairs, 4*ms.pairs)
		}
		if ms.pairs > MQARVocab/2-1 {
			return nil, fmt.Errorf("mixture spec %q: at most %d pairs", spec, MQARVocab/2-1)
		}
		if tok.VocabSize() < MQARTokenOffset+MQARVocab {
			return nil, fmt.Errorf("mixture: tokenizer %s has %d ids, the MQAR component needs %d", tok.Name(), tok.VocabSize(), MQARTokenOffset+MQARVocab)
		}
	}
	s := &mixSource{spec: ms, seed: seed, exampleSeed: exampleSeed, seqLen: seqLen, tok: tok, mqar: map[int]*MQARGenerator{}}
	if ms.wNeedle > 0 { // fail now, not at the first needle row
		if _, err := GenerateMiniNeedle(tok, seqLen+1-len(tok.Encode(" 0000.")), 0.5, exampleSeed, 0); err != nil {
			return nil, fmt.Errorf("mixture spec %q at seq_len %d: %w", spec, seqLen, err)
		}
	}
	var cur *StreamCursor
	var st mixState
	if state != nil {
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("mixture state: %w", err)
		}
		s.rows, cur = st.Rows, &st.Text
		if len(st.Corpora) != len(ms.texts) {
			return nil, fmt.Errorf("mixture state: %d text components saved, the spec %q has %d", len(st.Corpora), spec, len(ms.texts))
		}
	}
	if s.text, err = OpenStream(DataSpec{Spec: "synth"}, tok, SpecStream{SeqLen: seqLen, Seed: seed, SynthSeed: synthSeed,
		Epochs: EpochsForever, Cursor: cur, Log: log}); err != nil {
		return nil, err
	}
	if ms.wMQAR > 0 {
		for p := 4; p <= ms.pairs; p++ {
			g, err := NewMQARGenerator(MQARConfig{Vocab: MQARVocab, SeqLen: seqLen, NumPairs: p, Seed: exampleSeed + uint64(p)})
			if err != nil {
				return nil, err
			}
			s.mqar[p] = g
		}
	}
	for i, it := range ms.texts {
		p, err := loadTextItem(it, tok, ms.heldout)
		if err != nil {
			return nil, err
		}
		toks, part := p.train, "training part"
		if heldOut {
			toks, part = p.held, "held-out part"
		}
		w, err := newTextWindows(fmt.Sprintf("the %s of %s", part, it.spec()), toks, seqLen, seedrand.Mix64(seed, textComponentSalt+uint64(i)))
		if err != nil {
			return nil, err
		}
		if state != nil {
			c := st.Corpora[i]
			if c.Drawn < 0 || c.Drawn > s.rows {
				return nil, fmt.Errorf("mixture state: %d windows drawn of %s, outside [0, rows = %d]", c.Drawn, it.spec(), s.rows)
			}
			if c.Name != it.spec() || c.Tokens != len(toks) {
				return nil, fmt.Errorf("mixture state: the %s of %s has %d tokens for tokenizer %s, but the checkpoint read %d of %s: "+
					"the files changed since; use another --out to start a new run", part, it.spec(), len(toks), tok.Name(), c.Tokens, c.Name)
			}
			w.seek(c.Drawn)
		}
		s.corpora = append(s.corpora, w)
		if log != nil && !heldOut {
			fmt.Fprintf(log, "datasets: %s: %d training tokens (%d bytes, %d documents), %d held-out tokens (%d bytes, %d documents); %s\n",
				it.spec(), len(p.train), p.trainBytes, p.trainDocs, len(p.held), p.heldBytes, p.heldDocs, p.split)
		}
	}
	return s, nil
}

// textComponentSalt separates the text components' shuffle seeds from the other uses of the run seed.
const textComponentSalt = 0x545854 << 8 // "TXT"

func (s *mixSource) State() (json.RawMessage, error) {
	st := mixState{Rows: s.rows, Text: s.text.Cursor()}
	for i, w := range s.corpora {
		st.Corpora = append(st.Corpora, corpusState{Name: s.spec.texts[i].spec(), Tokens: len(w.toks), Drawn: w.drawn})
	}
	return json.Marshal(st)
}

func (s *mixSource) Batch(n int) ([][]int32, error) {
	out, _, err := s.MaskedBatch(n)
	return out, err
}

// MaskedBatch returns n sequences and their loss masks (nil: every position trains).
func (s *mixSource) MaskedBatch(n int) ([][]int32, [][]bool, error) {
	out := make([][]int32, n)
	masks := make([][]bool, n)
	for i := range out {
		seq, mask, err := s.next()
		if err != nil {
			return nil, nil, err
		}
		out[i] = seq
		if !s.spec.allTokens {
			masks[i] = mask
		}
	}
	return out, masks, nil
}

// next draws sequence number s.rows and its answer mask (SeqLen entries aligned with the targets seq[1:];
// nil for language rows).
func (s *mixSource) next() ([]int32, []bool, error) {
	r := s.rows
	s.rows++
	rng := rand.New(rand.NewPCG(seedrand.Mix64(s.seed, uint64(r)), 0x4d4958)) // "MIX"
	total := s.spec.wSynth + s.spec.wMQAR + s.spec.wNeedle
	for _, it := range s.spec.texts {
		total += it.weight
	}
	u := rng.Float64() * total
	switch {
	case u < s.spec.wSynth:
		seq, err := s.text.Next()
		return seq, nil, err
	case u < s.spec.wSynth+s.spec.wMQAR:
		p := 4 + rng.IntN(s.spec.pairs-3)
		ex := s.mqar[p].Example(uint64(r))
		seq := make([]int32, len(ex.Tokens))
		for j, id := range ex.Tokens {
			seq[j] = id + MQARTokenOffset
		}
		return seq, ex.TargetMask, nil
	case len(s.corpora) > 0 && u >= s.spec.wSynth+s.spec.wMQAR+s.spec.wNeedle:
		acc, i := s.spec.wSynth+s.spec.wMQAR+s.spec.wNeedle, 0
		for ; i < len(s.corpora)-1; i++ { // the last component also takes u's rounding past the total
			if acc += s.spec.texts[i].weight; u < acc {
				break
			}
		}
		return s.corpora[i].next(), nil, nil
	default:
		answer := len(s.tok.Encode(" 0000."))
		nd, err := GenerateMiniNeedle(s.tok, s.seqLen+1-answer, rng.Float64(), s.exampleSeed, int(r))
		if err != nil {
			return nil, nil, fmt.Errorf("mixture needle: %w", err)
		}
		ans := s.tok.Encode(nd.Answer + ".")
		ids := append(nd.PromptTokens, ans...)
		seq := make([]int32, s.seqLen+1)
		for j := range seq {
			seq[j] = int32(s.tok.EOS())
			if j < len(ids) {
				seq[j] = int32(ids[j])
			}
		}
		// Target j is seq[j+1]: the answer's tokens are the targets of positions len(prompt)-1 ... .
		mask := make([]bool, s.seqLen)
		for j := len(nd.PromptTokens) - 1; j < len(ids)-1 && j < s.seqLen; j++ {
			mask[j] = true
		}
		return seq, mask, nil
	}
}

// MixtureValidationSet returns n held-out rows of the mixture spec with their loss masks (as MaskedBatch):
// the same proportions, pair counts and masks as training, but the language from the validation SynthLang
// seed (ValSynthSeed), the MQAR and needle examples from MixValSeed and the text components' rows from their
// held-out part only (in a MixValSeed order), so that no row was trained on. The loss on them is the training
// objective measured held out (recipes/study: "the full mixture", beside the validation loss on the language
// alone).
func MixtureValidationSet(spec string, tok tokenizers.Tokenizer, seqLen, n int) ([][]int32, [][]bool, error) {
	s, err := openMix(spec, tok, seqLen, MixValSeed, MixValSeed, ValSynthSeed, true, nil, io.Discard)
	if err != nil {
		return nil, nil, err
	}
	seqs, masks, err := s.MaskedBatch(n)
	if err != nil {
		return nil, nil, fmt.Errorf("mixture validation set of %s: %w", spec, err)
	}
	return seqs, masks, nil
}

// MixMQAR tells whether data spec trains on MQAR (a "mix:" spec with mqar weight > 0) and the largest number
// of pairs it trains with; its ids are then MQARTokenOffset + [0, MQARVocab). `evals mqar` reads it from a
// run's run.json so that a model is scored in the id range it was trained on.
func MixMQAR(spec string) (pairs int, ok bool) {
	m, err := parseMix(spec)
	if err != nil || m.wMQAR <= 0 {
		return 0, false
	}
	return m.pairs, true
}
