// Package selfcheck is `oryx selfcheck`: it says which backend the process computes on, and cross-checks each
// mixer's forms on it (layers: chunked with the unrolled inter-chunk loop, with the associative scan, dense,
// and one token at a time).
package selfcheck

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/layers"
	// The allocator the commands set for XLA (oryx/xlamalloc): `oryx selfcheck`, the one importer of this
	// package, checks the backend as the commands run it, and gets it from here (cmd/oryx is at the module's
	// import limit).
	_ "github.com/oryx-go/oryx/oryx/xlamalloc"
)

// Run runs each mixer three ways on the same random float32 input of seqLen tokens — chunked (chunk tokens a
// chunk) with the unrolled inter-chunk loop, chunked with the associative scan, and one token at a time — and
// fails if they differ by more than the float32 tolerance of the test suite (1e-4 relative). The report goes
// to w.
func Run(w io.Writer, seqLen, chunk int) error {
	backend.SetAnnounce(nil) // said below, on w with the rest of the report
	be, err := backend.Get()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s; compiled in: %v\n", backend.Describe(be), backend.Available())
	fmt.Fprintln(w, "This checks the backend and the mixers; the main job itself is go run ./recipes/tiny-study (make demo).")

	const b, h, d = 2, 2, 16
	t := seqLen
	r := rand.New(rand.NewPCG(1, 1))
	vec := func() *tensors.Tensor {
		x := make([]float32, b*t*h*d)
		for i := range x {
			x[i] = float32(r.NormFloat64() / 4)
		}
		return tensors.FromFlatDataAndDimensions(x, b, t, h, d)
	}
	sca := func(lo, hi float64) *tensors.Tensor {
		x := make([]float32, b*t*h)
		for i := range x {
			x[i] = float32(lo + (hi-lo)*r.Float64())
		}
		return tensors.FromFlatDataAndDimensions(x, b, t, h)
	}
	inputs := []any{vec(), vec(), vec(), sca(-0.3, -0.01), sca(0.1, 0.9)}

	tokens := func(x *Node, i int) *Node { return Squeeze(SliceAxis(x, 1, AxisRange(i, i+1)), 1) }
	forms := map[string]map[string]func(x []*Node) *Node{
		"ssd": {
			"loop": func(x []*Node) *Node {
				o, _ := layers.NewSSD(x[0], x[1], x[2], x[3]).Chunk(chunk).InterChunk(layers.Loop).Done()
				return o
			},
			"scan": func(x []*Node) *Node {
				o, _ := layers.NewSSD(x[0], x[1], x[2], x[3]).Chunk(chunk).InterChunk(layers.Scan).Done()
				return o
			},
			"dense": func(x []*Node) *Node {
				o, _ := layers.NewSSD(x[0], x[1], x[2], x[3]).Chunk(chunk).InterChunk(layers.Dense).Done()
				return o
			},
			"step": func(x []*Node) *Node {
				var state *Node
				outs := make([]*Node, t)
				for i := range t {
					outs[i], state = layers.SSDStep(tokens(x[0], i), tokens(x[1], i), tokens(x[2], i), tokens(x[3], i), state)
				}
				return Stack(outs, 1)
			},
		},
		"gdn": {
			"loop": func(x []*Node) *Node {
				o, _ := layers.NewGatedDeltaRule(x[0], layers.NormalizeL2(x[1], 1e-6), x[2], x[3], x[4]).Chunk(chunk).
					InterChunk(layers.Loop).Done()
				return o
			},
			"scan": func(x []*Node) *Node {
				o, _ := layers.NewGatedDeltaRule(x[0], layers.NormalizeL2(x[1], 1e-6), x[2], x[3], x[4]).Chunk(chunk).
					InterChunk(layers.Scan).Done()
				return o
			},
			"step": func(x []*Node) *Node {
				var state *Node
				k := layers.NormalizeL2(x[1], 1e-6)
				outs := make([]*Node, t)
				for i := range t {
					outs[i], state = layers.GatedDeltaRuleStep(tokens(x[0], i), tokens(k, i), tokens(x[2], i),
						tokens(x[3], i), tokens(x[4], i), state, layers.DefaultScale(d))
				}
				return Stack(outs, 1)
			},
		},
	}
	for _, mixer := range []string{"ssd", "gdn"} {
		ref, elapsed, err := run(be, forms[mixer]["loop"], inputs)
		if err != nil {
			return fmt.Errorf("%s loop: %w", mixer, err)
		}
		fmt.Fprintf(w, "%-4s loop  %8.1f ms\n", mixer, elapsed.Seconds()*1e3)
		for _, form := range []string{"scan", "dense", "step"} {
			if forms[mixer][form] == nil {
				continue // the gated delta rule has no dense form
			}
			got, elapsed, err := run(be, forms[mixer][form], inputs)
			if err != nil {
				return fmt.Errorf("%s %s: %w", mixer, form, err)
			}
			rel := relDiff(got, ref)
			fmt.Fprintf(w, "%-4s %-5s %8.1f ms   max rel. diff vs loop %.2g\n", mixer, form, elapsed.Seconds()*1e3, rel)
			if !(rel <= 1e-4) {
				return fmt.Errorf("%s: %s form differs from the loop form by %.3g (> 1e-4)", mixer, form, rel)
			}
		}
	}
	fmt.Fprintln(w, "selfcheck: OK")
	return nil
}

func run(be backends.Backend, fn func(x []*Node) *Node, inputs []any) ([]float32, time.Duration, error) {
	exec, err := NewExec(be, fn)
	if err != nil {
		return nil, 0, err
	}
	defer exec.Finalize()
	start := time.Now()
	out, err := exec.Exec(inputs...)
	if err != nil {
		return nil, 0, err
	}
	return tensors.MustCopyFlatData[float32](out[0]), time.Since(start), nil
}

func relDiff(got, want []float32) float64 {
	var diff, scale float64
	for i := range want {
		diff = max(diff, math.Abs(float64(got[i]-want[i])))
		scale = max(scale, math.Abs(float64(want[i])))
	}
	return diff / scale
}
