package oryx

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

func shapeOf(dtype dtypes.DType, dims ...int) shapes.Shape { return shapes.Make(dtype, dims...) }

func shapeString(x *Node) string {
	if x == nil {
		return "nil"
	}
	return fmt.Sprintf("%s%v", x.DType(), x.Shape().Dimensions)
}

// EmbeddingInitStd is the standard deviation of the embedding initialisation [choice: 0.02, the
// initializer_range of GPT-2, GPT-NeoX, Mamba and flash-linear-attention models]. With tied embeddings the
// LM head reads the same table, so N(0, 1) would give initial logits of standard deviation √d (a loss of
// tens of nats); 0.02 gives a near-uniform initial prediction (loss ≈ ln V).
const EmbeddingInitStd = 0.02
