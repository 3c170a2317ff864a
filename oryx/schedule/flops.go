package schedule

import "github.com/oryx-go/oryx/oryx"

// ScheduleFLOPs returns the forward flops of one row of a schedule (a sequence of s.RowLen(row) tokens), as
// the graphs compute them: the dense parallel forward (oryx.Model.Logits), which for an Oryx model runs both
// readouts for every token whatever the schedule (one compiled graph serves every schedule), or with gathered
// = true the gathered accounting (oryx.AttentionCoreFLOPs): the attention query projection and core only at the
// row's attention positions, the cost that falls with the attention budget.
func ScheduleFLOPs(c oryx.Config, s *Schedule, row int, gathered bool) float64 {
	t := s.RowLen(row)
	attn := s.AttentionPositions(row)
	if !c.Variant.IsMultiMixer() {
		return float64(t) * oryx.FLOPsPerToken(c, t, 0)
	}
	if !gathered { // the modes are a runtime input: the graph computes both readouts for every token
		return float64(t) * oryx.FLOPsPerToken(c, t, 0.5)
	}
	// Everything but attention, for all tokens; then W_QA and the core at the attention positions only.
	total := float64(t) * oryx.FLOPsPerToken(c, t, 0)
	if len(attn) == 0 { // (a nil list would mean "dense" to AttentionCoreFLOPs)
		return total
	}
	total += float64(c.Layers) * float64(len(attn)) * 2 * float64(c.DModel*c.Heads*c.KeyDim)
	return total + oryx.AttentionCoreFLOPs(c, t, attn)
}
