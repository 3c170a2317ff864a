package datasets

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/oryx-go/oryx/datasets/tokenizers"
)

// Data specs, the one syntax of every command's --data (recipes' --data and --val-data, `evals switch`):
//
//	synth                the synthetic language (SynthLang, default mix), rendered as text and tokenized;
//	                     "synth:SEED" picks its seed, else the caller's (training uses seed 1, validation
//	                     seed 2, the mode-switch analysis seed 3)
//	DIR                  a pre-tokenized corpus written by `oryx tokenize` (DIR/manifest.json)
//	mix:synth=W,...      the tiny study's mixture: language, MQAR, mini needles and real text (mixture.go)
//	text:PATH            plain-text files (a file or a glob), split into a training part and a held-out part
//	                     (the last 10 % of each file's bytes, cut at a line start; textcorpus.go)
//	parquet:PATTERN[#COLUMN]
//	                     a parquet string column (default "text"), split by document (the last 10 % of each
//	                     file's rows held out)
//	PATTERN              Hugging Face parquet files (a file, a directory or a glob) with a text column
//	                     (--column, default "text"), all of it for training (no held-out split)
//
// Every form packs documents into SeqLen+1-token windows with EOS between documents (Stream's packing),
// looped over epochs without end; the position is saved with every checkpoint so a resumed run reads exactly
// the sequences the uninterrupted run would have. The forms with real text (text:, parquet:, and mix: with
// such components) train on their training part only; their validation set (ValidationSet) and HeldOut read
// their held-out part only.

// DataSpec names a corpus and how to read it.
type DataSpec struct {
	Spec   string `json:"spec"`   // as above
	Column string `json:"column"` // text column of parquet corpora
}

// Synthetic-language seeds of "synth" without ":SEED", one per use so that none reads another's text:
// training reads TrainSynthSeed, validation ValSynthSeed, and the analyses after training (the mode-switch
// curves of `evals switch` and of the study) AnalysisSynthSeed.
const (
	TrainSynthSeed    = 1
	ValSynthSeed      = 2
	AnalysisSynthSeed = 3
)

// BatchSource yields training sequences of SeqLen+1 tokens and can save and restore its exact position.
type BatchSource interface {
	Batch(n int) ([][]int32, error)
	// MaskedBatch is Batch with each sequence's loss mask: SeqLen entries aligned with the targets seq[1:],
	// true where the position trains; a nil mask trains every position.
	MaskedBatch(n int) ([][]int32, [][]bool, error)
	State() (json.RawMessage, error)
}

// OpenTraining opens the training data d as a batch source (the packed stream, or the mixture for "mix:",
// "text:" and "parquet:"), resumed from state (a BatchSource's State) when non-nil.
func OpenTraining(d DataSpec, tok tokenizers.Tokenizer, seqLen int, seed uint64, state json.RawMessage, log io.Writer) (BatchSource, error) {
	if isMixForm(d.Spec) {
		if err := checkColumn(d); err != nil {
			return nil, err
		}
		return newMixSource(d.Spec, tok, seqLen, seed, state, log)
	}
	var cur *StreamCursor
	if state != nil {
		cur = &StreamCursor{}
		if err := json.Unmarshal(state, cur); err != nil {
			return nil, fmt.Errorf("data state: %w", err)
		}
	}
	s, err := OpenStream(d, tok, SpecStream{SeqLen: seqLen, Seed: seed, SynthSeed: TrainSynthSeed, Epochs: EpochsForever,
		Cursor: cur, Log: log})
	if err != nil {
		return nil, err
	}
	return streamBatches{s}, nil
}

// SpecStream is how OpenStream packs a spec's documents.
type SpecStream struct {
	SeqLen    int           // tokens per window, plus one
	Shuffle   int           // shuffle buffer (0: DefaultShuffleBuffer; 1 keeps source order)
	Seed      uint64        // shuffle seed
	SynthSeed uint64        // the SynthLang seed of "synth" without ":SEED"
	Epochs    int           // passes over the data (EpochsForever: without end)
	Cursor    *StreamCursor // resume from here when non-nil
	Log       io.Writer
}

// OpenStream opens spec d (any form but "mix:") as a packed stream of SeqLen+1 windows for tok.
func OpenStream(d DataSpec, tok tokenizers.Tokenizer, o SpecStream) (*Stream, error) {
	cfg := StreamConfig{SeqLen: o.SeqLen, ShuffleBuffer: o.Shuffle, Seed: o.Seed, Epochs: o.Epochs, Log: o.Log}
	cur, synthSeed := o.Cursor, o.SynthSeed
	spec := d.Spec
	switch {
	case spec == "synth" || strings.HasPrefix(spec, "synth:"):
		s := synthSeed
		if rest, ok := strings.CutPrefix(spec, "synth:"); ok {
			if _, err := fmt.Sscanf(rest, "%d", &s); err != nil {
				return nil, fmt.Errorf("data %q: want synth or synth:SEED (an integer)", spec)
			}
		}
		src, err := NewSynthLangSource(SynthLangConfig{Seed: s}, 0)
		if err != nil {
			return nil, fmt.Errorf("data %q: %w", spec, err)
		}
		if cur != nil {
			return ResumeStream(cfg, src, tok, *cur)
		}
		return NewStream(cfg, src, tok)
	case isPretokenizedDir(spec):
		src, err := OpenPretokenized(spec)
		if err != nil {
			return nil, fmt.Errorf("data %q: %w", spec, err)
		}
		if err := src.CheckTokenizer(tok); err != nil {
			return nil, fmt.Errorf("data %q: %w", spec, err)
		}
		if cur != nil {
			return ResumeTokenStream(cfg, src, src.EOS(), src.VocabSize(), *cur)
		}
		return NewTokenStream(cfg, src, src.EOS(), src.VocabSize())
	case HasHeldOut(spec):
		return nil, fmt.Errorf("data %q is split into a training and a held-out part: train on it with OpenTraining, "+
			"read its held-out part with HeldOut", spec)
	case strings.HasPrefix(spec, "mix:"):
		return nil, fmt.Errorf("data %q is a mixture: train on it with OpenTraining, read held-out rows with MixtureValidationSet", spec)
	case spec == "":
		return nil, fmt.Errorf("--data is empty: want synth, a pre-tokenized directory or parquet files")
	default:
		col := d.Column
		if col == "" {
			col = "text"
		}
		src, err := OpenParquetTextSource(spec, col)
		if err != nil {
			return nil, fmt.Errorf("data %q (column %q): %w", spec, col, err)
		}
		if cur != nil {
			return ResumeStream(cfg, src, tok, *cur)
		}
		return NewStream(cfg, src, tok)
	}
}

func isPretokenizedDir(path string) bool {
	_, err := os.Stat(filepath.Join(path, PretokenizedManifestFile))
	return err == nil
}

// isMixForm tells whether spec is read by the mixture (mix:, text:, parquet:).
func isMixForm(spec string) bool {
	_, _, text := cutTextKind(spec)
	return text || strings.HasPrefix(spec, "mix:")
}

// HasHeldOut tells whether spec has real-text components (text:PATH, parquet:PATTERN, alone or in a mix:),
// and so a held-out part that HeldOut reads. It does not check the spec otherwise.
func HasHeldOut(spec string) bool {
	if _, _, ok := cutTextKind(spec); ok {
		return true
	}
	rest, ok := strings.CutPrefix(spec, "mix:")
	if !ok {
		return false
	}
	for _, kv := range strings.Split(rest, ",") {
		if _, _, ok := cutTextKind(strings.TrimSpace(kv)); ok {
			return true
		}
	}
	return false
}

// checkColumn refuses --column with the forms that name their columns themselves.
func checkColumn(d DataSpec) error {
	if HasHeldOut(d.Spec) && d.Column != "" && d.Column != "text" {
		return fmt.Errorf("data %q: --column %q applies to bare parquet patterns; name the column in the spec instead: "+
			"parquet:PATTERN#%s", d.Spec, d.Column, d.Column)
	}
	return nil
}

// ValidationSet reads n fixed sequences of seqLen+1 tokens for validation: from valSpec when given (its
// held-out part when it has one, HeldOut), else from the held-out part of the training data's text components
// when it has any (HeldOut: then a mixture's validation loss is on held-out real text), else from the
// synthetic language with the validation seed when training on synth or the mixture (whose validation loss is
// then the language-modelling loss), else from the start of the training corpus in source order (then the
// validation loss is in-sample; a warning says so).
func ValidationSet(train, val DataSpec, tok tokenizers.Tokenizer, seqLen, n int, warn io.Writer) ([][]int32, string, error) {
	spec := val
	what := val.Spec
	switch {
	case val.Spec != "" && HasHeldOut(val.Spec), val.Spec == "" && HasHeldOut(train.Spec):
		if val.Spec == "" {
			spec = train
		}
		seqs, what, err := heldOut(spec, tok, seqLen, n)
		if err != nil {
			return nil, "", fmt.Errorf("validation data: %w", err)
		}
		return seqs, what, nil
	case val.Spec != "":
	case train.Spec == "synth" || strings.HasPrefix(train.Spec, "synth:") || strings.HasPrefix(train.Spec, "mix:"):
		spec = DataSpec{Spec: "synth"}
		what = fmt.Sprintf("synth:%d (held out)", ValSynthSeed)
	default:
		spec = train
		what = train.Spec + " (first sequences, in-sample)"
		fmt.Fprintf(warn, "warning: no --val-data: validating on the first %d sequences of the training data (in-sample)\n", n)
	}
	s, err := OpenStream(spec, tok, SpecStream{SeqLen: seqLen, Shuffle: 1, SynthSeed: ValSynthSeed, Epochs: EpochsForever,
		Log: io.Discard})
	if err != nil {
		return nil, "", fmt.Errorf("validation data: %w", err)
	}
	seqs, err := s.Batch(n)
	if err != nil {
		return nil, "", fmt.Errorf("validation data %s: %w", what, err)
	}
	return seqs, what, nil
}

// HeldOut returns n sequences of seqLen+1 tokens from the held-out part of d's text components (text:PATH,
// parquet:PATTERN[#COLUMN], alone or in a mix: spec; see HasHeldOut), tokenized with tok — an evaluation set
// no training run on d has read a token of. Each sequence is scored on its own (per-sequence): the held-out
// token stream of every component (each held-out document's ids, then EOS) is cut into windows of seqLen+1
// tokens starting every seqLen tokens, the components' windows are listed in spec order (M in all, regardless
// of the mixture weights, so every held-out token counts alike), and HeldOut returns windows ⌊i·M/n⌋ for
// i < n: all of them for n = M, evenly spread over the held-out text for n < M. The same (d, tok, seqLen, n)
// always gives the same sequences; the trainer's validation set of a run on d is HeldOut(d, tok, seqLen,
// EvalBatches·MicroBatch). n > M is an error that says M; HeldOutSequences returns M.
func HeldOut(d DataSpec, tok tokenizers.Tokenizer, seqLen, n int) ([][]int32, error) {
	seqs, _, err := heldOut(d, tok, seqLen, n)
	return seqs, err
}

// HeldOutSequences is M: how many sequences of seqLen+1 tokens the held-out part of d holds (see HeldOut).
func HeldOutSequences(d DataSpec, tok tokenizers.Tokenizer, seqLen int) (int, error) {
	all, _, err := heldOutWindows(d, tok, seqLen)
	return len(all), err
}

func heldOut(d DataSpec, tok tokenizers.Tokenizer, seqLen, n int) ([][]int32, string, error) {
	if n < 1 {
		return nil, "", fmt.Errorf("held-out set of %q: %d sequences requested, want ≥ 1", d.Spec, n)
	}
	all, descs, err := heldOutWindows(d, tok, seqLen)
	if err != nil {
		return nil, "", err
	}
	m := len(all)
	if n > m {
		return nil, "", fmt.Errorf("the held-out part of %q holds %d sequences of %d tokens, fewer than the %d requested: "+
			"ask for fewer, shorten the sequences or hold out more (mix:...,heldout=F)", d.Spec, m, seqLen+1, n)
	}
	out := make([][]int32, n)
	for i := range out {
		out[i] = append([]int32(nil), all[int(int64(i)*int64(m)/int64(n))]...)
	}
	return out, fmt.Sprintf("%d of the %d held-out sequences: %s", n, m, strings.Join(descs, "; ")), nil
}

// heldOutWindows lists the held-out windows of every text component of d, and describes the components' splits.
func heldOutWindows(d DataSpec, tok tokenizers.Tokenizer, seqLen int) ([][]int32, []string, error) {
	if seqLen < 1 {
		return nil, nil, fmt.Errorf("held-out set of %q: seq_len %d must be ≥ 1", d.Spec, seqLen)
	}
	if !HasHeldOut(d.Spec) {
		return nil, nil, fmt.Errorf("data %q has no held-out part: only text:PATH and parquet:PATTERN[#COLUMN] components "+
			"(alone or in a mix: spec) are split into training and held-out parts", d.Spec)
	}
	if err := checkColumn(d); err != nil {
		return nil, nil, err
	}
	ms, err := parseMix(d.Spec)
	if err != nil {
		return nil, nil, err
	}
	var all [][]int32
	var descs []string
	for _, it := range ms.texts {
		p, err := loadTextItem(it, tok, ms.heldout)
		if err != nil {
			return nil, nil, err
		}
		w := orderedWindows(p.held, seqLen)
		if len(w) == 0 {
			return nil, nil, fmt.Errorf("the held-out part of %s has %d tokens, fewer than seq_len+1 = %d: hold out more (mix:...,heldout=F) "+
				"or shorten the sequences", it.spec(), len(p.held), seqLen+1)
		}
		all = append(all, w...)
		descs = append(descs, p.desc)
	}
	return all, descs, nil
}
