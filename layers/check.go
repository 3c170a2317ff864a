package layers

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
)

// argError panics with an error naming the function and the offending argument(s). GoMLX turns panics
// raised while building a graph into errors returned by Exec.
func argError(fn, format string, args ...any) {
	panic(fmt.Errorf("%s: %s", fn, fmt.Sprintf(format, args...)))
}

// arg is a named graph input, for validation messages.
type arg struct {
	name string
	node *Node
}

func (a arg) String() string {
	if a.node == nil {
		return a.name + "=nil"
	}
	return fmt.Sprintf("%s%v(%s)", a.name, a.node.Shape().Dimensions, a.node.DType())
}

// checker accumulates shape checks for one function call.
type checker struct{ fn string }

func (c checker) notNil(args ...arg) {
	for _, a := range args {
		if a.node == nil {
			argError(c.fn, "argument %s must not be nil", a.name)
		}
	}
}

func (c checker) rank(a arg, rank int, layout string) {
	if a.node.Rank() != rank {
		argError(c.fn, "%s must have rank %d (%s), got %s", a.name, rank, layout, a)
	}
}

// float checks that every argument has the same float dtype as the first.
func (c checker) float(args ...arg) dtypes.DType {
	dt := args[0].node.DType()
	if !dt.IsFloat() {
		argError(c.fn, "%s must be a float tensor, got %s", args[0].name, args[0])
	}
	for _, a := range args[1:] {
		if a.node != nil && a.node.DType() != dt {
			argError(c.fn, "%s must have the dtype of %s, got %s and %s", a.name, args[0].name, a, args[0])
		}
	}
	return dt
}

// dims checks a's dimensions against want, where a negative entry means "any".
func (c checker) dims(a arg, layout string, want ...int) {
	got := a.node.Shape().Dimensions
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = want[i] < 0 || want[i] == got[i]
	}
	if !ok {
		w := make([]any, len(want))
		for i, d := range want {
			if d < 0 {
				w[i] = "*"
			} else {
				w[i] = d
			}
		}
		argError(c.fn, "%s must have shape %s = %v, got %s", a.name, layout, w, a)
	}
}

func (c checker) positive(name string, v int) {
	if v <= 0 {
		argError(c.fn, "%s must be > 0, got %d", name, v)
	}
}

// mixerDims validates the common [B, T, H, K] q, k and [B, T, H, V] v inputs of a mixer and returns
// B, T, H, K, V.
func (c checker) mixerDims(q, k, v *Node) (b, t, h, dk, dv int) {
	qa, ka, va := arg{"q", q}, arg{"k", k}, arg{"v", v}
	c.notNil(qa, ka, va)
	c.rank(qa, 4, "[B, T, H, K]")
	c.rank(ka, 4, "[B, T, H, K]")
	c.rank(va, 4, "[B, T, H, V]")
	c.float(qa, ka, va)
	d := q.Shape().Dimensions
	b, t, h, dk = d[0], d[1], d[2], d[3]
	c.dims(ka, "[B, T, H, K] like q", b, t, h, dk)
	dv = v.Shape().Dimensions[3]
	c.dims(va, "[B, T, H, V] with B, T, H of q", b, t, h, -1)
	return
}

func (c checker) integer(a arg) {
	if !a.node.DType().IsInt() {
		argError(c.fn, "%s must be an integer tensor, got %s", a.name, a)
	}
}

// stepDims validates one-token mixer inputs q, k: [B, H, K], v: [B, H, V], a per-token scalar [B, H] and an
// optional state [B, H, K, V], and returns B, H, K, V.
func (c checker) stepDims(q, k, v, logDecay, state *Node) (b, h, dk, dv int) {
	qa, ka, va, ga, sa := arg{"q", q}, arg{"k", k}, arg{"v", v}, arg{"logDecay", logDecay}, arg{"state", state}
	c.notNil(qa, ka, va, ga)
	c.rank(qa, 3, "[B, H, K]")
	c.float(qa, ka, va, ga, sa)
	d := q.Shape().Dimensions
	b, h, dk = d[0], d[1], d[2]
	c.dims(ka, "[B, H, K] like q", b, h, dk)
	c.rank(va, 3, "[B, H, V]")
	dv = v.Shape().Dim(2)
	c.dims(va, "[B, H, V] with B, H of q", b, h, dv)
	c.dims(ga, "[B, H]", b, h)
	if state != nil {
		c.dims(sa, "[B, H, K, V]", b, h, dk, dv)
	}
	return
}
