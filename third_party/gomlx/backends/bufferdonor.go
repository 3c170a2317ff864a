package backends

// BufferDonorBuilder is an optional interface of a Builder whose compiled programs can write their outputs into
// the buffers of donated inputs (in-place updates).
//
// Donating an input buffer at execution time (Executable.Execute's donate argument) only releases it; for the
// program to reuse its memory, the compiler must know beforehand which inputs will be donated. Without that, a
// program that updates a large state (a KV cache, model weights) allocates and writes a whole new output buffer
// on every execution, however small the update.
type BufferDonorBuilder interface {
	// MarkBufferDonor declares that the buffer of the given parameter (an Op returned by Builder.Parameter) will
	// be donated when the program is executed, so that the compiler may alias it to an output of the same shape
	// and update it in place.
	//
	// It is a hint: executing the program without donating that buffer must still give the same results (the
	// backend then copies the input first).
	MarkBufferDonor(parameter Op) error
}
