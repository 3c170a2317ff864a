package datasets

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/internal/progress"
)

// PretokenizeBar renders PretokenizeProgress for `oryx tokenize` (internal/progress). On a terminal it redraws
// one line "\r[#####     ] 45% 1.2M docs 310k tok/s ETA 1m20s" at most every 200 ms; otherwise it writes a
// line each time another 10% of the input rows is done.
type PretokenizeBar struct {
	r       *progress.Reporter
	final   PretokenizeProgress
	started bool
}

// NewPretokenizeBar draws on w, a terminal or not (progress.IsTerminal), with the clock now.
func NewPretokenizeBar(w io.Writer, terminal bool, now func() time.Time) *PretokenizeBar {
	mode := progress.Log
	if terminal {
		mode = progress.Terminal
	}
	return &PretokenizeBar{r: progress.New(w, progress.Options{Mode: mode, Now: now, LogInterval: -1, LogSteps: 10})}
}

// Update is a PretokenizeConfig.Progress function.
func (b *PretokenizeBar) Update(p PretokenizeProgress) {
	b.final, b.started = p, true
	b.r.Update(float64(p.Rows), float64(p.TotalRows), false, func() string { return b.line(p) })
}

// Finish draws the last state and ends the terminal line.
func (b *PretokenizeBar) Finish() {
	if b.r.Terminal() && b.started {
		b.r.Update(float64(b.final.Rows), float64(b.final.TotalRows), true, func() string { return b.line(b.final) })
		b.r.Finish()
	}
}

// line is the progress text: a bar (terminal only), percent, documents, tokens/s and ETA.
func (b *PretokenizeBar) line(p PretokenizeProgress) string {
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

// Summary is `oryx tokenize`'s closing line for a corpus written to out with tok: documents, tokens, shards,
// time and rate, what was skipped or repaired, and the tokenizer.
func (s PretokenizeStats) Summary(out string, tok tokenizers.Tokenizer) string {
	rate := 0.0
	if s.Seconds > 0 {
		rate = float64(s.Tokens) / s.Seconds
	}
	shards := "shards"
	if s.Shards == 1 {
		shards = "shard"
	}
	return fmt.Sprintf("tokenized %d documents, %d tokens (%s) into %d %s in %s in %.1f s (%s tokens/s); "+
		"skipped %d (%d empty, %d null); %d repaired UTF-8; tokenizer %s (vocab %d, eos %d)",
		s.Documents, s.Tokens, human.Count(float64(s.Tokens)), s.Shards, shards,
		out, s.Seconds, human.Count(rate),
		s.Skipped, s.SkippedEmpty, s.SkippedNull, s.RepairedUTF8,
		tok.Name(), tok.VocabSize(), tok.EOS())
}
