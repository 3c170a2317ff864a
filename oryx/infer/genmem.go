package infer

// Memory of a generation batch: how many engine rows fit a budget.
//
//	B rows   T prompt tokens (the batch's longest, padded)   L KV-cache capacity   D d_model   F MLP hidden
//	H heads   K key dim   V value dim   C linear-mixer chunk   e bytes per value (4 for float32)
//
// One row's peak, reached during the prefill (decode steps update the state in place and keep [B, H, L]
// attention logits at most):
//
//	state   = e · (kv·L + fixed)        the engine's state: KV cache at capacity, linear states, conv inputs
//	                                    (StateMemory; kv = layers·H·(K+V) per token for attention variants)
//	forward = e · kv·T                  every layer's keys and values of the parallel pass, alive until the
//	                                    caches are written at the end of the graph
//	acts    = e · T · width             the [T, ·] activations of the layer being computed:
//	          width = 6D + 3F + 4H(K+V) + 4HV (+ 2HC + 2HKV/C with a linear mixer)
//	                                    [choice: the residual stream, norm and output (6D), the MLP's gate, up
//	                                    and product (3F), keys and values before and after the conv and RoPE
//	                                    (4H(K+V)), the two readouts, the gate and the gated norm (4HV), and the
//	                                    chunked linear mixer's C×C blocks and chunk states]
//	logits  = e · 3·Vocab               the last position's logits and their host copies
//
// Not counted (fixed whatever the batch): the weights, compiled programs, and the attention logits of one
// query block, which Model.AttentionMemBytes bounds for the whole batch.

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/oryx"
)

// GenerationRowBytes estimates the peak bytes one engine row takes to prefill a prompt of t tokens into a KV
// cache of capacity tokens and decode from it, at bytesPerValue (see the formula above).
func GenerationRowBytes(c oryx.Config, t, capacity, bytesPerValue int) int64 {
	perToken, fixed := oryx.StateMemory(c, bytesPerValue)
	e := int64(bytesPerValue)
	d, f, h, k, v := int64(c.DModel), int64(c.MLPHidden), int64(c.Heads), int64(c.KeyDim), int64(c.ValueDim)
	width := 6*d + 3*f + 4*h*(k+v) + 4*h*v
	if c.Variant.LinearMixer() != oryx.NoLinear && c.Chunk > 0 {
		ch := int64(c.Chunk)
		width += 2*h*ch + 2*h*k*v/ch
	}
	return perToken*int64(capacity) + fixed + perToken*int64(t) + e*int64(t)*width + e*3*int64(c.Vocab)
}

// PrefillBytes estimates the peak bytes of a prefill of batch rows padded to t tokens into a KV cache of
// capacity tokens, at bytesPerValue: GenerationRowBytes per row plus the attention logits of one query block
// (attentionLiveArrays [B, H, chunk, T] arrays), which attnMem bounds (≤ 0: the dense [B, H, T, T] form) down
// to one query row. Past prefillOneShotMax tokens the engine reads the prompt in segments and the estimate is
// one segment's (segmentPrefillBytes, the segment reading attention). −1 when the arithmetic overflows an int64.
func PrefillBytes(c oryx.Config, batch, t, capacity, bytesPerValue int, attnMem int64) int64 {
	if t > prefillOneShotMax { // read in segments (prefillsegments.go), attention assumed
		seg := segmentLength(c, batch, capacity, true, attnMem, bytesPerValue)
		return segmentPrefillBytes(c, batch, seg, capacity, bytesPerValue, true)
	}
	rows, ok := guard.Mul(GenerationRowBytes(c, t, capacity, bytesPerValue), int64(batch))
	if !ok {
		return -1
	}
	if !c.Variant.HasAttention() {
		return rows
	}
	perQuery, ok := guard.MulAll(attentionLiveArrays, int64(batch), int64(c.Heads), int64(t), int64(bytesPerValue))
	if !ok {
		return -1
	}
	chunk, ok := guard.Mul(perQuery, int64(t)) // dense
	if !ok {
		chunk = -1
	}
	if attnMem > 0 && (chunk < 0 || chunk > attnMem) {
		chunk = max(attnMem, perQuery)
	}
	total, ok := guard.Add(rows, chunk)
	if !ok || chunk < 0 {
		return -1
	}
	return total
}

// CheckPrefillMemory refuses, before anything is built, a prefill whose PrefillBytes (float32) exceed what
// this process may use (guard.CheckMemory: the smallest of MemTotal, RLIMIT_AS/DATA and the cgroup limit).
func CheckPrefillMemory(c oryx.Config, batch, t, capacity int, attnMem int64) error {
	return guard.CheckMemory(fmt.Sprintf("the prefill of %d row(s) of %d tokens (KV cache %d tokens)", batch, t, capacity),
		PrefillBytes(c, batch, t, capacity, 4, attnMem))
}

// GenerationBatch returns how many rows (at most maxBatch, at least 1) of prompts up to t tokens with a KV
// cache of capacity tokens fit memBytes (GenerationRowBytes each), and the estimate per row. A single row
// that does not fit still gets batch 1: the budget sizes the batch, it does not refuse work (NewEngine's
// CheckDecodeMemory refuses states larger than the machine).
func GenerationBatch(c oryx.Config, t, capacity, maxBatch, bytesPerValue int, memBytes int64) (batch int, rowBytes int64) {
	if t < 1 || capacity < t || maxBatch < 1 || bytesPerValue < 1 {
		panic(fmt.Errorf("infer.GenerationBatch: want 1 ≤ t (%d) ≤ capacity (%d), maxBatch %d ≥ 1 and bytesPerValue %d ≥ 1",
			t, capacity, maxBatch, bytesPerValue))
	}
	rowBytes = GenerationRowBytes(c, t, capacity, bytesPerValue)
	batch = int(min(max(memBytes/rowBytes, 1), int64(maxBatch)))
	return batch, rowBytes
}

// Free releases the engine's state (KV caches, linear states) now instead of at the next Prefill, so that a
// caller can hand its memory to the next prefill; the compiled graphs are kept. The next call must be
// Prefill or Reset.
func (e *Engine) Free() {
	for _, t := range e.state {
		t.FinalizeAll()
	}
	e.state = nil
}

// Finalize releases the state and the compiled graphs — speculative decoding's and StepEscalate's too; the
// engine cannot be used afterwards.
func (e *Engine) Finalize() {
	e.Free()
	for _, x := range e.execs() {
		x.Finalize()
	}
	if e.escalation != nil && e.escalation.scorer != nil {
		e.escalation.scorer.Finalize()
	}
}

// execs lists every compiled graph the engine holds (made so far); Finalize releases them.
func (e *Engine) execs() []*context.Exec {
	all := []*context.Exec{e.prefill, e.prefillLinear, e.stepLinear, e.empty}
	for _, x := range e.steps {
		all = append(all, x)
	}
	for _, x := range e.segments {
		all = append(all, x)
	}
	if x := e.spec; x != nil {
		all = append(all, x.draft, x.commit)
		for _, v := range x.verify {
			all = append(all, v)
		}
	}
	if x := e.escalation; x != nil {
		all = append(all, x.trial, x.appendKV)
	}
	return slices.DeleteFunc(all, func(x *context.Exec) bool { return x == nil })
}
