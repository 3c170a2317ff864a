package layers

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph"
)

// InterChunk selects how a chunked mixer carries its linear state from chunk to chunk. All give the same
// function (tested equal); they differ in depth and flops.
type InterChunk int

const (
	// Loop unrolls S_{n+1} = f_n(S_n) over the N chunks while building the graph: N sequential steps,
	// the fewest flops. The default: on CPUs depth is not the limit.
	Loop InterChunk = iota
	// Scan runs a Hillis–Steele associative (parallel-prefix) scan over the chunk summaries: ⌈log2 N⌉
	// sequential levels of N parallel combines. More flops (GDN: d_k×d_k transition matrices), log depth:
	// the choice for long sequences on GPUs.
	Scan
	// Dense (SSD only) computes every chunk's entering state at once as the lower-triangular [N+1, N] matrix
	// of decays exp(c_n − c_{m+1}) times the stacked chunk contributions (docs/mixers.md §3c, "dense
	// chunk-segsum"): one DotGeneral, no sequential steps, about 2·N·K·V extra flops per chunk. Compilers
	// that fuse elementwise chains (XLA) otherwise recompute the loop's state prefix in every chunk's fusion.
	// The gated delta rule's transitions are matrices, so it has no such form.
	Dense
	// Auto (the builders' default) picks per backend and length, where each was measured fastest: Dense for
	// SSD on a compiling backend (XLA) up to maxDenseChunks chunks, Loop otherwise (the pure-Go backend
	// runs the loop's steps as they are and gains nothing from Dense; the gated delta rule has no Dense).
	Auto
)

// maxDenseChunks is the most chunks for which Auto picks Dense for SSD on a compiling backend: Dense's decay
// matrix is [N+1, N], so its extra flops grow as N² (2·N·K·V per chunk). On XLA CPU the loop's cost grows
// about as fast (its fusions recompute the state prefix), and Dense was faster at every length measured
// (BenchmarkMixer, B 4, H 4, head dims 64, chunk 64, process CPU ms, loaded 2-core VM): forward 97 vs 155 at
// N = 64, 183 vs 470 at N = 128, 494 vs 1,925 at N = 256; forward+backward 300 vs 454 at N = 64, 654 vs 1,299
// at N = 128. Beyond the largest measured N the loop is kept.
const maxDenseChunks = 256

// resolveInterChunk returns the method a mixer over chunks chunks runs for m: m itself, or for Auto the
// per-backend choice (dense: whether the mixer has a Dense form).
func resolveInterChunk(m InterChunk, g *Graph, chunks int, dense bool) InterChunk {
	if m != Auto {
		return m
	}
	if dense && !onPureGo(g) && chunks <= maxDenseChunks {
		return Dense
	}
	return Loop
}

// onPureGo reports whether g runs on GoMLX's pure-Go backend (SimpleGo: String() "go"), which executes the
// graph node by node as built, rather than on a compiling backend (XLA) that fuses and rewrites it.
func onPureGo(g *Graph) bool { return g.Backend().String() == "go" }

func (m InterChunk) String() string {
	switch m {
	case Loop:
		return "loop"
	case Scan:
		return "scan"
	case Dense:
		return "dense"
	case Auto:
		return "auto"
	}
	return fmt.Sprintf("InterChunk(%d)", int(m))
}

// ParseInterChunk parses "auto", "loop", "scan" or "dense" (SSD only).
func ParseInterChunk(s string) (InterChunk, error) {
	switch s {
	case "auto":
		return Auto, nil
	case "loop":
		return Loop, nil
	case "scan":
		return Scan, nil
	case "dense":
		return Dense, nil
	}
	return Loop, fmt.Errorf("unknown inter-chunk method %q: want \"auto\", \"loop\", \"scan\" or \"dense\" (SSD only)", s)
}

// chunkAxis is the chunk axis (N) of every stacked per-chunk summary: [B, H, N, ...].
const chunkAxis = 2

// inclusiveScan computes the inclusive prefix combination e_0 • e_1 • … • e_n for every n along the chunk
// axis, with Hillis–Steele doubling: for d = 1, 2, 4, … < N, e_n ← e_{n−d} • e_n (identity where n < d).
// An element is a tuple of nodes, each [B, H, N, ...]; identity(d) returns the identity tuple with d
// entries along the chunk axis; combine(earlier, later) is the associative operator.
func inclusiveScan(elems []*Node, identity func(d int) []*Node,
	combine func(earlier, later []*Node) []*Node) []*Node {
	n := elems[0].Shape().Dim(chunkAxis)
	for d := 1; d < n; d *= 2 {
		elems = combine(shiftChunks(elems, d, identity), elems)
	}
	return elems
}

// shiftChunks moves every tuple member d chunks later along the chunk axis, filling with identity(d).
func shiftChunks(elems []*Node, d int, identity func(d int) []*Node) []*Node {
	n := elems[0].Shape().Dim(chunkAxis)
	id := identity(d)
	shifted := make([]*Node, len(elems))
	for i, e := range elems {
		if d >= n {
			shifted[i] = SliceAxis(id[i], chunkAxis, AxisRange(0, n))
			continue
		}
		shifted[i] = Concatenate([]*Node{id[i], SliceAxis(e, chunkAxis, AxisRange(0, n-d))}, chunkAxis)
	}
	return shifted
}

// splitChunks returns x[:, :, n] for every n (the chunk axis removed) of a stacked [B, H, N, ...] tensor, by
// recursive halving. The backward pass of a Slice writes a zero-padded tensor of its input's full size, so N
// slices of one tensor would cost O(N · size) (O(T²) overall); halving costs O(log N · size).
func splitChunks(x *Node) []*Node {
	n := x.Shape().Dim(chunkAxis)
	if n == 1 {
		return []*Node{Squeeze(x, chunkAxis)}
	}
	half := n / 2
	return append(splitChunks(SliceAxis(x, chunkAxis, AxisRange(0, half))),
		splitChunks(SliceAxis(x, chunkAxis, AxisRange(half, n)))...)
}

// chunkAt returns x[:, :, n] (the chunk axis removed) of a stacked [B, H, N, ...] summary.
func chunkAt(x *Node, n int) *Node {
	return Squeeze(SliceAxis(x, chunkAxis, AxisRange(n, n+1)), chunkAxis)
}

// stackChunks stacks per-chunk [B, H, ...] nodes into [B, H, N, ...].
func stackChunks(xs []*Node) *Node {
	if len(xs) == 1 {
		return ExpandAxes(xs[0], chunkAxis)
	}
	return Stack(xs, chunkAxis)
}
