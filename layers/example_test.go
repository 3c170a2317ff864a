package layers_test

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/oryx-go/oryx/layers"
)

// The gated delta rule with no decay (g = 0) and full write strength (β = 1) is an associative memory
// that overwrites: writing value v under unit key k replaces what k held. Three tokens write (e1 → [1 2]),
// (e2 → [3 4]), then (e1 → [5 6]); the queries read e1, e1, e2. The third write overwrote e1's value and
// left e2's: the final state holds e1 → [5 6] and e2 → [3 4].
func ExampleGatedDeltaRule() {
	be, err := backends.NewWithConfig("go") // the pure-Go backend
	if err != nil {
		panic(err)
	}
	q := [][][][]float32{{{{1, 0}}, {{1, 0}}, {{0, 1}}}} // [B=1, T=3, H=1, K=2]
	k := [][][][]float32{{{{1, 0}}, {{0, 1}}, {{1, 0}}}}
	v := [][][][]float32{{{{1, 2}}, {{3, 4}}, {{5, 6}}}} // [B, T, H, V=2]
	g := [][][]float32{{{0}, {0}, {0}}}                  // log decay, [B, T, H]
	beta := [][][]float32{{{1}, {1}, {1}}}
	exec, err := graph.NewExec(be, func(q, k, v, g, beta *graph.Node) (*graph.Node, *graph.Node) {
		return layers.GatedDeltaRule(q, k, v, g, beta, nil, 1.0, 2) // scale 1, chunks of 2 tokens
	})
	if err != nil {
		panic(err)
	}
	outs, err := exec.Exec(q, k, v, g, beta)
	if err != nil {
		panic(err)
	}
	fmt.Println("out:", outs[0].Value())   // [B, T, H, V]
	fmt.Println("state:", outs[1].Value()) // [B, H, K, V]
	// Output:
	// out: [[[[1 2]] [[1 2]] [[3 4]]]]
	// state: [[[[5 6] [3 4]]]]
}
