package xla

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/pkg/errors"
)

var _ backends.BufferDonorBuilder = (*Builder)(nil)

// MarkBufferDonor implements backends.BufferDonorBuilder: it sets the StableHLO argument attribute
// `jax.buffer_donor = true` on the parameter (as JAX does for donate_argnums), which lets XLA alias the
// parameter's buffer to an output of the same shape (the compiled module's input_output_alias). PJRT then
// writes that output into the donated buffer; if the buffer is not donated at execution, PJRT copies it first.
func (b *Builder) MarkBufferDonor(parameter backends.Op) error {
	nodes, err := b.verifyAndCastValues("MarkBufferDonor", parameter)
	if err != nil {
		return err
	}
	value := nodes[0].value
	if !slices.Contains(b.fn.Inputs, value) {
		return errors.Errorf("backend %q: MarkBufferDonor given an Op that is not a parameter of %q", BackendName, b.name)
	}
	if value.Attributes == nil {
		value.Attributes = make(map[string]any, 1)
	}
	value.Attributes["jax.buffer_donor"] = true
	return nil
}
