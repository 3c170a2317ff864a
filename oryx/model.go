package oryx

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/layers"
)

// Model is a multi-mixer language model (or one of its single-mixer baselines): token embeddings, Layers
// blocks (block.go), a final RMSNorm and the LM head (the transposed embeddings when tied). The weights live
// in a GoMLX context; Model itself holds only the architecture and the compute dtype.
type Model struct {
	Config Config
	DType  dtypes.DType // dtype of the stored weights: float32 by default; float64 for exactness tests

	// ComputeDType, when set and different from DType, is the dtype the graphs compute in: every weight is
	// read from its DType variable (the master copy the optimizer updates) and converted, e.g. bf16 compute
	// with float32 master weights on XLA. Zero means DType.
	ComputeDType dtypes.DType

	// AttentionMemBytes, when > 0, bounds the attention logits of the parallel forward (Logits, Hidden,
	// Prefill): causal attention runs over query blocks whose [B, H, block, T] intermediates fit it
	// (layers.CausalAttentionQueryBlocks; same values), for long-context evaluation. 0 = the dense T×T form.
	// Copy the Model to set it for one use: the weights live in the context, not here.
	AttentionMemBytes int64
}

// computeDType is the dtype graphs compute in (ComputeDType, or DType when unset).
func (m *Model) computeDType() dtypes.DType {
	if m.ComputeDType == dtypes.InvalidDType {
		return m.DType
	}
	return m.ComputeDType
}

// New validates cfg and returns a float32 model.
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Model{Config: cfg, DType: dtypes.Float32}, nil
}

// root is the model's top scope. Variables are created on first use and reused afterwards (unchecked), so
// the parallel forward, Prefill and Step graphs share one set of weights.
func (m *Model) root(ctx *context.Context, g *Graph) scope {
	return scope{ctx.Checked(false), g, m.computeDType(), m.DType}
}

func (m *Model) layerScope(s scope, i int) scope { return s.in(fmt.Sprintf("layer_%03d", i)) }

// embed returns the embeddings [B, T, D] of tokens [B, T] (or [B, D] of [B]) and the table [Vocab, D].
func (m *Model) embed(s scope, tokens *Node) (x, table *Node) {
	table = m.embeddingTable(s)
	return Gather(table, ExpandAxes(tokens, -1)), table
}

// embeddingTable is the token embedding table [Vocab, D] in the compute dtype.
func (m *Model) embeddingTable(s scope) *Node {
	table := randomParam(s.in("embeddings").ctx, "embeddings", m.DType, normalDraw(EmbeddingInitStd),
		m.Config.Vocab, m.Config.DModel).ValueGraph(s.g)
	return s.compute(table)
}

// headWeight is the LM head matrix [Vocab, D]: the embedding table when tied, else lm_head.
func (m *Model) headWeight(s scope, table *Node) *Node {
	if !m.Config.TiedEmbeddings {
		return s.proj("lm_head", m.Config.DModel, m.Config.Vocab, m.Config.DModel)
	}
	return table
}

// finalNorm is the RMSNorm before the LM head: the last hidden states [..., D] → the head's input.
func (m *Model) finalNorm(s scope, h *Node) *Node {
	return layers.RMSNorm(h, s.ones("final_norm", m.Config.DModel), m.Config.NormEps)
}

// head maps the final hidden states [..., D] to logits [..., Vocab].
func (m *Model) head(s scope, h, table *Node) *Node {
	h = m.finalNorm(s, h)
	w := m.headWeight(s, table) // [Vocab, D]
	if h.Rank() == 2 {
		if n := vocabSplit(m.Config.Vocab); n > 1 {
			return headSplit(h, w, n)
		}
	}
	return DotGeneral(h, []int{h.Rank() - 1}, nil, w, []int{1}, nil)
}

// smallMatmulCrosses is the largest output size per batch element (rows × columns) for which the pure-Go
// backend's matmul uses its direct kernel; above it, it first copies both operands into blocks, which for a
// few rows against the whole [Vocab, D] head costs far more than the product.
const smallMatmulCrosses = 16 * 1024

// vocabSplit returns into how many equal parts to split the vocabulary so that one row against a part stays
// under smallMatmulCrosses (1 if no split is needed or the vocabulary has no suitable divisor).
func vocabSplit(vocab int) int {
	if vocab <= smallMatmulCrosses {
		return 1
	}
	for n := (vocab + smallMatmulCrosses - 1) / smallMatmulCrosses; n <= vocab/64; n++ {
		if vocab%n == 0 {
			return n
		}
	}
	return 1
}

// headSplit computes h [B, D] · wᵀ for w [Vocab, D] as n batched products over vocabulary parts (the decode
// form: B is small). Same values as the single product; no weight copy on the pure-Go backend.
func headSplit(h, w *Node, n int) *Node {
	b, d := h.Shape().Dim(0), h.Shape().Dim(1)
	v := w.Shape().Dim(0)
	parts := Reshape(w, n, v/n, d)                                          // [n, V/n, D]
	hb := BroadcastToDims(Reshape(h, 1, b, d), n, b, d)                     // [n, B, D]
	logits := DotGeneral(hb, []int{2}, []int{0}, parts, []int{2}, []int{0}) // [n, B, V/n]
	return Reshape(TransposeAllAxes(logits, 1, 0, 2), b, v)
}

// ModesOrNil drops the modes input of single-mixer variants (they have one readout): the modes to pass to Logits,
// Hidden and Continue (Span.Modes) from a graph that takes them for every variant.
func (m *Model) ModesOrNil(modes *Node) *Node {
	if m.Config.Variant.IsMultiMixer() {
		return modes
	}
	return nil
}

// checkTokens validates tokens [B, T] (int) and modes ([B, T] int32, or nil for single-mixer variants).
func (m *Model) checkTokens(fn string, tokens, modes *Node) {
	checkTokenShape(fn, tokens)
	if m.Config.Variant.IsMultiMixer() {
		if modes == nil {
			panic(fmt.Errorf("%s: variant %s needs modes [B, T] (1 = attention, 0 = linear)", fn, m.Config.Variant))
		}
	}
	if modes != nil && (!modes.Shape().Equal(shapeInt(tokens.Shape().Dimensions...))) {
		panic(fmt.Errorf("%s: modes must be int32 %v like tokens, got %v", fn, tokens.Shape().Dimensions, shapeString(modes)))
	}
}

// checkTokenShape validates tokens [B, T] (int).
func checkTokenShape(fn string, tokens *Node) {
	if tokens == nil || tokens.Rank() != 2 || !tokens.DType().IsInt() {
		panic(fmt.Errorf("%s: tokens must be an integer [B, T] tensor, got %v", fn, shapeString(tokens)))
	}
}

// Logits is the parallel forward: tokens [B, T] int32 and modes [B, T] int32 (1 = attention, 0 = linear; nil
// for single-mixer variants) → logits [B, T, Vocab]. Both readouts are computed for every token and one is
// selected per token, so one compiled graph serves every schedule. It is Continue from the empty memory.
func (m *Model) Logits(ctx *context.Context, tokens, modes *Node) *Node {
	m.checkTokens("Model.Logits", tokens, modes)
	s := m.root(ctx, tokens.Graph())
	h, table := m.parallel(s, tokens, spanInputs{modes: modes})
	return m.head(s, h, table)
}

// LogitsInMode is Logits with every token in mode: only that readout is built, so a multi-mixer model costs
// what its single mixer does (training with p = 1 or p = 0 — the study's controls — where the other readout
// would be computed and discarded). Equal to Logits with uniform modes: the discarded readout reaches neither
// the loss nor, therefore, any gradient (its own query weights get zero gradients either way). For a
// single-mixer variant mode must be its own readout's.
func (m *Model) LogitsInMode(ctx *context.Context, tokens *Node, mode Mode) *Node {
	if mode != Attention && mode != Linear {
		panic(fmt.Errorf("Model.LogitsInMode: mode %d is neither Attention (1) nor Linear (0)", mode))
	}
	in := spanInputs{only: &mode}
	if !in.reads(m.Config.Variant, mode) {
		panic(fmt.Errorf("Model.LogitsInMode: variant %s has no %s readout", m.Config.Variant, mode))
	}
	checkTokenShape("Model.LogitsInMode", tokens) // before tokens.Graph()
	s := m.root(ctx, tokens.Graph())
	h, table := m.parallel(s, tokens, in)
	return m.head(s, h, table)
}

// Hidden is the parallel forward up to the LM head: tokens and modes as in Logits → the final hidden states
// after the final norm [B, T, D] (compute dtype), so that Logits = Hidden · HeadWeightᵀ. Scoring reads the
// vocabulary projection from here in bounded chunks (Scorer) instead of materialising [B, T, Vocab].
func (m *Model) Hidden(ctx *context.Context, tokens, modes *Node) *Node {
	m.checkTokens("Model.Hidden", tokens, modes)
	s := m.root(ctx, tokens.Graph())
	h, _ := m.parallel(s, tokens, spanInputs{modes: modes})
	return m.finalNorm(s, h)
}

// HeadWeight is the LM head matrix [Vocab, D] in the compute dtype (the embedding table when tied).
func (m *Model) HeadWeight(ctx *context.Context, g *Graph) *Node {
	s := m.root(ctx, g)
	var table *Node
	if m.Config.TiedEmbeddings {
		table = m.embeddingTable(s)
	}
	return m.headWeight(s, table)
}

// parallel runs the layers over tokens [B, T] (checked) from the empty memory, at positions 0..T-1, and
// returns the final hidden states [B, T, D] and the embedding table.
func (m *Model) parallel(s scope, tokens *Node, in spanInputs) (h, table *Node) {
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	in.positions, in.empty = Iota(s.g, shapeInt(b, t), 1), true
	h, table, _ = m.forward(s, tokens, nil, in)
	return h, table
}
