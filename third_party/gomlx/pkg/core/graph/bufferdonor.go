package graph

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/internal/exceptions"
	"github.com/pkg/errors"
)

// MarkBufferDonor declares that the buffer fed to the parameter node will be donated when the compiled graph is
// executed (see DonateTensorBuffer), so that backends that support it (backends.BufferDonorBuilder: XLA) may write
// an output of the same shape into it: a state updated by the graph (a KV cache, model weights) is then updated
// in place instead of being copied into a new buffer on every execution. Backends without support ignore it.
//
// It is a hint: executing the graph without donating the buffer still gives the same results.
//
// Exec marks the parameters whose buffers are donated in the call that builds the graph, and context.Exec the
// variables the graph updates, so most users need not call it.
//
// It must be called while the graph is being built.
func (g *Graph) MarkBufferDonor(parameter *Node) {
	g.AssertBuilding()
	if parameter == nil || parameter.Graph() != g || parameter.Type() != NodeTypeParameter {
		exceptions.Panicf("Graph(%q).MarkBufferDonor: node %s is not a parameter of this graph", g.name, parameter)
	}
	donorBuilder, ok := g.builder.(backends.BufferDonorBuilder)
	if !ok {
		return
	}
	if err := donorBuilder.MarkBufferDonor(parameter.outputOps[0]); err != nil {
		panic(errors.WithMessagef(err, "Graph(%q).MarkBufferDonor(%s)", g.name, parameter))
	}
}
