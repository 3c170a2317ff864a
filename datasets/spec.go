package recipe

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
)

// Data specs, the value of --data and --val-data:
//
//	synth                the synthetic language (datasets.SynthLang, default mix), rendered as text and tokenized;
//	                     "synth:SEED" picks its seed (training uses seed 1, validation seed 2 by default)
//	DIR                  a pre-tokenized corpus written by `oryx tokenize` (DIR/manifest.json)
//	mix:synth=W,...      the tiny study's synthetic mixture: language, MQAR and mini needles (mixture.go)
//	PATTERN              Hugging Face parquet files (a file, a directory or a glob) with a text column
//	                     (--column, default "text")
//
// Every form packs documents into SeqLen+1-token windows with EOS between documents (datasets.Stream),
// shuffled through a buffer and looped over epochs without end; the stream's cursor is saved with every
// checkpoint so a resumed run reads exactly the sequences the uninterrupted run would have.

// DataSpec names a corpus and how to read it.
type DataSpec struct {
	Spec   string // as above
	Column string // text column of parquet corpora
}

// defaultSynthSeed is the SynthLang seed of "synth" for training; validation uses defaultSynthSeed+1.
const defaultSynthSeed = 1

// openSource opens the training data d as a batch source, resumed from state when non-nil.
func openSource(d DataSpec, tok tokenizers.Tokenizer, seqLen int, seed uint64, state json.RawMessage, log io.Writer) (batchSource, error) {
	if strings.HasPrefix(d.Spec, "mix:") {
		return newMixSource(d.Spec, tok, seqLen, seed, state, log)
	}
	var cur *datasets.StreamCursor
	if state != nil {
		cur = &datasets.StreamCursor{}
		if err := json.Unmarshal(state, cur); err != nil {
			return nil, fmt.Errorf("data state: %w", err)
		}
	}
	s, err := openStream(d, tok, seqLen, 0, seed, defaultSynthSeed, cur, log)
	if err != nil {
		return nil, err
	}
	return streamSource{s}, nil
}

// openStream opens spec as an endless packed stream of seqLen+1 windows for tok, resumed from cur when
// non-nil. shuffle 1 keeps source order.
func openStream(d DataSpec, tok tokenizers.Tokenizer, seqLen, shuffle int, seed uint64, synthSeed uint64,
	cur *datasets.StreamCursor, log io.Writer) (*datasets.Stream, error) {
	cfg := datasets.StreamConfig{SeqLen: seqLen, ShuffleBuffer: shuffle, Seed: seed, Epochs: datasets.EpochsForever, Log: log}
	spec := d.Spec
	switch {
	case spec == "synth" || strings.HasPrefix(spec, "synth:"):
		s := synthSeed
		if rest, ok := strings.CutPrefix(spec, "synth:"); ok {
			if _, err := fmt.Sscanf(rest, "%d", &s); err != nil {
				return nil, fmt.Errorf("data %q: want synth or synth:SEED (an integer)", spec)
			}
		}
		src, err := datasets.NewSynthLangSource(datasets.SynthLangConfig{Seed: s}, 0)
		if err != nil {
			return nil, fmt.Errorf("data %q: %w", spec, err)
		}
		if cur != nil {
			return datasets.ResumeStream(cfg, src, tok, *cur)
		}
		return datasets.NewStream(cfg, src, tok)
	case isPretokenizedDir(spec):
		src, err := datasets.OpenPretokenized(spec)
		if err != nil {
			return nil, fmt.Errorf("data %q: %w", spec, err)
		}
		if err := src.CheckTokenizer(tok); err != nil {
			return nil, fmt.Errorf("data %q: %w", spec, err)
		}
		if cur != nil {
			return datasets.ResumeTokenStream(cfg, src, src.EOS(), src.VocabSize(), *cur)
		}
		return datasets.NewTokenStream(cfg, src, src.EOS(), src.VocabSize())
	case spec == "":
		return nil, fmt.Errorf("--data is empty: want synth, a pre-tokenized directory or parquet files")
	default:
		col := d.Column
		if col == "" {
			col = "text"
		}
		src, err := datasets.OpenParquetTextSource(spec, col)
		if err != nil {
			return nil, fmt.Errorf("data %q (column %q): %w", spec, col, err)
		}
		if cur != nil {
			return datasets.ResumeStream(cfg, src, tok, *cur)
		}
		return datasets.NewStream(cfg, src, tok)
	}
}

func isPretokenizedDir(path string) bool {
	_, err := os.Stat(filepath.Join(path, "manifest.json"))
	return err == nil
}

// validationSet reads n fixed sequences of seqLen+1 tokens for validation: from valSpec when given, else
// from the synthetic language with the validation seed when training on synth or the mixture (whose
// validation loss is then the language-modelling loss), else from the start of the
// training corpus in source order (then the validation loss is in-sample; a warning says so).
func validationSet(train, val DataSpec, tok tokenizers.Tokenizer, seqLen, n int, warn io.Writer) ([][]int32, string, error) {
	spec := val
	what := val.Spec
	switch {
	case val.Spec != "":
	case train.Spec == "synth" || strings.HasPrefix(train.Spec, "synth:") || strings.HasPrefix(train.Spec, "mix:"):
		spec = DataSpec{Spec: "synth"}
		what = fmt.Sprintf("synth:%d (held out)", defaultSynthSeed+1)
	default:
		spec = train
		what = train.Spec + " (first sequences, in-sample)"
		fmt.Fprintf(warn, "warning: no --val-data: validating on the first %d sequences of the training data (in-sample)\n", n)
	}
	s, err := openStream(spec, tok, seqLen, 1, 0, defaultSynthSeed+1, nil, io.Discard)
	if err != nil {
		return nil, "", fmt.Errorf("validation data: %w", err)
	}
	seqs, err := s.Batch(n)
	if err != nil {
		return nil, "", fmt.Errorf("validation data %s: %w", what, err)
	}
	return seqs, what, nil
}
