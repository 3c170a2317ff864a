package oryx_test

import (
	"fmt"
	"math"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/oryx"
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
	sched, err := oryx.ParseSchedule("attention-last:1", 2, 4, 0)
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

// A schedule spec says which tokens read in attention mode; "attention-last:N" is the paper's mixed
// setting (long context linear, the last N tokens — the question — in attention).
func ExampleParseSchedule() {
	s, err := oryx.ParseSchedule("attention-last:3", 1, 10, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.RowString(0), s.AttentionFraction())
	r, _ := oryx.ParseSchedule("A:0-1,L:1-", 1, 6, 0) // ranges: a later range wins where they overlap
	fmt.Println(r.RowString(0))
	_, err = oryx.ParseSchedule("block:0:0.5", 1, 8, 0)
	fmt.Println(err)
	// Output:
	// L0-6 A7-9 0.3
	// A0-0 L1-5
	// schedule "block:0:0.5": block length must be > 0, got 0
}

// Generate continues a prompt with the joint-state engine: prefill the prompt under the schedule, then one
// decode step per new token (greedy here). With "attention-last:2", a 6-token prompt and 4 new tokens, the
// model processes 6 + 3 tokens (the last sampled token is never fed), 2 + 3 of them in attention: 5/9.
func ExampleEngine_Generate() {
	cfg, _ := oryx.Preset("tiny", oryx.OryxTG)
	m, _ := oryx.New(cfg)
	be, err := oryx.Backend()
	if err != nil {
		panic(err)
	}
	e, err := oryx.NewEngine(be, context.New(), m, 1, 16)
	if err != nil {
		panic(err)
	}
	g, err := e.Generate([][]int32{{72, 101, 108, 108, 111, 32}}, oryx.GenerateOptions{Schedule: "attention-last:2", MaxTokens: 4})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(g.Tokens[0]), "tokens, modes", g.Modes[0], "attention fraction", fmt.Sprintf("%.4f", g.AttentionFraction))
	// Output:
	// 4 tokens, modes [attention attention attention attention] attention fraction 0.5556
}
