// Package probes holds the synthetic probes of a loaded model: MQAR accuracy per schedule and its mode-switch
// test (ScoreMQAR, SwitchMQAR), held-out text for the mode-switch curves (HeldOut), and the generation probes
// (MiniNeedleProbe, CopyProbe, RunGenProbe), which the tiny study (recipes/study) composes; and their
// commands, `evals mqar` (MQAR) and `evals switch` (Switch).
package probes

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/evalsetup"
	"github.com/oryx-go/oryx/evals/modeswitch"
	"github.com/oryx-go/oryx/evals/mqar"
	"github.com/oryx-go/oryx/evals/oryxlm"
	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/claim"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/safefile"
)

// SwitchOptions configure the mode-switch analysis (`evals switch`).
type SwitchOptions struct {
	Checkpoint string
	Tokenizer  string // "" = the training run's
	Data       string // a data spec (datasets.OpenStream); "" or "synth" = the synthetic language, seed 3 (held out)
	Column     string // text column of parquet data
	SeqLen     int    // tokens per sequence
	At         int    // switch position
	Sequences  int
	Batch      int
	ScoreMemMB int    // oryxlm.Options.ScoreMemMB (0 = default)
	Out        string // directory: switch.json and switch.png
	Force      bool   // write into Out even when it is another command's output
}

// HeldOut reads n sequences of seqLen+1 tokens of held-out text, in order: data is read with
// datasets.OpenStream ("synth": the synthetic language with datasets.AnalysisSynthSeed, unseen in training),
// or, for specs with real text (text:PATH, parquet:PATTERN, mix: with such components), with datasets.HeldOut
// (their held-out part only).
func HeldOut(data datasets.DataSpec, tok tokenizers.Tokenizer, seqLen, n int) ([][]int32, error) {
	if datasets.HasHeldOut(data.Spec) {
		return datasets.HeldOut(data, tok, seqLen, n)
	}
	st, err := datasets.OpenStream(data, tok, datasets.SpecStream{SeqLen: seqLen, Shuffle: 1,
		SynthSeed: datasets.AnalysisSynthSeed, Log: io.Discard})
	if err != nil {
		return nil, err
	}
	seqs, err := st.Batch(n)
	if err != nil {
		return nil, fmt.Errorf("reading %d sequences of %d tokens: %w", n, seqLen+1, err)
	}
	return seqs, nil
}

// Switch computes the per-position loss curves around a mode switch and writes switch.json and switch.png.
func Switch(o SwitchOptions, log io.Writer) (*modeswitch.Curves, error) {
	if err := claim.Dir("--out", o.Out, claim.Switch, o.Force); err != nil {
		return nil, err
	}
	lm, err := loadLM(o.Checkpoint, o.Tokenizer, oryxlm.Options{Batch: o.Batch, MaxLength: o.SeqLen + 1, ScoreMemMB: o.ScoreMemMB})
	if err != nil {
		return nil, err
	}
	defer lm.Close()
	if o.SeqLen < 2 || o.Sequences < 1 {
		return nil, fmt.Errorf("--seq-len %d and --sequences %d must be ≥ 2 and ≥ 1", o.SeqLen, o.Sequences)
	}
	data := o.Data
	if data == "" {
		data = "synth"
	}
	seqs, err := HeldOut(datasets.DataSpec{Spec: data, Column: o.Column}, lm.Tokenizer(), o.SeqLen, o.Sequences)
	if err != nil {
		return nil, fmt.Errorf("--data %s: %w", data, err)
	}
	c, err := modeswitch.Run(lm, seqs, o.At)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	if err := c.WriteJSON(filepath.Join(o.Out, claim.SwitchFile)); err != nil {
		return nil, err
	}
	title := fmt.Sprintf("%s: loss around a mode switch at %d", filepath.Base(o.Checkpoint), o.At)
	if err := c.WritePNG(filepath.Join(o.Out, "switch.png"), title); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "mean loss after the switch: %v; recovery tokens: %v\n", c.MeanAfter, c.Recovery)
	return c, nil
}

// MQAROptions configure `evals mqar`. Pairs, SeqLen, Vocab and Offset left unset (nil, 0, 0, −1) are read
// from the checkpoint's run.json when the model was trained on the study's mixture (datasets.MixMQAR): its
// id offset and vocabulary, its sequence length, and the pair counts 4, 8, 16 up to the most it trained
// with — a forgotten flag used to score chance silently. Otherwise they default to 4,8,16 pairs, 256
// tokens, vocabulary 128 and offset 0.
type MQAROptions struct {
	Checkpoint string
	Tokenizer  string
	Pairs      []int
	SeqLen     int
	Vocab      int   // MQAR vocabulary (keys [1, V/2), values [V/2, V))
	Offset     int32 // added to every id (byte-level models trained with the study's mixture: 128)
	Examples   int
	Seed       uint64
	Batch      int
	ScoreMemMB int    // oryxlm.Options.ScoreMemMB (0 = default)
	Out        string // JSON file
	Force      bool   // overwrite Out even when it is not an MQAR results file, or lies in another command's output
}

// MQAR scores MQAR accuracy per schedule and number of pairs and writes a JSON file.
func MQAR(o MQAROptions, log io.Writer) (map[int][]mqar.Result, error) {
	o = o.Resolve(log)
	if o.Out != "" {
		if err := claim.File("--out", o.Out, "an MQAR results file", isMQARFile, o.Force); err != nil {
			return nil, err
		}
	}
	lm, err := loadLM(o.Checkpoint, o.Tokenizer, oryxlm.Options{Batch: o.Batch, MaxLength: o.SeqLen + 1, ScoreMemMB: o.ScoreMemMB})
	if err != nil {
		return nil, err
	}
	defer lm.Close()
	out, err := ScoreMQAR(lm, datasets.MQARConfig{Vocab: o.Vocab, SeqLen: o.SeqLen, Seed: o.Seed}, o.Pairs, o.Examples, o.Offset)
	if err != nil {
		return nil, err
	}
	for _, p := range o.Pairs {
		fmt.Fprintf(log, "mqar %d pairs: %s\n", p, FormatMQAR(out[p]))
	}
	if o.Out != "" {
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(o.Out), 0o755); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(o.Out, append(data, '\n')); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// isMQARFile returns nil when path holds what MQAR writes: a JSON object of results per pair count.
func isMQARFile(path string) error {
	data, err := safefile.ReadFile(path)
	if err != nil {
		return err
	}
	var v map[int][]mqar.Result
	return json.Unmarshal(data, &v)
}

// ScoreMQAR scores MQAR under every schedule the model's variant has (mqar.Evaluate) for each number of
// pairs: examples 0..n-1 of cfg with NumPairs set to it (use a seed unseen in training), ids shifted by
// offset.
func ScoreMQAR(lm *oryxlm.Model, cfg datasets.MQARConfig, pairs []int, n int, offset int32) (map[int][]mqar.Result, error) {
	return byPairs(pairs, func(p int) ([]mqar.Result, error) {
		cfg.NumPairs = p
		return mqar.Evaluate(lm, cfg, n, offset)
	})
}

// SwitchMQAR runs MQAR's mode-switch test (mqar.Switch: the pairs read in one mode, the queries in the
// other; multi-mixer variants) for each number of pairs, on the examples ScoreMQAR scores.
func SwitchMQAR(lm *oryxlm.Model, cfg datasets.MQARConfig, pairs []int, n int, offset int32) (map[int][]mqar.Result, error) {
	return byPairs(pairs, func(p int) ([]mqar.Result, error) {
		cfg.NumPairs = p
		return mqar.Switch(lm, cfg, n, offset)
	})
}

func byPairs(pairs []int, score func(p int) ([]mqar.Result, error)) (map[int][]mqar.Result, error) {
	out := map[int][]mqar.Result{}
	for _, p := range pairs {
		rs, err := score(p)
		if err != nil {
			return nil, fmt.Errorf("mqar with %d pairs: %w", p, err)
		}
		out[p] = rs
	}
	return out, nil
}

// FormatMQAR is a log line's account of MQAR results: accuracy ± standard error and the attention fraction
// per schedule.
func FormatMQAR(rs []mqar.Result) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s %.1f%% ± %.1f (attention %.1f%% of tokens)", r.Schedule, 100*r.Accuracy, 100*r.StdErr, 100*r.AttentionFraction))
	}
	return strings.Join(parts, ", ")
}

// Resolve fills the unset MQAR options from the checkpoint's run.json (MQAROptions), so that a caller can
// bound the values it will run with (run.json is input too) before MQAR; on options already resolved it is
// a no-op.
func (o MQAROptions) Resolve(log io.Writer) MQAROptions {
	if o.Checkpoint == "" || (o.SeqLen != 0 && o.Vocab != 0 && o.Offset >= 0 && o.Pairs != nil) {
		return o // MQAR refuses the missing checkpoint; nothing left to fill
	}
	spec, seqLen, ok := rundir.TrainedOn(o.Checkpoint)
	maxPairs, mq := datasets.MixMQAR(spec)
	if ok && mq {
		if o.SeqLen == 0 {
			o.SeqLen = seqLen
		}
		if o.Vocab == 0 {
			o.Vocab = datasets.MQARVocab
		}
		if o.Offset < 0 {
			o.Offset = datasets.MQARTokenOffset
		}
		if o.Pairs == nil {
			for _, p := range []int{4, 8, 16} {
				if p <= maxPairs {
					o.Pairs = append(o.Pairs, p)
				}
			}
		}
		fmt.Fprintf(log, "mqar: from %s/run.json (%s): seq_len %d, vocab %d, offset %d, pairs %v\n", o.Checkpoint, spec,
			o.SeqLen, o.Vocab, o.Offset, o.Pairs)
		return o
	}
	if o.Offset < 0 {
		o.Offset = 0
		fmt.Fprintf(log, "mqar: warning: %s was not trained on the MQAR mixture (run.json): scoring ids from offset 0\n", o.Checkpoint)
	}
	if o.SeqLen == 0 {
		o.SeqLen = 256
	}
	if o.Vocab == 0 {
		o.Vocab = datasets.MQARVocab
	}
	if o.Pairs == nil {
		o.Pairs = []int{4, 8, 16}
	}
	return o
}

// loadLM opens the checkpoint in dir as an evaluation model, read with tokSpec (evalsetup.LoadTokenizer).
func loadLM(dir, tokSpec string, opts oryxlm.Options) (*oryxlm.Model, error) {
	if dir == "" {
		return nil, fmt.Errorf("--checkpoint is required")
	}
	tok, err := evalsetup.LoadTokenizer(tokSpec, dir)
	if err != nil {
		return nil, err
	}
	return oryxlm.Load(dir, tok, opts)
}
