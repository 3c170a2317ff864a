package datasets_test

import (
	"fmt"
	"io"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
)

// A Stream tokenizes documents, appends EOS (256 for the byte tokenizer) to each, packs them end to end and
// cuts windows of SeqLen+1 tokens with a stride of SeqLen, so that every token is predicted once: a window's
// last target is the next window's first input. ShuffleBuffer 1 keeps source order.
func ExampleNewStream() {
	docs := datasets.NewSliceSource("toy", []string{"abc", "de", "fghij"})
	s, err := datasets.NewStream(datasets.StreamConfig{SeqLen: 4, ShuffleBuffer: 1, Log: io.Discard},
		docs, tokenizers.NewByteTokenizer())
	if err != nil {
		panic(err)
	}
	batch, err := s.Batch(2)
	if err != nil {
		panic(err)
	}
	for _, seq := range batch {
		in, tgt := datasets.InputsTargets(seq)
		fmt.Println(seq, in, tgt)
	}
	// Output:
	// [97 98 99 256 100] [97 98 99 256] [98 99 256 100]
	// [100 101 256 102 103] [100 101 256 102] [101 256 102 103]
}
