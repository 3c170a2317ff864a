package schedule_test

import (
	"fmt"

	"github.com/oryx-go/oryx/oryx/schedule"
)

// A schedule spec says which tokens read in attention mode; "attention-last:N" is the paper's mixed
// setting (long context linear, the last N tokens — the question — in attention).
func ExampleParseSpec() {
	spec, err := schedule.ParseSpec("attention-last:3")
	if err != nil {
		panic(err)
	}
	s, err := spec.Schedule(1, 10, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.RowString(0), s.AttentionFraction())
	ranges, _ := schedule.ParseSpec("A:0-1,L:1-") // ranges: a later range wins where they overlap
	r, _ := ranges.Schedule(1, 6, 0)
	fmt.Println(r.RowString(0))
	_, err = schedule.ParseSpec("block:0:0.5")
	fmt.Println(err)
	// Output:
	// L0-6 A7-9 0.3
	// A0-0 L1-5
	// schedule "block:0:0.5": block length must be > 0, got 0
}
