package layers

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph"
)

// InterChunk selects how a chunked mixer carries its linear state from chunk to chunk. Both give the same
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
)

func (m InterChunk) String() string {
	switch m {
	case Loop:
		return "loop"
	case Scan:
		return "scan"
	case Dense:
		return "dense"
	}
	return fmt.Sprintf("InterChunk(%d)", int(m))
}

// ParseInterChunk parses "loop", "scan" or "dense" (SSD only).
func ParseInterChunk(s string) (InterChunk, error) {
	switch s {
	case "loop":
		return Loop, nil
	case "scan":
		return Scan, nil
	case "dense":
		return Dense, nil
	}
	return Loop, fmt.Errorf("unknown inter-chunk method %q: want \"loop\", \"scan\" or \"dense\" (SSD only)", s)
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
