package oryx

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/oryx-go/oryx/internal/human"
)

// Parameter roles returned by ParamRole.
const (
	RoleAttention = "attention" // read only by the attention readout (W_QA)
	RoleLinear    = "linear"    // read only by the linear mixer (W_QR and its small gate parameters)
	RoleShared    = "shared"    // read by both mixers (everything else)
)

// Top-level scopes of the model's variables (model.go): these, and "layer_NNN" for layer NNN.
const (
	paramScopeEmbeddings = "embeddings"
	paramScopeFinalNorm  = "final_norm"
	paramScopeLMHead     = "lm_head"
)

var layerScopeRE = regexp.MustCompile(`^layer_[0-9]{3,}$`)

// attentionOnlyNames and linearOnlyNames are the sub-scope (or variable) names of the mixer-specific
// parameters; every other parameter of the model is shared.
var (
	attentionOnlyNames = map[string]bool{"wq_attn": true}
	linearOnlyNames    = map[string]bool{
		"wq_linear": true,
		// Mamba-2: Δ projection and bias, A_log, D.
		"dt_proj": true, "dt_bias": true, "a_log": true, "d_skip": true,
		// GDN: α (decay) and β projections, Δ bias, A_log.
		"decay_proj": true, "beta_proj": true,
	}
)

// ParamReport counts a model's parameters by which mixer reads them.
//
// Counting rule (the project's definition, used for the paper's "≥ 90 % tied" claim):
//   - A parameter is "shared" if both mixers of an Oryx model read it: W_K, W_V, the K/V convs, W_G, the
//     gated output norm, W_O, the MLP, both block RMSNorms, the embeddings, the final norm and the LM head.
//   - "attention only" is W_QA (sub-scope "wq_attn").
//   - "linear only" is W_QR (sub-scope "wq_linear") plus the linear mixer's small parameters: for Mamba-2
//     "dt_proj", "dt_bias", "a_log", "d_skip"; for GDN "decay_proj", "beta_proj", "dt_bias", "a_log".
//   - Total = Shared + AttentionOnly + LinearOnly counts ALL parameters, embeddings included.
//   - Embedding is the vocabulary-sized part: the embedding table plus, when the embeddings are not tied,
//     the LM head. It is included in Shared and in Total (Total − Embedding is the "non-embedding" count).
//   - TiedFraction = Shared / Total, over all parameters, embeddings included.
//
// Single-mixer variants (transformer, mamba2, gdn) have no second mixer to share with: Shared still counts
// the parameters that would be shared (role "shared"), AttentionOnly or LinearOnly the variant's query
// (and gates), but MultiMixer is false, TiedFraction is 0 and TiedFractionString returns "n/a". A report
// is multi-mixer when it has both attention-only and linear-only parameters.
type ParamReport struct {
	Total         int64 `json:"total"`
	Shared        int64 `json:"shared"`
	AttentionOnly int64 `json:"attention_only"`
	LinearOnly    int64 `json:"linear_only"`
	Embedding     int64 `json:"embedding"`

	MultiMixer   bool    `json:"multi_mixer"`   // both mixers present; TiedFraction is meaningful
	TiedFraction float64 `json:"tied_fraction"` // Shared / Total for multi-mixer models, 0 (n/a) otherwise
}

// finish sets MultiMixer and TiedFraction from the counts.
func (r *ParamReport) finish() {
	r.MultiMixer = r.AttentionOnly > 0 && r.LinearOnly > 0
	r.TiedFraction = 0
	if r.MultiMixer && r.Total > 0 {
		r.TiedFraction = float64(r.Shared) / float64(r.Total)
	}
}

// add counts n parameters of the given role; embedding marks vocabulary-sized parameters.
func (r *ParamReport) add(role string, n int64, embedding bool) {
	r.Total += n
	switch role {
	case RoleAttention:
		r.AttentionOnly += n
	case RoleLinear:
		r.LinearOnly += n
	default:
		r.Shared += n
	}
	if embedding {
		r.Embedding += n
	}
}

// NonEmbedding returns Total − Embedding.
func (r ParamReport) NonEmbedding() int64 { return r.Total - r.Embedding }

// TiedFractionString returns the tied fraction as a percentage ("94.6%"), or "n/a" for single-mixer models.
func (r ParamReport) TiedFractionString() string {
	if !r.MultiMixer {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*r.TiedFraction)
}

// String returns one human-readable line (counts as internal/human.Count writes them), e.g.
// "total 129M  shared 122M  attn-only 3.54M  linear-only 3.54M  embedding 38.6M  tied 94.5%".
func (r ParamReport) String() string {
	return fmt.Sprintf("total %s  shared %s  attn-only %s  linear-only %s  embedding %s  tied %s",
		human.Int(r.Total), human.Int(r.Shared), human.Int(r.AttentionOnly), human.Int(r.LinearOnly),
		human.Int(r.Embedding), r.TiedFractionString())
}

// ParamRole classifies a variable by its scope path (GoMLX ScopeAndName, e.g. "/layer_000/wq_attn/weight"):
// RoleAttention if a path element is "wq_attn", RoleLinear if one is a linear-only name ("wq_linear",
// "dt_proj", "dt_bias", "a_log", "d_skip", "decay_proj", "beta_proj"), RoleShared otherwise. Both sub-scope
// names and variable names are matched, so "/layer_000/a_log" and "/layer_000/a_log/weight" agree.
func ParamRole(scopeAndName string) string {
	for _, part := range strings.Split(scopeAndName, context.ScopeSeparator) {
		switch {
		case attentionOnlyNames[part]:
			return RoleAttention
		case linearOnlyNames[part]:
			return RoleLinear
		}
	}
	return RoleShared
}

// IsModelParam tells whether a variable path, relative to the model's root scope, is one of the model's
// parameters: its first element is "embeddings", "final_norm", "lm_head" or "layer_NNN". Optimizer state
// ("/AdamOptimizer/…" moments, "/global_step"), the RNG state ("/#rngState") and other bookkeeping
// variables live elsewhere and are not parameters.
func IsModelParam(relScopeAndName string) bool {
	parts := strings.Split(strings.TrimPrefix(relScopeAndName, context.ScopeSeparator), context.ScopeSeparator)
	if len(parts) < 2 { // a variable directly in the root scope (global_step, #rngState): not a parameter
		return false
	}
	switch parts[0] {
	case paramScopeEmbeddings, paramScopeFinalNorm, paramScopeLMHead:
		return true
	}
	return layerScopeRE.MatchString(parts[0])
}

// ReportFromContext counts the parameters of a model built in ctx: the variables under ctx's current scope
// (normally the root) whose path relative to that scope passes IsModelParam, classified by ParamRole.
//
// How parameters are told apart from other variables: by scope, not by the Trainable flag. Optimizer
// state lives outside the model's scopes (Adam stores its moments under "/AdamOptimizer/<original
// scope>", global_step sits in the root scope), while the Trainable flag is not reliable: GoMLX marks
// every variable materialised from a checkpoint as Trainable, Adam moments included, and a frozen model
// parameter is still a parameter. Variables not yet materialised by a lazy checkpoint loader are not seen
// (GoMLX lists only materialised variables); build the model graph once, or load eagerly, before calling.
func ReportFromContext(ctx *context.Context) ParamReport {
	var r ParamReport
	base := ctx.Scope()
	for v := range ctx.IterVariablesInScope() {
		rel := strings.TrimPrefix(v.ScopeAndName(), base)
		if !strings.HasPrefix(rel, context.ScopeSeparator) {
			rel = context.ScopeSeparator + rel
		}
		if !IsModelParam(rel) {
			continue
		}
		top := strings.SplitN(strings.TrimPrefix(rel, context.ScopeSeparator), context.ScopeSeparator, 2)[0]
		r.add(ParamRole(rel), int64(v.Shape().Size()), top == paramScopeEmbeddings || top == paramScopeLMHead)
	}
	r.finish()
	return r
}

// CountParams counts the parameters analytically from the config alone (for --plan, without building a
// model), with the variables and shapes block.go and model.go create:
//
//	embeddings [V, d]; per layer: attn_norm [d], wk [d,H,dk], wv [d,H,dv], conv_k [H·dk,W] and
//	conv_v [H·dv,W] (W > 0), wq_attn [d,H,dk] (attention), wq_linear [d,H,dk] (linear mixer),
//	Mamba-2: dt_proj [d,H], dt_bias, a_log, d_skip [H]; GDN: decay_proj [d,H], beta_proj [d,H],
//	dt_bias, a_log [H]; wg [d,H,dv], out_norm [dv] ("head") or [H·dv] ("full"), wo [H,dv,d], mlp_norm [d],
//	mlp_gate, mlp_up [d,F], mlp_down [F,d]; final_norm [d]; lm_head [d,V] unless tied.
//
// See ParamReport for the counting rule.
func CountParams(c Config) ParamReport {
	d, h, dk, dv := int64(c.DModel), int64(c.Heads), int64(c.KeyDim), int64(c.ValueDim)
	f, w, vocab := int64(c.MLPHidden), int64(c.ConvWidth), int64(c.Vocab)

	var layer ParamReport
	layer.add(RoleShared, d, false)      // attn_norm
	layer.add(RoleShared, d*h*dk, false) // wk
	layer.add(RoleShared, d*h*dv, false) // wv
	if w > 0 {
		layer.add(RoleShared, h*dk*w+h*dv*w, false) // conv_k, conv_v
	}
	if c.Variant.HasAttention() {
		layer.add(RoleAttention, d*h*dk, false) // wq_attn
	}
	switch c.Variant.LinearMixer() {
	case MixerMamba2:
		layer.add(RoleLinear, d*h*dk, false)  // wq_linear
		layer.add(RoleLinear, d*h+3*h, false) // dt_proj, dt_bias, a_log, d_skip
	case MixerGDN:
		layer.add(RoleLinear, d*h*dk, false)    // wq_linear
		layer.add(RoleLinear, 2*d*h+2*h, false) // decay_proj, beta_proj, dt_bias, a_log
	}
	layer.add(RoleShared, d*h*dv, false) // wg
	if c.OutputNorm == "full" {
		layer.add(RoleShared, h*dv, false)
	} else {
		layer.add(RoleShared, dv, false)
	}
	layer.add(RoleShared, h*dv*d, false)  // wo
	layer.add(RoleShared, d+3*d*f, false) // mlp_norm, mlp_gate, mlp_up, mlp_down

	var r ParamReport
	r.add(RoleShared, vocab*d, true) // embeddings
	n := int64(c.Layers)
	r.Total += n * layer.Total
	r.Shared += n * layer.Shared
	r.AttentionOnly += n * layer.AttentionOnly
	r.LinearOnly += n * layer.LinearOnly
	r.add(RoleShared, d, false) // final_norm
	if !c.TiedEmbeddings {
		r.add(RoleShared, d*vocab, true) // lm_head
	}
	r.finish()
	return r
}

// attentionCorePerQuery is the forward flops of one attention query row against `keys` keys in one
// layer: QKᵀ (2·keys·dk per head) plus PV (2·keys·dv per head). Softmax and masking are not counted.
func attentionCorePerQuery(c Config, keys float64) float64 {
	return 2 * keys * float64(c.Heads) * float64(c.KeyDim+c.ValueDim)
}

// linearCorePerToken is the chunked linear mixer's core flops per token per layer (docs/mixers.md §8), with C =
// Chunk: GDN H·[6C·dk + 4C·dv + 6·dk·dv + (2/3)C²] (block solve by batched doubling), SSD
// 2C·H(dk+dv) + 4·H·dk·dv.
func linearCorePerToken(c Config) float64 {
	h, dk, dv, ch := float64(c.Heads), float64(c.KeyDim), float64(c.ValueDim), float64(c.Chunk)
	switch c.Variant.LinearMixer() {
	case MixerGDN:
		return h * (6*ch*dk + 4*ch*dv + 6*dk*dv + 2.0/3.0*ch*ch)
	case MixerMamba2:
		return 2*ch*h*(dk+dv) + 4*h*dk*dv
	}
	return 0
}

// FLOPsPerToken returns the forward flops per token (multiply-add = 2) of the whole model for the dense
// parallel forward over sequences of seqLen tokens, attentionFraction ∈ [0, 1] of them in attention mode.
//
// Counted, per layer: the projections W_K, W_V, W_G, W_O and the queries actually used; the K/V causal
// conv (2·W per channel); the linear mixer's gate projections (Mamba-2: Δ, 2·d·H; GDN: α and β, 4·d·H);
// the SwiGLU MLP (6·d·F); the attention core in dense masked form, 2·T·H·(dk+dv) per token (every query
// row against all T keys, as the parallel forward computes it; see AttentionCoreFLOPs for the gathered
// form); the linear core per docs/mixers.md §8 times the chunk padding factor ⌈T/C⌉·C/T. Once per token: the
// LM head, 2·d·V. Not counted: embedding lookup, norms, activations, softmax, RoPE and other elementwise
// work.
//
// Queries and mixers used: the Transformer always runs attention, Mamba-2 and GDN always run their linear
// mixer. An Oryx model's parallel forward computes BOTH queries and BOTH cores for every token whenever
// 0 < attentionFraction < 1 (the per-token select comes after), so the count does not depend on the
// fraction in that range. At attentionFraction = 0 (pure recurrent) the attention query and core are
// dropped, at 1 (pure attention) the linear query, gates and core — a forward that skips the unused mixer.
// (A prefill that must leave a recurrent state for decoding still runs the linear core; pass a fraction
// below 1 to count it.) It panics if seqLen ≤ 0 or the fraction is outside [0, 1].
func FLOPsPerToken(c Config, seqLen int, attentionFraction float64) float64 {
	if seqLen <= 0 {
		panic(fmt.Sprintf("oryx.FLOPsPerToken: seqLen must be > 0, got %d", seqLen))
	}
	if !(attentionFraction >= 0 && attentionFraction <= 1) {
		panic(fmt.Sprintf("oryx.FLOPsPerToken: attentionFraction must be in [0, 1], got %g", attentionFraction))
	}
	useAttn := c.Variant.HasAttention()
	useLinear := c.Variant.LinearMixer() != NoLinear
	if c.Variant.IsMultiMixer() {
		useAttn = attentionFraction > 0
		useLinear = attentionFraction < 1
	}
	d, h, dk, dv := float64(c.DModel), float64(c.Heads), float64(c.KeyDim), float64(c.ValueDim)
	t := float64(seqLen)

	layer := 2 * d * h * (dk + dv)                    // W_K, W_V
	layer += 2 * d * h * dv                           // W_G
	layer += 2 * h * dv * d                           // W_O
	layer += 2 * float64(c.ConvWidth) * h * (dk + dv) // conv_k, conv_v
	layer += 6 * d * float64(c.MLPHidden)             // SwiGLU MLP
	if useAttn {
		layer += 2 * d * h * dk              // W_QA
		layer += attentionCorePerQuery(c, t) // dense masked core
	}
	if useLinear {
		layer += 2 * d * h * dk // W_QR
		switch c.Variant.LinearMixer() {
		case MixerMamba2:
			layer += 2 * d * h // Δ
		case MixerGDN:
			layer += 4 * d * h // α, β
		}
		nc := (seqLen + c.Chunk - 1) / c.Chunk
		layer += linearCorePerToken(c) * float64(nc*c.Chunk) / t
	}
	return float64(c.Layers)*layer + 2*d*float64(c.Vocab)
}

// AttentionCoreFLOPs returns the attention-core forward flops (QKᵀ and PV, multiply-add = 2, all layers)
// for ONE sequence of seqLen tokens — a total, not per token.
//
// With attnTokens == nil it is the dense masked form the parallel forward computes: every one of the T
// query rows against all T keys, Layers·T·2·T·H·(dk+dv) (= T × the attention core in FLOPsPerToken).
// Otherwise it is the gathered accounting: attention only at the attention positions attnTokens (0-based),
// what a read at those tokens alone costs (token-by-token decoding pays that: a step whose rows are all in
// linear mode reads no cache; no parallel graph computes it), each such query scored against all T keys as a
// masked read of the whole sequence would: Layers·N·2·T·H·(dk+dv). Variants without attention return 0. It
// panics on a position outside [0, seqLen).
func AttentionCoreFLOPs(c Config, seqLen int, attnTokens []int) float64 {
	if !c.Variant.HasAttention() {
		return 0
	}
	layers := float64(c.Layers)
	if attnTokens == nil {
		t := float64(seqLen)
		return layers * t * attentionCorePerQuery(c, t)
	}
	for _, p := range attnTokens {
		if p < 0 || p >= seqLen {
			panic(fmt.Sprintf("oryx.AttentionCoreFLOPs: attention position %d outside [0, %d)", p, seqLen))
		}
	}
	return layers * float64(len(attnTokens)) * attentionCorePerQuery(c, float64(seqLen))
}
