package schedule

import (
	"testing"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// FuzzParseSpec: any spec either parses into a schedule of the asked shape with modes 0/1 and an attention
// fraction in [0, 1], or is an error naming the spec — never a panic; DecodeMode answers without panicking.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"attention", "linear", "block", "block:16:0.3", "sequence:0.3", "attention-last:128",
		"prefill-attention", "linear-until:5", "A:0-9,L:10-", "A:0-3,L:4-7,A:8-", "attention-last:x", "A:5-2", "",
		"L:0-", "block:0:2", "A:0-9223372036854775807", "budget:0.1:last", "budget:0.5:random", "budget:0.2:entropy",
		"budget:1e-300:last", "budget:0.1:entropy:3", "budget:0.3:question"} {
		f.Add(s, uint8(2), uint16(40), uint64(1))
	}
	f.Fuzz(func(t *testing.T, spec string, b uint8, tl uint16, seed uint64) {
		bb, tt := int(b%8)+1, int(tl%600)+1
		sp, err := ParseSpec(spec)
		if err != nil {
			return
		}
		s, err := sp.Schedule(bb, tt, seed)
		if err != nil {
			return // budget:F:question and budget:F:entropy need the task's split or a linear pass
		}
		if s.Batch() != bb {
			t.Fatalf("%q: batch %d, want %d", spec, s.Batch(), bb)
		}
		for r := range bb {
			row := s.Row(r)
			if len(row) != tt {
				t.Fatalf("%q: row %d has %d modes, want %d", spec, r, len(row), tt)
			}
			for _, m := range row {
				if m != oryx.Attention && m != oryx.Linear {
					t.Fatalf("%q: mode %d", spec, m)
				}
			}
		}
		if b, ok := sp.Budget(); ok {
			for r := range bb {
				if n := oryxtest.CountAttention(s.Row(r)); n != BudgetCount(b.Fraction, tt) {
					t.Fatalf("%q: row %d has %d attention tokens, want BudgetCount = %d", spec, r, n, BudgetCount(b.Fraction, tt))
				}
			}
		}
		if fr := s.AttentionFraction(); !(fr >= 0 && fr <= 1) {
			t.Fatalf("%q: attention fraction %v", spec, fr)
		}
		_, _ = sp.DecodeMode(tt, tt/2) // must not panic, whatever it answers
	})
}
