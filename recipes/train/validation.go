package train

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/seedrand"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// The validation modes: the keys of the validation losses in metrics.jsonl (val_loss_<mode>, rundir.ValRecord)
// and in summary.json's val_loss. A variant is validated in those it has.
const (
	ValAttention = "attention" // every token in attention mode
	ValLinear    = "linear"    // every token in linear mode
	// ValBlockRandom is block-wise random modes (schedule.BlockRandom), the training distribution of the
	// multi-mixer variants. It is not the evaluations' "mixed" schedule (linear context, attention from the
	// question on, evals/oryxlm.Mixed); runs written before the rename called it "mixed" (rundir.ValLosses
	// reads that as this).
	ValBlockRandom = "block_random"
)

// ValModes lists the validation modes in display order.
var ValModes = []string{ValAttention, ValLinear, ValBlockRandom}

// validateAndPlot validates, logs the losses to metrics.jsonl and the progress display, and redraws
// curves.png.
func (s *session) validateAndPlot() error {
	var err error
	if s.lastVal, err = s.validate(); err != nil {
		return err
	}
	if s.lastVal != nil {
		if err := s.mlog.Write(rundir.ValRecord{Kind: "val", Step: s.st.Step, Tokens: s.st.TokensSeen, Loss: s.lastVal}); err != nil {
			return err
		}
		s.prog.message("step %d: validation loss %s", s.st.Step, formatLosses(s.lastVal))
	}
	if s.r.Probe != nil {
		if err := s.probe(); err != nil {
			return err
		}
	}
	if err := writeCurves(s.r.Out); err != nil {
		s.prog.message("warning: plotting curves: %v", err)
	}
	return nil
}

// probe measures Run.Probe and logs it to metrics.jsonl and the progress display.
func (s *session) probe() error {
	start := time.Now()
	values, err := s.r.Probe(s.trainer, s.st.Step)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	if values == nil {
		return nil
	}
	rec := rundir.ProbeRecord{Kind: "probe", Step: s.st.Step, Tokens: s.st.TokensSeen, Seconds: time.Since(start).Seconds(),
		Values: map[string]jsonnum.Float{}}
	names := make([]string, 0, len(values))
	for k, v := range values {
		rec.Values[k] = jsonnum.Float(v)
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %.3f", k, values[k])
	}
	s.prog.message("step %d: probe (%.1f s) %s", s.st.Step, rec.Seconds, strings.Join(parts, ", "))
	return s.mlog.Write(rec)
}

// validate returns the mean token loss of the validation set in each of the variant's validation modes
// (nil without a validation set).
func (s *session) validate() (rundir.ValLosses, error) {
	if len(s.valSeqs) == 0 {
		return nil, nil
	}
	out := rundir.ValLosses{}
	for _, vm := range validationModes(s.r.Model.Variant, s.tc) {
		var sum float64
		var n int
		for i := 0; i < len(s.valSeqs); i += s.tc.MicroBatch {
			batch := s.valSeqs[i : i+s.tc.MicroBatch]
			var modes [][]oryx.Mode
			if vm.schedule != nil {
				modes = vm.schedule(len(batch), s.tc.SeqLen, uint64(i))
			}
			l, c, err := s.trainer.EvalLoss(batch, modes)
			if err != nil {
				return nil, err
			}
			sum += l
			n += c
		}
		out[vm.name] = jsonnum.Float(sum / float64(n))
	}
	return out, nil
}

// validationMode is one schedule validation reads the held-out set with.
type validationMode struct {
	name     string
	schedule func(b, t int, offset uint64) [][]oryx.Mode // nil: the variant's only readout
}

// validationModes: multi-mixer variants are validated all-attention, all-linear and in block-random modes
// (ValBlockRandom: the training distribution, with a fixed seed); single-mixer variants in their one
// mode.
func validationModes(v oryx.Variant, tc TrainConfig) []validationMode {
	if !v.IsMultiMixer() {
		if v.HasAttention() {
			return []validationMode{{name: ValAttention}}
		}
		return []validationMode{{name: ValLinear}}
	}
	const valSeed = 0x56414c // "VAL"
	rows := func(s *schedule.Schedule) [][]oryx.Mode {
		r := make([][]oryx.Mode, s.Batch())
		for b := range r {
			r[b] = s.Row(b)
		}
		return r
	}
	return []validationMode{
		{ValAttention, func(b, t int, _ uint64) [][]oryx.Mode { s, _ := schedule.AllAttention(b, t); return rows(s) }},
		{ValLinear, func(b, t int, _ uint64) [][]oryx.Mode { s, _ := schedule.AllLinear(b, t); return rows(s) }},
		{ValBlockRandom, func(b, t int, off uint64) [][]oryx.Mode {
			s, _ := schedule.BlockRandom(b, t, tc.BlockLen, tc.AttentionProb, seedrand.Mix64(valSeed, off))
			return rows(s)
		}},
	}
}

func formatLosses(m rundir.ValLosses) string {
	var parts []string
	for _, k := range ValModes {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %.4f", k, float64(v)))
		}
	}
	return strings.Join(parts, ", ")
}
