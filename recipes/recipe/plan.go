package recipe

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// Plan is what --plan prints: the run's size, cost and whether it fits this machine, before anything is
// allocated.
type Plan struct {
	Recipe         string            `json:"recipe"`
	Variant        string            `json:"variant"`
	Preset         string            `json:"preset"`
	Model          oryx.Config       `json:"model"`
	Params         int64             `json:"params"`
	NonEmbedding   int64             `json:"non_embedding_params"`
	TiedFraction   string            `json:"tied_fraction"`
	Train          train.TrainConfig `json:"train"`
	Tokens         int64             `json:"tokens"`
	TokensPerStep  int64             `json:"tokens_per_step"`
	AccumSteps     int               `json:"grad_accumulation_steps"`
	FLOPsPerToken  float64           `json:"train_flops_per_token"` // forward + backward (3× the forward)
	TotalFLOPs     float64           `json:"total_flops"`
	MemoryBytes    int64             `json:"memory_estimate_bytes"` // expected peak on this backend (see pureGoMemory)
	MemoryModel    int64             `json:"memory_model_bytes"`    // weights, optimizer, gradients, one micro-batch's activations
	MemoryDetail   MemoryPlan        `json:"memory_detail"`
	Backend        string            `json:"backend"`
	Devices        int               `json:"devices"`
	ProbeGFLOPs    float64           `json:"probe_matmul_gflops"`       // measured now on this backend
	AssumedMFU     float64           `json:"assumed_matmul_efficiency"` // fraction of the probe rate training reaches
	EstimatedHours float64           `json:"estimated_hours"`
	HostMemory     int64             `json:"host_memory_bytes,omitempty"`
	Fits           bool              `json:"fits"`
	Advice         string            `json:"advice,omitempty"`
	// Hardware sizes the run for --hardware (default cpu-here) and --devices: memory per device, step and
	// total time at a stated MFU, and whether it fits.
	Hardware *HardwarePlan `json:"hardware,omitempty"`
}

// MemoryPlan breaks the memory estimate down (bytes).
type MemoryPlan struct {
	Weights     int64 `json:"weights_f32"`
	Optimizer   int64 `json:"adam_moments_f32"`
	Gradients   int64 `json:"gradients_f32"`
	Accumulator int64 `json:"grad_accumulator_f32"`
	Activations int64 `json:"activations_per_micro_batch"`
}

// activationElemsPerToken estimates the elements a forward keeps for the backward pass, per token of a
// micro-batch [choice: a count of the tensors oryx/block.go materialises; see docs/history.md §8.4 for how it
// compares with the measured peak]: per layer the norm inputs/outputs and residuals (6d), keys, both queries and the
// linear gates (≈ 3·H·dk), values, both readouts, the gate and the gated output (5·H·dv), the SwiGLU hidden
// activations (4F), the dense attention logits and probabilities (2·H·T) and the linear mixer's per-chunk
// matrices and states (3·H·C + H·dk·dv/C); plus the logits, their exponentials and gradient (3V).
func activationElemsPerToken(c oryx.Config, seqLen int) float64 {
	d, h, dk, dv := float64(c.DModel), float64(c.Heads), float64(c.KeyDim), float64(c.ValueDim)
	layer := 6*d + 4*float64(c.MLPHidden)
	if c.Variant.HasAttention() {
		layer += h*dk + 2*h*float64(seqLen)
	}
	if c.Variant.LinearMixer() != oryx.NoLinear {
		ch := float64(c.Chunk)
		layer += 2*h*dk + 3*h*ch + h*dk*dv/ch
	}
	layer += 2*h*dk + 5*h*dv
	return float64(c.Layers)*layer + 3*float64(c.Vocab)
}

// pureGoMemory turns the memory model into the expected peak RSS on the pure-Go backend, which materialises
// every intermediate (no fusion), keeps per-shape buffer pools and adds the Go runtime: peak ≈ 2.63 × model
// + 223 MiB, a line through two measured training steps (docs/history.md §8.4: tiny 16 × 256 tokens, model 97 MiB,
// peak 478 MiB; 130m 1 × 512 tokens, model 2.89 GiB, peak 7.83 GiB). Other backends get the model as is
// (XLA fuses and reuses buffers; not calibrated).
func pureGoMemory(model int64) int64 { return saturate(2.63*float64(model) + 223<<20) }

// MakePlan computes the plan of recipe r with model c and training tc, resolved (train.TrainConfig.Resolve or
// train.Run.Check), on backend be (probing its matmul speed for about a second).
func MakePlan(name string, c oryx.Config, tc train.TrainConfig, be backends.Backend, devices int) Plan {
	rep := oryx.CountParams(c)
	p := Plan{
		Recipe: name, Variant: string(c.Variant), Model: c, Params: rep.Total, NonEmbedding: rep.NonEmbedding(),
		TiedFraction: rep.TiedFractionString(), Train: tc, TokensPerStep: tc.TokensPerStep(),
		Tokens: int64(tc.Steps) * tc.TokensPerStep(), AccumSteps: tc.Batch / tc.MicroBatch,
		FLOPsPerToken: train.FLOPsPerToken(c, tc), Backend: be.Name(), Devices: max(devices, 1),
	}
	for _, n := range oryx.PresetNames {
		if cc, err := oryx.Preset(n, c.Variant); err == nil && cc.DModel == c.DModel && cc.Layers == c.Layers {
			p.Preset = n
		}
	}
	p.TotalFLOPs = p.FLOPsPerToken * float64(p.Tokens)
	elem := int64(4)
	if tc.Precision == "bf16" {
		elem = 2
	}
	// Estimates saturate at MaxInt64 instead of wrapping negative (a negative estimate would "fit").
	m := MemoryPlan{Weights: 4 * rep.Total, Optimizer: 8 * rep.Total, Gradients: 4 * rep.Total,
		Activations: saturate(activationElemsPerToken(c, tc.SeqLen) * float64(tc.MicroBatch) * float64(tc.SeqLen) * float64(elem))}
	if tc.MicroBatch < tc.Batch {
		m.Accumulator = 4 * rep.Total
	}
	p.MemoryDetail = m
	p.MemoryModel = saturate(float64(m.Weights) + float64(m.Optimizer) + float64(m.Gradients) + float64(m.Accumulator) +
		float64(m.Activations))
	p.MemoryBytes = p.MemoryModel
	if backend.IsPureGo(be) {
		p.MemoryBytes = pureGoMemory(p.MemoryModel)
	}
	p.ProbeGFLOPs = ProbeMatmul(be)
	p.AssumedMFU = 0.5
	if p.ProbeGFLOPs > 0 {
		p.EstimatedHours = p.TotalFLOPs / (p.ProbeGFLOPs * 1e9 * p.AssumedMFU * float64(p.Devices)) / 3600
	}
	p.Fits = true
	var why []string
	if backend.OnHost(be) {
		p.HostMemory = guard.HostMemory()
		if p.HostMemory > 0 && float64(p.MemoryBytes) > 0.9*float64(p.HostMemory) {
			why = append(why, fmt.Sprintf("needs ~%s of memory, this machine has %s", humanize.IBytes(uint64(p.MemoryBytes)), humanize.IBytes(uint64(p.HostMemory))))
		}
	}
	if p.EstimatedHours > 24*30 {
		why = append(why, fmt.Sprintf("would take ~%.0f days on %s", p.EstimatedHours/24, be.Name()))
	}
	if len(why) > 0 {
		p.Fits = false
		p.Advice = fmt.Sprintf("%s does not fit this machine (%s). Run it on GPUs through XLA: build with "+
			"`go build -tags xla ./recipes/%s` and run with GOMLX_BACKEND=xla:/abs/path/to/pjrt_c_api_cuda_plugin.so "+
			"(see docs/backends.md); --micro-batch lowers activation memory; --force starts anyway.",
			name, strings.Join(why, "; "), name)
	}
	return p
}

// ProbeMatmul measures the backend's float32 matmul rate in GFLOP/s: a [n,n]×[n,n] product (n = 512 on the
// pure-Go backend, 4096 elsewhere), best of a few runs after a warm-up. 0 if the probe fails.
func ProbeMatmul(be backends.Backend) (gflops float64) {
	defer func() {
		if recover() != nil {
			gflops = 0
		}
	}()
	n := 4096
	if backend.IsPureGo(be) {
		n = 512
	}
	exec, err := NewExec(be, func(g *Graph) *Node {
		a := Iota(g, shapes.Make(dtypes.Float32, n, n), 1)
		a = MulScalar(a, 1.0/float64(n))
		return ReduceAllSum(Dot(a, a))
	})
	if err != nil {
		return 0
	}
	defer exec.Finalize()
	best := math.Inf(1)
	for i := 0; i < 4; i++ {
		start := time.Now()
		out, err := exec.Exec()
		if err != nil {
			return 0
		}
		_ = out[0].Value()
		if i > 0 {
			best = math.Min(best, time.Since(start).Seconds())
		}
	}
	return 2 * float64(n) * float64(n) * float64(n) / best / 1e9
}

// saturate converts a non-negative float estimate to int64, saturating at MaxInt64.
func saturate(f float64) int64 {
	if !(f < math.MaxInt64) {
		return math.MaxInt64
	}
	return int64(f)
}
