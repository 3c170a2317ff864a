package infer

// Long prompts are prefilled in segments: each segment continues the state by S tokens (what inference
// servers call chunked prefill; "chunk" here already names the linear mixers' chunks), running the span forms —
// the chunked linear recurrence from the state, the conv from its inputs before the segment, attention over
// the KV cache with the segment's rows written first — so that one compiled graph serves every prompt length
// and the working memory of a prefill is one segment's, whatever the prompt's length:
//
//   - one Prefill graph of T tokens holds O(T) activations and, for a prompt read in attention mode, query
//     chunks of [B, H, c, T] logits whose buffers the pure-Go backend keeps per chunk (a 40,000-token tiny
//     prompt peaked near 10 GB); a segment holds O(S) activations and [B, H, S, L] logits;
//   - XLA compiles a graph whose size grows with T (a 40,000-token linear prefill of the tiny model compiled
//     for over two minutes on XLA CPU); the segment graph is compiled once for every prompt length.
//
// The state after all segments equals the one-graph prefill's (same maths, the linear state crossing segment
// boundaries exactly as it crosses chunk boundaries; TestPrefillSegmentsMatchPrefill, float64). Prompts up to
// prefillOneShotMax tokens keep the one-graph prefill.
//
//	B rows   S segment tokens   L KV-cache capacity   H heads

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/tensordata"
	"github.com/oryx-go/oryx/oryx"
)

const (
	// prefillOneShotMax is the longest batch (the longest prompt padded to prefillBucket) that Prefill reads in
	// one graph; longer ones are read in segments. XLA CPU's compile time grows fast with the graph's length:
	// `oryx generate` of the tiny Oryx-TG on a 40,000-token prompt read in linear mode took 46 s cold in
	// segments of 2,048 tokens (41 s of it compiling), 8.2 s in segments of 512 and 5.3 s in segments of 256;
	// one graph of 8,000 tokens had not compiled after 12 minutes, at 12.7 GB resident (2026-12-05, 2-core VM,
	// quiet); a 1,000-token prompt took 6.8 s in one graph, a 2,000-token one 7.1 s in segments. So a batch longer
	// than one segment is read in segments; the tiny study's prompts (≤ 128 tokens) stay on the one graph.
	prefillOneShotMax = prefillSegmentMax
	// prefillSegmentMax is the longest segment (the figures above; on pure Go 512-token segments cost little
	// more than 2,048-token ones: 40,000 linear tokens in 3.0 s at 256, 2.5 s at 2,048).
	prefillSegmentMax = 512
	// attentionLiveArrays is how many [B, H, q, keys] arrays one block of q attention queries keeps alive (logits,
	// masked logits, their exponential, the probabilities): a query block of the one-graph prefill, a segment.
	attentionLiveArrays = 4
)

// segmentLength is the segment length of a prefill of batch rows into a KV cache of capacity tokens:
// prefillSegmentMax, or, when the segment reads attention, the most query rows whose [B, H, S, L] logits fit
// attnMem (≤ 0: no bound) — a multiple of prefillBucket, at least prefillBucket.
func segmentLength(c oryx.Config, batch, capacity int, attention bool, attnMem int64, bytesPerValue int) int {
	s := prefillSegmentMax
	if attention && c.Variant.HasAttention() && attnMem > 0 {
		perQuery, ok := guard.MulAll(attentionLiveArrays, int64(batch), int64(c.Heads), int64(capacity), int64(bytesPerValue))
		if !ok {
			return prefillBucket
		}
		s = int(min(int64(s), attnMem/perQuery/prefillBucket*prefillBucket))
	}
	return max(s, prefillBucket)
}

// segmentPrefillBytes estimates the peak bytes of a segmented prefill: per row the state at capacity and one
// segment's keys, values and activations (GenerationRowBytes with t = seg), plus the segment's attention
// logits when it reads attention. The state is counted once: each segment updates it in place (donated).
// −1 when the arithmetic overflows an int64.
func segmentPrefillBytes(c oryx.Config, batch, seg, capacity, bytesPerValue int, attention bool) int64 {
	rows, ok := guard.Mul(GenerationRowBytes(c, seg, capacity, bytesPerValue), int64(batch))
	if !ok {
		return -1
	}
	if !attention || !c.Variant.HasAttention() {
		return rows
	}
	logits, ok1 := guard.MulAll(attentionLiveArrays, int64(batch), int64(c.Heads), int64(seg), int64(capacity), int64(bytesPerValue))
	total, ok2 := guard.Add(rows, logits)
	if !ok1 || !ok2 {
		return -1
	}
	return total
}

// segmentKind names one compiled segment graph: the cache rows its attention reads (0: all of them, or
// none when linear) and whether every token is read in linear mode (no attention readout).
type segmentKind struct {
	keys   int
	linear bool
}

// segmentGraph continues st by one segment: tokens and modes [B, S] (modes nil for single-mixer variants and
// linear segments), of which the first counts[b] (0 ≤ counts ≤ S) are real, at positions st.Pos + s →
// the logits [B, Vocab] after each row's last real token of the segment (meaningless for a row with counts 0)
// and the state after it (Pos + counts). The caller checks that st.Pos + counts ≤ the cache capacity and,
// with g.keys > 0, ≤ g.keys.
func segmentGraph(ctx *context.Context, m *oryx.Model, tokens, modes, counts *graph.Node, st *oryx.State, g segmentKind) (*graph.Node, *oryx.State) {
	h, spans := m.Continue(ctx, tokens, st, oryx.Span{Modes: modes, AllLinear: g.linear, Counts: counts, Keys: g.keys})
	return m.Head(ctx, lastRows(h, counts)), nextState(m, st, spans, counts, tokens.Shape().Dim(1), 0)
}

// segmentExec returns the segment graph of kind g, built on first use.
func (e *Engine) segmentExec(g segmentKind) (*context.Exec, error) {
	if x := e.segments[g]; x != nil {
		return x, nil
	}
	m := e.model
	x, err := context.NewExec(e.backend, e.ctx, func(ctx *context.Context, in []*graph.Node) []*graph.Node {
		logits, st := segmentGraph(ctx, m, in[0], m.ModesOrNil(in[1]), in[2], m.Unflatten(in[3:]), g)
		return append([]*graph.Node{logits}, st.Flatten()...)
	})
	if err != nil {
		return nil, err
	}
	if e.segments == nil {
		e.segments = map[segmentKind]*context.Exec{}
	}
	e.segments[g] = x
	return x, nil
}

// segmentKeyStep is how the cache rows a segment's attention reads grow on the pure-Go backend: each segment
// reads the rows filled so far rounded up to a multiple of it (a few graphs per prompt, compiled in
// milliseconds there), about half the work and logits of reading the whole cache every time. XLA reads the
// whole cache in one graph: its reads are cheap next to compiling a graph per step.
const segmentKeyStep = 8192

// segmentKeysFor is the number of cache rows the segment ending at token end reads (0: all).
func (e *Engine) segmentKeysFor(end int) int {
	step := e.segmentKeys
	if step == 0 {
		if !backend.IsPureGo(e.backend) {
			return 0
		}
		step = segmentKeyStep
	}
	if keys := (end + step - 1) / step * step; keys < e.capacity {
		return keys
	}
	return 0
}

// prefillSegments is Prefill for a batch whose longest prompt has t > prefillOneShotMax tokens (prompts, their
// tokens and modes checked by Prefill): from the empty state, segment after segment of seg tokens (≤ 0: segmentLength's
// choice), each row's logits taken from the segment that holds its last token.
func (e *Engine) prefillSegments(prompts [][]int32, modes [][]oryx.Mode, t, seg int) ([][]float32, error) {
	c := e.model.Config
	attention := c.Variant.HasAttention() && c.Variant.LinearMixer() == oryx.NoLinear
	for _, row := range modes {
		attention = attention || slices.Contains(row, oryx.Attention)
	}
	if seg <= 0 {
		seg = segmentLength(c, e.batch, e.capacity, attention, e.attnMem, 4)
	}
	what := fmt.Sprintf("the prefill of %d row(s) of %d tokens in segments of %d (KV cache %d tokens)", e.batch, t, seg, e.capacity)
	if err := guard.CheckMemory(what, segmentPrefillBytes(c, e.batch, seg, e.capacity, 4, attention)); err != nil {
		return nil, fmt.Errorf("Engine.Prefill: %w", err)
	}
	if err := e.Reset(); err != nil {
		return nil, err
	}
	v := c.Vocab
	last := make([][]float64, e.batch)
	for s0 := 0; s0 < t; s0 += seg {
		tok, md, counts := make([]int32, e.batch*seg), make([]int32, e.batch*seg), make([]int32, e.batch)
		for b, p := range prompts {
			n := copy(tok[b*seg:(b+1)*seg], p[min(s0, len(p)):])
			counts[b] = int32(n)
			if modes != nil {
				for i := range n {
					md[b*seg+i] = int32(modes[b][s0+i])
				}
			}
		}
		g := segmentKind{keys: e.segmentKeysFor(s0 + seg)}
		if c.Variant.LinearMixer() != oryx.NoLinear && allLinear(md) {
			g = segmentKind{linear: true}
		}
		exec, err := e.segmentExec(g)
		if err != nil {
			return nil, err
		}
		args := []any{tensors.FromFlatDataAndDimensions(tok, e.batch, seg), tensors.FromFlatDataAndDimensions(md, e.batch, seg),
			tensors.FromFlatDataAndDimensions(counts, e.batch)}
		args, err = e.appendDonated(args, e.state) // each segment updates the caches in place
		if err != nil {
			return nil, err
		}
		outs, err := exec.Exec(args...)
		e.state = nil // donated to the segment, replaced by its outputs
		if err != nil {
			return nil, fmt.Errorf("Engine.Prefill: segment at token %d: %w (the state was lost: Reset or Prefill again)", s0, err)
		}
		e.setState(outs[1:])
		flat := tensordata.Float64s(outs[0])
		outs[0].FinalizeAll()
		for b, p := range prompts {
			if end := len(p) - 1; end >= s0 && end < s0+seg {
				last[b] = flat[b*v : (b+1)*v]
			}
		}
		if e.PrefillProgress != nil {
			e.PrefillProgress(min(s0+seg, t), t)
		}
	}
	return e.keepLogits(last), nil
}
