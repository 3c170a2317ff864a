package recipe

import (
	"fmt"
	"math"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/oryx-go/oryx/internal/human"
)

// Hardware is a target that --plan --hardware NAME sizes a run for.
type Hardware struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	MemoryBytes int64   `json:"memory_per_device_bytes"` // 0 for cpu-here: the host's MemTotal, read at plan time
	PeakTFLOPs  float64 `json:"peak_bf16_tflops"`        // dense (no sparsity); 0 for cpu-here: probed at plan time
	Source      string  `json:"source"`
}

// Hardwares is the table of named targets. Peak rates are the vendors' dense bf16 tensor-core figures (the
// datasheets print twice as much "with sparsity", which training does not use); memory is the nominal
// HBM size per GPU (CUDA reports a few percent less, which the fits test's 10 % margin covers).
var Hardwares = []Hardware{
	{Name: "cpu-here", Description: "this machine on the backend in use (pure Go, or XLA when built with -tags xla)",
		Source: "measured at plan time: MemTotal from /proc/meminfo and a float32 matmul probe on the backend"},
	{Name: "a100-80g", Description: "NVIDIA A100 80GB (SXM)", MemoryBytes: 80 << 30, PeakTFLOPs: 312,
		Source: "NVIDIA A100 Tensor Core GPU datasheet: BF16 tensor core 312 TFLOPS (624 with sparsity), 80 GB HBM2e"},
	{Name: "h100-80g", Description: "NVIDIA H100 80GB (SXM5)", MemoryBytes: 80 << 30, PeakTFLOPs: 989,
		Source: "NVIDIA H100 Tensor Core GPU datasheet, SXM: BF16 tensor core 1,979 TFLOPS with sparsity (989 dense), 80 GB HBM3"},
	{Name: "h200", Description: "NVIDIA H200 (SXM, 141 GB)", MemoryBytes: 141e9, PeakTFLOPs: 989,
		Source: "NVIDIA H200 Tensor Core GPU datasheet, SXM: BF16 tensor core 1,979 TFLOPS with sparsity (989 dense), 141 GB HBM3e"},
}

// DefaultMFU is the model-FLOPs utilisation assumed on GPUs [choice: 40 % of the dense bf16 peak, what
// well-tuned PyTorch LM training reaches on A100/H100; this project's XLA path has not been measured on a
// GPU yet, so treat the times as a target, not a measurement]. On cpu-here the rate is the probed matmul
// rate and the efficiency 0.5 of it (cpuEfficiency).
const (
	DefaultMFU    = 0.40
	cpuEfficiency = 0.5
	// memoryMargin is the fraction of a device's memory a run may plan to use (allocator overhead, the
	// runtime's own buffers, fragmentation).
	memoryMargin = 0.9
)

// LookupHardware returns the named target or an error listing the known ones.
func LookupHardware(name string) (Hardware, error) {
	var names []string
	for _, h := range Hardwares {
		if h.Name == name {
			return h, nil
		}
		names = append(names, h.Name)
	}
	return Hardware{}, fmt.Errorf("--hardware %q: unknown target; want one of %s", name, strings.Join(names, ", "))
}

// HardwarePlan is the plan of a run on Devices devices of a Hardware target, data-parallel (weights,
// optimizer state and gradients replicated on every device, each micro-batch split along the batch).
type HardwarePlan struct {
	Hardware
	Devices          int     `json:"devices"`
	MFU              float64 `json:"mfu"` // fraction of PeakTFLOPs assumed reached
	MemoryPerDevice  int64   `json:"memory_needed_per_device_bytes"`
	StepSeconds      float64 `json:"step_seconds"`           // one optimizer step (Batch sequences)
	TotalHours       float64 `json:"total_hours"`            // Steps × StepSeconds
	Fits             bool    `json:"fits"`                   // memory per device ≤ 90 % of the device's
	MemoryUsableFrac float64 `json:"memory_usable_fraction"` // the 90 %
}

// planHardware sizes plan p (computed for its micro-batch on one device) for devices of target h.
// For cpu-here, memory and rate come from this machine (p.HostMemory, p.ProbeGFLOPs).
func planHardware(p Plan, h Hardware, devices int, mfu float64) HardwarePlan {
	devices = max(devices, 1)
	hp := HardwarePlan{Hardware: h, Devices: devices, MFU: mfu, MemoryUsableFrac: memoryMargin}
	if h.Name == "cpu-here" {
		hp.MemoryBytes = p.HostMemory
		hp.PeakTFLOPs = p.ProbeGFLOPs / 1e3
		hp.MFU = cpuEfficiency
	}
	m := p.MemoryDetail
	replicated := m.Weights + m.Optimizer + m.Gradients + m.Accumulator
	hp.MemoryPerDevice = replicated + m.Activations/int64(devices)
	if h.Name == "cpu-here" {
		hp.MemoryPerDevice = p.MemoryBytes // the pure-Go backend's calibrated peak when it applies
	}
	rate := hp.PeakTFLOPs * 1e12 * hp.MFU * float64(devices)
	if rate > 0 {
		hp.StepSeconds = p.FLOPsPerToken * float64(p.TokensPerStep) / rate
		hp.TotalHours = hp.StepSeconds * float64(p.Train.Steps) / 3600
	} else {
		hp.StepSeconds, hp.TotalHours = math.Inf(1), math.Inf(1)
	}
	hp.Fits = hp.MemoryBytes == 0 || float64(hp.MemoryPerDevice) <= memoryMargin*float64(hp.MemoryBytes)
	return hp
}

// Summary is the plan in one line, for people (the JSON follows it).
func (p Plan) Summary() string {
	h := p.Hardware
	if h == nil {
		return ""
	}
	fits := "fits"
	if !h.Fits {
		fits = "does NOT fit"
	}
	mem := "memory unknown"
	if h.MemoryBytes > 0 {
		mem = fmt.Sprintf("%s of %s per device", humanize.IBytes(uint64(h.MemoryPerDevice)), humanize.IBytes(uint64(h.MemoryBytes)))
	}
	rate := fmt.Sprintf("%.0f%% MFU of %s bf16 peak", 100*h.MFU, tflops(h.PeakTFLOPs))
	if h.Name == "cpu-here" {
		rate = fmt.Sprintf("%.0f%% of the probed %s f32 matmul rate", 100*h.MFU, tflops(h.PeakTFLOPs))
	}
	return fmt.Sprintf("%s on %d × %s: %s parameters, %s tokens in %d steps; %s (%s); step %s at %s; total %s",
		p.Recipe, h.Devices, h.Name, human.Int(p.Params), human.Int(p.Tokens),
		p.Train.Steps, mem, fits, seconds(h.StepSeconds), rate, hours(h.TotalHours))
}

func tflops(t float64) string {
	if t >= 1 {
		return fmt.Sprintf("%.0f TFLOP/s", t)
	}
	return fmt.Sprintf("%.1f GFLOP/s", t*1e3)
}

func seconds(s float64) string {
	switch {
	case math.IsInf(s, 0):
		return "unknown"
	case s < 1:
		return fmt.Sprintf("%.0f ms", s*1e3)
	case s < 120:
		return fmt.Sprintf("%.2f s", s)
	case s < 7200:
		return fmt.Sprintf("%.1f min", s/60)
	}
	return fmt.Sprintf("%.1f h", s/3600)
}

func hours(h float64) string {
	switch {
	case math.IsInf(h, 0):
		return "unknown"
	case h < 1:
		return fmt.Sprintf("%.0f min", h*60)
	case h < 48:
		return fmt.Sprintf("%.1f h", h)
	case h < 24*730:
		return fmt.Sprintf("%.1f days", h/24)
	}
	return fmt.Sprintf("%.0f years", h/24/365)
}
