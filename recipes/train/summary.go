package train

import (
	"math"
	"sort"
	"time"

	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
)

// Summary is the outcome of a run, also written to summary.json.
type Summary struct {
	Name               string             `json:"name"`
	Variant            oryx.Variant       `json:"variant"`
	Params             int64              `json:"params"`
	Steps              int                `json:"steps"`
	Tokens             int64              `json:"tokens"`
	TrainLoss          jsonnum.Float      `json:"train_loss"` // mean over the last 10% of logged steps
	ValLoss            rundir.ValLosses   `json:"val_loss"`   // by validation mode (ValModes)
	Skipped            int                `json:"skipped_steps"`
	TokensPerSec       float64            `json:"tokens_per_s"`          // over this process's steps, the first (compiling) one included
	SteadyTokensPerSec float64            `json:"steady_tokens_per_s"`   // tokens per step / median step time of this process's second half
	FLOPsPerToken      float64            `json:"train_flops_per_token"` // model FLOPs, forward + backward (Plan)
	TFLOPs             float64            `json:"achieved_tflops"`       // steady_tokens_per_s × train_flops_per_token / 1e12
	ElapsedSec         float64            `json:"elapsed_s"`             // training time over all restarts
	PeakRSSBytes       int64              `json:"peak_rss_bytes"`
	Backend            string             `json:"backend"`
	ResumedAt          int                `json:"resumed_at_step,omitempty"`
	ValidationSet      string             `json:"validation_set"`
	Extra              map[string]float64 `json:"extra,omitempty"`
}

// finish writes summary.json: the final validation losses (validated now when this process resumed after
// the last step), this process's throughput, the model FLOPs and the mean training loss of the last 10 % of
// logged steps.
func (s *session) finish() (*Summary, error) {
	r, tc, st := s.r, s.tc, s.st
	if s.lastVal == nil && len(s.valSeqs) > 0 { // resumed after the final step: validate for the summary (logged already)
		var err error
		if s.lastVal, err = s.validate(); err != nil {
			return nil, err
		}
	}
	sum := &Summary{
		Name: r.Name, Variant: r.Model.Variant, Params: oryx.CountParams(r.Model).Total, Steps: st.Step, Tokens: st.TokensSeen,
		ValLoss: s.lastVal, Skipped: st.Skipped, ElapsedSec: st.ElapsedSec, PeakRSSBytes: guard.PeakRSS(),
		Backend: s.be.Name(), ResumedAt: s.startStep, ValidationSet: s.valWhat,
	}
	if d := time.Since(s.procStart).Seconds(); s.procTokens > 0 && d > 0 {
		sum.TokensPerSec = float64(s.procTokens) / d
	}
	if len(s.stepTimes) > 0 {
		half := append([]float64(nil), s.stepTimes[len(s.stepTimes)/2:]...)
		sort.Float64s(half)
		sum.SteadyTokensPerSec = float64(tc.TokensPerStep()) / half[len(half)/2]
	}
	sum.FLOPsPerToken = FLOPsPerToken(r.Model, tc)
	sum.TFLOPs = sum.SteadyTokensPerSec * sum.FLOPsPerToken / 1e12
	sum.TrainLoss = recentTrainLoss(r.Out)
	if err := rundir.WriteJSON(r.Out, rundir.SummaryFile, sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// recentTrainLoss is the mean training loss over the last 10 % of the steps logged in dir's metrics.jsonl
// (non-finite losses left out; 0 when there are none).
func recentTrainLoss(dir string) jsonnum.Float {
	train, _, err := rundir.ReadMetrics(dir)
	if err != nil || len(train) == 0 {
		return 0
	}
	n := max(1, len(train)/10)
	var sum float64
	var c int
	for _, rec := range train[len(train)-n:] {
		if v := float64(rec.Loss); !math.IsNaN(v) {
			sum += v
			c++
		}
	}
	return jsonnum.Float(sum / float64(max(c, 1)))
}
