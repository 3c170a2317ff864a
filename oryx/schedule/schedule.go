package schedule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/oryx-go/oryx/internal/seedrand"
	"github.com/oryx-go/oryx/oryx"
)

// Defaults of the block-wise random schedule used for mixed training (docs/model.md §3.11 [choice]): blocks of
// 128 tokens — a multiple of the recurrent chunk length, so a mode switch never splits a chunk — each in
// attention mode with probability one half.
const (
	DefaultBlockLen      = 128
	DefaultAttentionProb = 0.5
)

// Schedule holds the mode of every token of a batch: one row per sequence, one Mode per position. Rows
// usually share one length; Spec.ScheduleRows builds rows of different lengths (prompts of a generation
// batch), in which case Len is the longest row and Padded brings every row to one length.
//
// A Schedule is immutable once built: accessors return copies.
type Schedule struct {
	rows [][]oryx.Mode
}

// NewSchedule builds a schedule from explicit rows (copied). Every row must be non-empty and hold only
// Linear or Attention; rows may have different lengths.
func NewSchedule(rows [][]oryx.Mode) (*Schedule, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("schedule: rows: batch must be > 0, got 0 rows")
	}
	s := &Schedule{rows: make([][]oryx.Mode, len(rows))}
	for b, row := range rows {
		if len(row) == 0 {
			return nil, fmt.Errorf("schedule: row %d is empty (length must be > 0)", b)
		}
		for t, m := range row {
			if !m.Valid() {
				return nil, fmt.Errorf("schedule: row %d position %d: invalid %s", b, t, m)
			}
		}
		s.rows[b] = append([]oryx.Mode(nil), row...)
	}
	return s, nil
}

// Batch returns the number of rows (sequences).
func (s *Schedule) Batch() int { return len(s.rows) }

// Len returns the length of the longest row; for a rectangular schedule, the sequence length T.
func (s *Schedule) Len() int {
	n := 0
	for _, r := range s.rows {
		n = max(n, len(r))
	}
	return n
}

// RowLen returns the length of row b.
func (s *Schedule) RowLen(b int) int { return len(s.rows[b]) }

// At returns the mode of position t of row b. It panics when (b, t) is outside the schedule, like a slice.
func (s *Schedule) At(b, t int) oryx.Mode { return s.rows[b][t] }

// Row returns a copy of row b.
func (s *Schedule) Row(b int) []oryx.Mode { return append([]oryx.Mode(nil), s.rows[b]...) }

// AttentionFraction returns the fraction of all tokens (over every row's own length) in attention mode;
// it is the quantity behind the paper's "<10 % attention tokens" claims (docs/model.md §6).
func (s *Schedule) AttentionFraction() float64 {
	total, attn := 0, 0
	for _, r := range s.rows {
		total += len(r)
		for _, m := range r {
			if m == oryx.Attention {
				attn++
			}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(attn) / float64(total)
}

// AttentionPositions returns the positions of row b that are in attention mode, ascending. The model uses
// it to gather only those positions for the attention readout, so attention cost scales with the number
// of attention tokens rather than with T.
func (s *Schedule) AttentionPositions(b int) []int {
	var pos []int
	for t, m := range s.rows[b] {
		if m == oryx.Attention {
			pos = append(pos, t)
		}
	}
	return pos
}

// Padded returns a rectangular copy whose rows all have length t: longer rows are truncated, shorter
// rows are extended with pad. Padding positions of a generation batch are masked out by the model, so
// the pad mode only matters for cost; Linear is the usual choice. It panics if t ≤ 0 (a programming
// error: a schedule has no empty rows).
func (s *Schedule) Padded(t int, pad oryx.Mode) *Schedule {
	if t <= 0 {
		panic(fmt.Sprintf("Schedule.Padded: length t must be > 0, got %d", t))
	}
	if !pad.Valid() {
		panic(fmt.Sprintf("Schedule.Padded: invalid pad %s", pad))
	}
	out := &Schedule{rows: make([][]oryx.Mode, len(s.rows))}
	for b, r := range s.rows {
		row := make([]oryx.Mode, t)
		n := copy(row, r)
		for i := n; i < t; i++ {
			row[i] = pad
		}
		out.rows[b] = row
	}
	return out
}

// Tensor returns the schedule as the graph consumes it: an int32 tensor of shape [Batch, Len] with
// 1 = attention and 0 = linear. Rows shorter than Len (ragged schedules) are padded with 0 (linear); use
// Padded first to choose another pad mode.
func (s *Schedule) Tensor() *tensors.Tensor {
	b, t := s.Batch(), s.Len()
	flat := make([]int32, b*t)
	for i, r := range s.rows {
		for j, m := range r {
			flat[i*t+j] = int32(m)
		}
	}
	return tensors.FromFlatDataAndDimensions(flat, b, t)
}

// RowString renders row b as run-length ranges, inclusive on both ends: "L0-99 A100-127". A run of one
// position is written "A5-5" so that every range has the same shape.
func (s *Schedule) RowString(b int) string {
	row := s.rows[b]
	var sb strings.Builder
	for start := 0; start < len(row); {
		end := start
		for end+1 < len(row) && row[end+1] == row[start] {
			end++
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%s%d-%d", row[start].Short(), start, end)
		start = end + 1
	}
	return sb.String()
}

// String renders the schedule compactly for logs: the run-length rendering of the rows when they are all
// identical ("L0-99 A100-127"), otherwise one "bN: ..." group per row separated by "; ".
func (s *Schedule) String() string {
	if len(s.rows) == 0 {
		return ""
	}
	first := s.RowString(0)
	same := true
	parts := make([]string, len(s.rows))
	for b := range s.rows {
		parts[b] = s.RowString(b)
		if parts[b] != first {
			same = false
		}
	}
	if same {
		return first
	}
	for b := range parts {
		parts[b] = fmt.Sprintf("b%d: %s", b, parts[b])
	}
	return strings.Join(parts, "; ")
}

// ---------------------------------------------------------------------------------------------------------
// Generators.

// checkDims validates the batch and length arguments shared by every generator.
func checkDims(fn string, b, t int) error {
	if b <= 0 {
		return fmt.Errorf("%s: batch b must be > 0, got %d", fn, b)
	}
	if t <= 0 {
		return fmt.Errorf("%s: length t must be > 0, got %d", fn, t)
	}
	return nil
}

// checkProb validates an attention probability.
func checkProb(fn string, p float64) error {
	if math.IsNaN(p) || p < 0 || p > 1 {
		return fmt.Errorf("%s: attention probability must be in [0, 1], got %v", fn, p)
	}
	return nil
}

// uniformLengths returns b copies of t.
func uniformLengths(b, t int) []int {
	l := make([]int, b)
	for i := range l {
		l[i] = t
	}
	return l
}

// AllAttention returns a b × t schedule with every token in attention mode (the Transformer reading).
func AllAttention(b, t int) (*Schedule, error) {
	if err := checkDims("AllAttention", b, t); err != nil {
		return nil, err
	}
	return buildRows(uniformLengths(b, t), 0, func(_ int, row []oryx.Mode, _ *rand.Rand) { fill(row, oryx.Attention) }), nil
}

// AllLinear returns a b × t schedule with every token in linear mode (the pure recurrent reading).
func AllLinear(b, t int) (*Schedule, error) {
	if err := checkDims("AllLinear", b, t); err != nil {
		return nil, err
	}
	return buildRows(uniformLengths(b, t), 0, func(_ int, row []oryx.Mode, _ *rand.Rand) { fill(row, oryx.Linear) }), nil
}

// BlockRandom returns the mixed-training schedule of docs/model.md §3.11: each row is cut into aligned blocks
// of blockLen tokens (the last one may be partial) and each block is in attention mode with probability
// pAttention, drawn independently per block and per row. Blocks rather than whole sequences, so the model
// sees mode switches inside a sequence and switching at inference stays in distribution.
//
// The draws are deterministic for a seed. Each row has its own random stream derived from (seed, row
// index), so a row's modes do not depend on the other rows, and a longer row extends a shorter one.
func BlockRandom(b, t, blockLen int, pAttention float64, seed uint64) (*Schedule, error) {
	if err := checkDims("BlockRandom", b, t); err != nil {
		return nil, err
	}
	if blockLen <= 0 {
		return nil, fmt.Errorf("BlockRandom: block length must be > 0, got %d", blockLen)
	}
	if err := checkProb("BlockRandom", pAttention); err != nil {
		return nil, err
	}
	return buildRows(uniformLengths(b, t), seed, blockRandomRow(blockLen, pAttention)), nil
}

// SequenceRandom returns the whole-sequence ablation of BlockRandom: each row is entirely in attention
// mode with probability pAttention, otherwise entirely linear; deterministic for a seed.
func SequenceRandom(b, t int, pAttention float64, seed uint64) (*Schedule, error) {
	if err := checkDims("SequenceRandom", b, t); err != nil {
		return nil, err
	}
	if err := checkProb("SequenceRandom", pAttention); err != nil {
		return nil, err
	}
	return buildRows(uniformLengths(b, t), seed, sequenceRandomRow(pAttention)), nil
}

// rowFiller fills one row (already allocated at its length) of a schedule; rng is the row's own stream.
type rowFiller func(b int, row []oryx.Mode, rng *rand.Rand)

// buildRows allocates one row per length and fills each with its own deterministic random stream.
func buildRows(lengths []int, seed uint64, fillRow rowFiller) *Schedule {
	s := &Schedule{rows: make([][]oryx.Mode, len(lengths))}
	for b, n := range lengths {
		row := make([]oryx.Mode, n)
		fillRow(b, row, rowRand(seed, b))
		s.rows[b] = row
	}
	return s
}

// rowRand returns the random stream of row b: PCG seeded with the user seed and a splitmix64 hash of the
// row index, so rows get unrelated streams and a row does not depend on how many draws others used.
func rowRand(seed uint64, b int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seedrand.SplitMix64(uint64(b))))
}

func fill(row []oryx.Mode, m oryx.Mode) {
	for i := range row {
		row[i] = m
	}
}

// blockRandomRow draws one mode per aligned block. rng.Float64() is in [0, 1), so p = 0 never and p = 1
// always gives attention.
func blockRandomRow(blockLen int, p float64) rowFiller {
	return func(_ int, row []oryx.Mode, rng *rand.Rand) {
		for start := 0; start < len(row); start += blockLen {
			m := oryx.Linear
			if rng.Float64() < p {
				m = oryx.Attention
			}
			fill(row[start:min(start+blockLen, len(row))], m)
		}
	}
}

func sequenceRandomRow(p float64) rowFiller {
	return func(_ int, row []oryx.Mode, rng *rand.Rand) {
		m := oryx.Linear
		if rng.Float64() < p {
			m = oryx.Attention
		}
		fill(row, m)
	}
}

func rangesRow(ranges []modeRange) rowFiller {
	return func(_ int, row []oryx.Mode, _ *rand.Rand) {
		for t := range row {
			row[t] = modeFromRanges(ranges, t)
		}
	}
}

// ---------------------------------------------------------------------------------------------------------
// Textual specs.

// modeIf maps a condition to Attention (true) or Linear (false).
func modeIf(attn bool) oryx.Mode {
	if attn {
		return oryx.Attention
	}
	return oryx.Linear
}

// modeFromRanges applies the range rule at position t: the last range covering t wins, default linear.
func modeFromRanges(ranges []modeRange, t int) oryx.Mode {
	m := oryx.Linear
	for _, r := range ranges {
		if t >= r.from && (r.to < 0 || t <= r.to) {
			m = r.mode
		}
	}
	return m
}
