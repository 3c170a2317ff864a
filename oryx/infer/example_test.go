package infer_test

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
)

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
	e, err := infer.NewEngine(be, context.New(), m, 1, 16)
	if err != nil {
		panic(err)
	}
	g, err := e.Generate([][]int32{{72, 101, 108, 108, 111, 32}}, infer.GenerateOptions{Schedule: "attention-last:2", MaxTokens: 4})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(g.Tokens[0]), "tokens, modes", g.Modes[0], "attention fraction", fmt.Sprintf("%.4f", g.AttentionFraction))
	// Output:
	// 4 tokens, modes [attention attention attention attention] attention fraction 0.5556
}
