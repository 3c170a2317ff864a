package datasets

import (
	"encoding/json"
	"fmt"
	"io"
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

// The synthetic training mixture of the tiny study, spec "mix:synth=W,mqar=W,needle=W[,pairs=P][,loss=L]"
// (weights relative; any may be 0). Every sequence of SeqLen+1 tokens is drawn from one component, chosen from a
// hash of (seed, sequence index), so the choice needs no state:
//
//	synth   a window of the packed synthetic-language stream (the text the model learns language from);
//	mqar    an MQAR example (MQARConfig, Zoology's layout) with vocabulary 128 shifted to ids
//	        MQARTokenOffset+[0, 128) — bytes 128–255, which never occur in the ASCII synthetic language — and
//	        a number of key–value pairs uniform in [4, pairs] (default pairs = 16);
//	needle  a mini needle-in-a-haystack document (GenerateMiniNeedle) at a uniform depth, followed by
//	        its answer and ".", padded with EOS to the length.
//
// Loss masks (MaskedBatch), loss=answers (the default) or loss=all: with answers, MQAR rows train only on
// their queried values (MQARExample.TargetMask) and needle rows only on the answer " 4821." — the random
// keys, values, filler and haystack are unpredictable by construction, and training on them buries the
// recall signal under noise; language rows train on every token. loss=all trains every token
// of every row (the mixture's first version).
//
// Training examples are indexed by the sequence index with seeds disjoint from the evaluation ones
// (MixTrainSeed; the study evaluates with other seeds). The state saved with checkpoints is the sequence
// count and the synthetic-language stream's cursor.

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
	allTokens              bool // loss=all: no answer masks
}

func parseMix(spec string) (mixSpec, error) {
	m := mixSpec{pairs: 16}
	rest, ok := strings.CutPrefix(spec, "mix:")
	if !ok {
		return m, fmt.Errorf("mixture spec %q: want mix:synth=W,mqar=W,needle=W[,pairs=P][,loss=answers|all]", spec)
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return m, fmt.Errorf("mixture spec %q: item %q is not key=value", spec, kv)
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
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
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
		default:
			return m, fmt.Errorf("mixture spec %q: unknown key %q (synth, mqar, needle, pairs, loss)", spec, k)
		}
	}
	if m.wSynth+m.wMQAR+m.wNeedle <= 0 {
		return m, fmt.Errorf("mixture spec %q: all weights are 0", spec)
	}
	if m.pairs < 4 {
		return m, fmt.Errorf("mixture spec %q: pairs must be ≥ 4", spec)
	}
	return m, nil
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
	rows        int64                  // sequences yielded so far
}

type mixState struct {
	Rows int64        `json:"rows"`
	Text StreamCursor `json:"text"`
}

func newMixSource(spec string, tok tokenizers.Tokenizer, seqLen int, seed uint64, state json.RawMessage, log io.Writer) (*mixSource, error) {
	return openMix(spec, tok, seqLen, seed, MixTrainSeed, TrainSynthSeed, state, log)
}

// openMix opens the mixture spec with its examples drawn from exampleSeed and its language from the
// SynthLang seed synthSeed.
func openMix(spec string, tok tokenizers.Tokenizer, seqLen int, seed, exampleSeed, synthSeed uint64, state json.RawMessage, log io.Writer) (*mixSource, error) {
	ms, err := parseMix(spec)
	if err != nil {
		return nil, err
	}
	if 2*ms.pairs*2 > seqLen {
		return nil, fmt.Errorf("mixture spec %q: %d MQAR pairs and queries need seq_len ≥ %d", spec, ms.pairs, 4*ms.pairs)
	}
	if ms.pairs > MQARVocab/2-1 {
		return nil, fmt.Errorf("mixture spec %q: at most %d pairs", spec, MQARVocab/2-1)
	}
	if tok.VocabSize() < MQARTokenOffset+MQARVocab {
		return nil, fmt.Errorf("mixture: tokenizer %s has %d ids, the MQAR component needs %d", tok.Name(), tok.VocabSize(), MQARTokenOffset+MQARVocab)
	}
	s := &mixSource{spec: ms, seed: seed, exampleSeed: exampleSeed, seqLen: seqLen, tok: tok, mqar: map[int]*MQARGenerator{}}
	if ms.wNeedle > 0 { // fail now, not at the first needle row
		if _, err := GenerateMiniNeedle(tok, seqLen+1-len(tok.Encode(" 0000.")), 0.5, exampleSeed, 0); err != nil {
			return nil, fmt.Errorf("mixture spec %q at seq_len %d: %w", spec, seqLen, err)
		}
	}
	var cur *StreamCursor
	if state != nil {
		var st mixState
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("mixture state: %w", err)
		}
		s.rows, cur = st.Rows, &st.Text
	}
	if s.text, err = OpenStream(DataSpec{Spec: "synth"}, tok, SpecStream{SeqLen: seqLen, Seed: seed, SynthSeed: synthSeed,
		Epochs: EpochsForever, Cursor: cur, Log: log}); err != nil {
		return nil, err
	}
	for p := 4; p <= ms.pairs; p++ {
		g, err := NewMQARGenerator(MQARConfig{Vocab: MQARVocab, SeqLen: seqLen, NumPairs: p, Seed: exampleSeed + uint64(p)})
		if err != nil {
			return nil, err
		}
		s.mqar[p] = g
	}
	return s, nil
}

func (s *mixSource) State() (json.RawMessage, error) {
	return json.Marshal(mixState{Rows: s.rows, Text: s.text.Cursor()})
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
// seed (ValSynthSeed) and the MQAR and needle examples from MixValSeed, so that no row was trained on. The
// loss on them is the training objective measured held out (recipes/study: "the full mixture", beside the
// validation loss on the language alone).
func MixtureValidationSet(spec string, tok tokenizers.Tokenizer, seqLen, n int) ([][]int32, [][]bool, error) {
	s, err := openMix(spec, tok, seqLen, MixValSeed, MixValSeed, ValSynthSeed, nil, io.Discard)
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
