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
//	mix:synth=W,...      the tiny study's synthetic mixture: language, MQAR and mini needles (mixture.go)
//	PATTERN              Hugging Face parquet files (a file, a directory or a glob) with a text column
//	                     (--column, default "text")
//
// Every form packs documents into SeqLen+1-token windows with EOS between documents (Stream),
// shuffled through a buffer and looped over epochs without end; the stream's cursor is saved with every
// checkpoint so a resumed run reads exactly the sequences the uninterrupted run would have.

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

// OpenTraining opens the training data d as a batch source (the packed stream, or the mixture for "mix:"),
// resumed from state (a BatchSource's State) when non-nil.
func OpenTraining(d DataSpec, tok tokenizers.Tokenizer, seqLen int, seed uint64, state json.RawMessage, log io.Writer) (BatchSource, error) {
	if strings.HasPrefix(d.Spec, "mix:") {
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

// ValidationSet reads n fixed sequences of seqLen+1 tokens for validation: from valSpec when given, else
// from the synthetic language with the validation seed when training on synth or the mixture (whose
// validation loss is then the language-modelling loss), else from the start of the
// training corpus in source order (then the validation loss is in-sample; a warning says so).
func ValidationSet(train, val DataSpec, tok tokenizers.Tokenizer, seqLen, n int, warn io.Writer) ([][]int32, string, error) {
	spec := val
	what := val.Spec
	switch {
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
