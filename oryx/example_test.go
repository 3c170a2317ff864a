package oryx_test

import (
	"fmt"
	"math"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// Build the tiny Oryx-TG preset and compute logits for a batch under a schedule: the first three tokens
// in linear mode, the last in attention mode. The weights are random: they are created in ctx on first use.
func ExampleModel_Logits() {
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	if err != nil {
		panic(err)
	}
	m, err := oryx.New(cfg)
	if err != nil {
		panic(err)
	}
	be, err := oryx.Backend()
	if err != nil {
		panic(err)
	}
	spec, err := schedule.ParseSpec("attention-last:1")
	if err != nil {
		panic(err)
	}
	sched, err := spec.Schedule(2, 4, 0)
	if err != nil {
		panic(err)
	}
	ctx := context.New()
	logits, err := context.ExecOnce(be, ctx, func(ctx *context.Context, tokens, modes *graph.Node) *graph.Node {
		return m.Logits(ctx, tokens, modes)
	}, [][]int32{{72, 105, 33, 10}, {1, 2, 3, 4}}, sched.Tensor())
	if err != nil {
		panic(err)
	}
	finite := true
	for _, v := range tensors.MustCopyFlatData[float32](logits) {
		finite = finite && !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
	}
	fmt.Println(cfg.Variant, "logits", logits.Shape().Dimensions, "finite:", finite)
	fmt.Println("parameters:", oryx.CountParams(cfg).Total)
	// Output:
	// oryx-tg logits [2 4 256] finite: true
	// parameters: 104072
}
