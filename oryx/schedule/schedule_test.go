package schedule

import (
	"math"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// rowStr renders a row back to "LLAA".
func rowStr(row []oryx.Mode) string {
	var sb strings.Builder
	for _, m := range row {
		sb.WriteString(m.Short())
	}
	return sb.String()
}

func TestModeString(t *testing.T) {
	assert.Equal(t, "linear", oryx.Linear.String())
	assert.Equal(t, "attention", oryx.Attention.String())
	assert.Equal(t, "L", oryx.Linear.Short())
	assert.Equal(t, "A", oryx.Attention.Short())
	assert.Equal(t, "Mode(7)", oryx.Mode(7).String())
	m, err := oryx.ParseMode(" Attention ")
	require.NoError(t, err)
	assert.Equal(t, oryx.Attention, m)
	_, err = oryx.ParseMode("x")
	assert.ErrorContains(t, err, `"x"`)
}

func TestAllAttentionAllLinear(t *testing.T) {
	s, err := AllAttention(2, 5)
	require.NoError(t, err)
	assert.Equal(t, 2, s.Batch())
	assert.Equal(t, 5, s.Len())
	assert.Equal(t, "AAAAA", rowStr(s.Row(1)))
	assert.Equal(t, 1.0, s.AttentionFraction())
	assert.Equal(t, "A0-4", s.String())
	assert.Equal(t, []int{0, 1, 2, 3, 4}, s.AttentionPositions(0))

	s, err = AllLinear(3, 4)
	require.NoError(t, err)
	assert.Equal(t, "LLLL", rowStr(s.Row(2)))
	assert.Equal(t, 0.0, s.AttentionFraction())
	assert.Empty(t, s.AttentionPositions(0))

	for _, bt := range [][2]int{{0, 4}, {-1, 4}, {2, 0}, {2, -3}} {
		_, err := AllAttention(bt[0], bt[1])
		assert.Error(t, err, "AllAttention(%d, %d)", bt[0], bt[1])
		_, err = AllLinear(bt[0], bt[1])
		assert.Error(t, err, "AllLinear(%d, %d)", bt[0], bt[1])
	}
	_, err = AllAttention(0, 4)
	assert.ErrorContains(t, err, "batch b must be > 0")
	_, err = AllLinear(2, 0)
	assert.ErrorContains(t, err, "length t must be > 0")
}

func TestBlockRandomFractionAndAlignment(t *testing.T) {
	const b, T, blockLen = 8, 4000, 16 // 250 blocks per row, 2000 in all
	for _, p := range []float64{0.1, 0.5, 0.9} {
		s, err := BlockRandom(b, T, blockLen, p, 42)
		require.NoError(t, err)
		assert.InDelta(t, p, s.AttentionFraction(), 0.05, "p=%v", p)
		// Aligned blocks: constant inside each block.
		for r := range b {
			for start := 0; start < T; start += blockLen {
				for i := start + 1; i < min(start+blockLen, T); i++ {
					require.Equal(t, s.At(r, start), s.At(r, i), "row %d block at %d", r, start)
				}
			}
		}
	}
}

func TestBlockRandomPartialLastBlock(t *testing.T) {
	s, err := BlockRandom(4, 10, 4, 0.5, 3) // blocks 0-3, 4-7, 8-9
	require.NoError(t, err)
	for r := range 4 {
		assert.Equal(t, s.At(r, 8), s.At(r, 9))
		assert.Equal(t, 10, s.RowLen(r))
	}
}

func TestBlockRandomPerSequence(t *testing.T) {
	s, err := BlockRandom(4, 512, 16, 0.5, 7)
	require.NoError(t, err)
	rows := map[string]bool{}
	for r := range 4 {
		rows[rowStr(s.Row(r))] = true
	}
	assert.Len(t, rows, 4, "every row should have its own draw")
}

func TestBlockRandomDeterminism(t *testing.T) {
	a, err := BlockRandom(3, 300, 10, 0.5, 99)
	require.NoError(t, err)
	b, err := BlockRandom(3, 300, 10, 0.5, 99)
	require.NoError(t, err)
	c, err := BlockRandom(3, 300, 10, 0.5, 100)
	require.NoError(t, err)
	assert.Equal(t, a.String(), b.String())
	assert.NotEqual(t, a.String(), c.String())

	// A row does not depend on the batch size or on its length beyond its own prefix.
	d, err := BlockRandom(1, 150, 10, 0.5, 99)
	require.NoError(t, err)
	assert.Equal(t, a.Row(0)[:150], d.Row(0))
}

func TestBlockRandomExtremes(t *testing.T) {
	s, err := BlockRandom(2, 100, 7, 1, 1)
	require.NoError(t, err)
	assert.Equal(t, 1.0, s.AttentionFraction())
	s, err = BlockRandom(2, 100, 7, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, 0.0, s.AttentionFraction())
}

func TestBlockRandomErrors(t *testing.T) {
	cases := []struct {
		b, t, blockLen int
		p              float64
		want           string
	}{
		{0, 10, 4, 0.5, "batch b"},
		{2, 0, 4, 0.5, "length t"},
		{2, 10, 0, 0.5, "block length must be > 0"},
		{2, 10, -1, 0.5, "block length must be > 0"},
		{2, 10, 4, -0.1, "probability"},
		{2, 10, 4, 1.5, "probability"},
		{2, 10, 4, math.NaN(), "probability"},
	}
	for _, c := range cases {
		_, err := BlockRandom(c.b, c.t, c.blockLen, c.p, 0)
		assert.ErrorContains(t, err, c.want, "%+v", c)
	}
}

func TestSequenceRandom(t *testing.T) {
	s, err := SequenceRandom(400, 8, 0.3, 5)
	require.NoError(t, err)
	for r := range s.Batch() {
		row := s.Row(r)
		for _, m := range row {
			require.Equal(t, row[0], m, "row %d must be one mode", r)
		}
	}
	assert.InDelta(t, 0.3, s.AttentionFraction(), 0.07)
	s2, err := SequenceRandom(400, 8, 0.3, 5)
	require.NoError(t, err)
	assert.Equal(t, s.String(), s2.String())

	_, err = SequenceRandom(2, 8, 2, 5)
	assert.ErrorContains(t, err, "SequenceRandom")
	_, err = SequenceRandom(0, 8, 0.5, 5)
	assert.ErrorContains(t, err, "batch b")
}

// TestRangeSpec: a range spec gives every row the same modes, whatever the batch.
func TestRangeSpec(t *testing.T) {
	s, err := parseSchedule("A:0-2,L:3-7,A:8-", 2, 12, 0)
	require.NoError(t, err)
	assert.Equal(t, "AAALLLLLAAAA", rowStr(s.Row(0)))
	assert.Equal(t, "AAALLLLLAAAA", rowStr(s.Row(1)))
	assert.Equal(t, "A0-2 L3-7 A8-11", s.String())
	_, err = parseSchedule("A:0-", 0, 12, 0)
	assert.Error(t, err)
}

func TestParseScheduleForms(t *testing.T) {
	const T = 10
	cases := []struct{ spec, want string }{
		{"attention", "AAAAAAAAAA"},
		{"all-attention", "AAAAAAAAAA"},
		{"A", "AAAAAAAAAA"},
		{" a ", "AAAAAAAAAA"},
		{"linear", "LLLLLLLLLL"},
		{"all-linear", "LLLLLLLLLL"},
		{"L", "LLLLLLLLLL"},
		{"prefill-attention", "AAAAAAAAAA"},
		{"block:5:1", "AAAAAAAAAA"},
		{"block:5:0", "LLLLLLLLLL"},
		{"sequence:1", "AAAAAAAAAA"},
		{"sequence:0", "LLLLLLLLLL"},
		{"linear-until:4", "LLLLAAAAAA"},
		{"linear-until:0", "AAAAAAAAAA"},
		{"linear-until:99", "LLLLLLLLLL"},
		{"attention-last:3", "LLLLLLLAAA"},
		{"attention-last:0", "LLLLLLLLLL"},
		{"attention-last:50", "AAAAAAAAAA"},
		{"A:0-1,L:2-5,A:6-", "AALLLLAAAA"},
		{"A:2-3", "LLAALLLLLL"},
		{"A:4", "LLLLALLLLL"},
		{"attention:0-2, linear:1", "ALALLLLLLL"},
		{"A:0-,L:3-5", "AAALLLAAAA"}, // later wins
		{"L:3-5,A:0-", "AAAAAAAAAA"}, // later wins
		{"A:8-20", "LLLLLLLLAA"},     // beyond the row: ignored
		{"A:30-", "LLLLLLLLLL"},      // entirely beyond the row
		{"BLOCK:5:1", "AAAAAAAAAA"},  // keywords are case-insensitive
		{"Linear-Until:4", "LLLLAAAAAA"},
	}
	for _, c := range cases {
		s, err := parseSchedule(c.spec, 3, T, 1)
		require.NoError(t, err, c.spec)
		for r := range 3 {
			assert.Equal(t, c.want, rowStr(s.Row(r)), "spec %q row %d", c.spec, r)
		}
		assert.NoError(t, checkSpec(c.spec), c.spec)
	}
}

func TestParseScheduleRandomMatchesGenerators(t *testing.T) {
	got, err := parseSchedule("block:16:0.25", 4, 200, 11)
	require.NoError(t, err)
	want, err := BlockRandom(4, 200, 16, 0.25, 11)
	require.NoError(t, err)
	assert.Equal(t, want.String(), got.String())

	got, err = parseSchedule("block", 4, 1000, 11)
	require.NoError(t, err)
	want, err = BlockRandom(4, 1000, DefaultBlockLen, DefaultAttentionProb, 11)
	require.NoError(t, err)
	assert.Equal(t, want.String(), got.String())

	got, err = parseSchedule("block:32", 4, 200, 11)
	require.NoError(t, err)
	want, err = BlockRandom(4, 200, 32, DefaultAttentionProb, 11)
	require.NoError(t, err)
	assert.Equal(t, want.String(), got.String())

	got, err = parseSchedule("sequence:0.5", 16, 8, 3)
	require.NoError(t, err)
	want, err = SequenceRandom(16, 8, 0.5, 3)
	require.NoError(t, err)
	assert.Equal(t, want.String(), got.String())

	got, err = parseSchedule("sequence", 16, 8, 3)
	require.NoError(t, err)
	assert.Equal(t, want.String(), got.String())
}

func TestParseScheduleErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"", "empty spec"},
		{"  ", "empty spec"},
		{"block:0:0.5", "block length must be > 0"},
		{"block:x", "block length"},
		{"block:8:1.5", "probability must be in [0, 1]"},
		{"block:8:abc", "not a number"},
		{"block:8:0.5:3", "at most 2 arguments"},
		{"sequence:-0.1", "probability must be in [0, 1]"},
		{"sequence:0.5:1", "at most 1 argument"},
		{"linear-until", "exactly one argument"},
		{"linear-until:-1", "P must be ≥ 0"},
		{"linear-until:x", `"x" is not an integer`},
		{"attention-last:", "is not an integer"},
		{"attention-last:-2", "N must be ≥ 0"},
		{"all-attention:3", "takes no arguments"},
		{"prefill-attention:1", "takes no arguments"},
		{"bogus", "unknown schedule"},
		{"X:0-3", "unknown mode"},
		{"A:5-2", "end 2 is before start 5"},
		{"A:0-3,", "empty range item"},
		{"A:0-3,L", "want MODE:FROM-TO"},
		{"A:x-3", "start"},
		{"A:-3", "start"},
		{"A:0-y", "end"},
	}
	for _, c := range cases {
		_, err := parseSchedule(c.spec, 2, 10, 0)
		require.Error(t, err, c.spec)
		assert.Contains(t, err.Error(), `schedule "`+c.spec+`"`, "spec must be named")
		assert.Contains(t, err.Error(), c.want, c.spec)
		assert.Error(t, checkSpec(c.spec), c.spec)
	}
	_, err := parseSchedule("block:0:0.5", 2, 10, 0)
	assert.EqualError(t, err, `schedule "block:0:0.5": block length must be > 0, got 0`)

	_, err = parseSchedule("attention", 0, 10, 0)
	assert.ErrorContains(t, err, "batch b must be > 0")
	_, err = parseSchedule("attention", 2, 0, 0)
	assert.ErrorContains(t, err, "length t must be > 0")
}

func TestTensor(t *testing.T) {
	s, err := parseSchedule("linear-until:2", 2, 4, 0)
	require.NoError(t, err)
	tt := s.Tensor()
	assert.Equal(t, dtypes.Int32, tt.Shape().DType)
	assert.Equal(t, []int{2, 4}, tt.Shape().Dimensions)
	assert.Equal(t, []int32{0, 0, 1, 1, 0, 0, 1, 1}, tensors.MustCopyFlatData[int32](tt))

	// Row-major [B, T] with distinct rows.
	s, err = NewSchedule([][]oryx.Mode{oryxtest.Modes("AL"), oryxtest.Modes("LA"), oryxtest.Modes("AA")})
	require.NoError(t, err)
	assert.Equal(t, []int32{1, 0, 0, 1, 1, 1}, tensors.MustCopyFlatData[int32](s.Tensor()))
}

func TestScheduleRows(t *testing.T) {
	lengths := []int{6, 3, 8}
	s, err := parseScheduleRows("attention-last:2", lengths, 0)
	require.NoError(t, err)
	assert.Equal(t, 3, s.Batch())
	assert.Equal(t, 8, s.Len())
	for b, n := range lengths {
		assert.Equal(t, n, s.RowLen(b))
	}
	assert.Equal(t, "LLLLAA", rowStr(s.Row(0)))
	assert.Equal(t, "LAA", rowStr(s.Row(1)))
	assert.Equal(t, "LLLLLLAA", rowStr(s.Row(2)))
	assert.InDelta(t, 6.0/17, s.AttentionFraction(), 1e-12)
	assert.Equal(t, "b0: L0-3 A4-5; b1: L0-0 A1-2; b2: L0-5 A6-7", s.String())

	// Ragged Tensor pads with linear; Padded chooses the pad and truncates.
	assert.Equal(t, []int32{
		0, 0, 0, 0, 1, 1, 0, 0,
		0, 1, 1, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 1, 1,
	}, tensors.MustCopyFlatData[int32](s.Tensor()))
	p := s.Padded(7, oryx.Attention)
	assert.Equal(t, 7, p.Len())
	assert.Equal(t, "LLLLAAA", rowStr(p.Row(0)))
	assert.Equal(t, "LAAAAAA", rowStr(p.Row(1)))
	assert.Equal(t, "LLLLLLA", rowStr(p.Row(2)))
	assert.Equal(t, 3, s.RowLen(1), "Padded must not modify the receiver")
	assert.Panics(t, func() { s.Padded(0, oryx.Linear) })

	// Ranges are absolute and clipped per row.
	s, err = parseScheduleRows("A:2-4", []int{3, 6}, 0)
	require.NoError(t, err)
	assert.Equal(t, "LLA", rowStr(s.Row(0)))
	assert.Equal(t, "LLAAAL", rowStr(s.Row(1)))

	// Random rows do not depend on the other rows' lengths.
	r1, err := parseScheduleRows("block:4:0.5", []int{40, 100}, 9)
	require.NoError(t, err)
	r2, err := parseScheduleRows("block:4:0.5", []int{80, 100}, 9)
	require.NoError(t, err)
	assert.Equal(t, r1.Row(1), r2.Row(1))
	assert.Equal(t, r1.Row(0), r2.Row(0)[:40])

	_, err = parseScheduleRows("attention", nil, 0)
	assert.ErrorContains(t, err, "batch must be > 0")
	_, err = parseScheduleRows("attention", []int{3, 0}, 0)
	assert.ErrorContains(t, err, "lengths[1] must be > 0")
	_, err = parseScheduleRows("nope", []int{3}, 0)
	assert.ErrorContains(t, err, `schedule "nope"`)
}

func TestNewScheduleAndAccessors(t *testing.T) {
	rows := [][]oryx.Mode{oryxtest.Modes("LAAL"), oryxtest.Modes("AL")}
	s, err := NewSchedule(rows)
	require.NoError(t, err)
	rows[0][0] = oryx.Attention // the schedule holds a copy
	assert.Equal(t, oryx.Linear, s.At(0, 0))
	r := s.Row(0)
	r[0] = oryx.Attention // Row returns a copy
	assert.Equal(t, oryx.Linear, s.At(0, 0))
	assert.Equal(t, []int{1, 2}, s.AttentionPositions(0))
	assert.Equal(t, []int{0}, s.AttentionPositions(1))
	assert.Equal(t, "L0-0 A1-2 L3-3", s.RowString(0))

	_, err = NewSchedule(nil)
	assert.Error(t, err)
	_, err = NewSchedule([][]oryx.Mode{{}})
	assert.ErrorContains(t, err, "row 0 is empty")
	_, err = NewSchedule([][]oryx.Mode{{oryx.Linear, oryx.Mode(3)}})
	assert.ErrorContains(t, err, "row 0 position 1")
}

func TestDecodeMode(t *testing.T) {
	cases := []struct {
		spec           string
		pos, promptLen int
		want           oryx.Mode
	}{
		{"attention", 10, 10, oryx.Attention},
		{"A", 12, 10, oryx.Attention},
		{"linear", 10, 10, oryx.Linear},
		{"all-linear", 15, 10, oryx.Linear},
		{"attention-last:4", 10, 10, oryx.Attention},
		{"attention-last:0", 99, 10, oryx.Attention},
		{"prefill-attention", 10, 10, oryx.Linear},
		{"linear-until:12", 11, 10, oryx.Linear},
		{"linear-until:12", 12, 10, oryx.Attention},
		{"linear-until:5", 10, 10, oryx.Attention},
		{"A:0-9,L:10-19", 15, 10, oryx.Linear},
		{"L:0-9,A:10-19", 15, 10, oryx.Attention},
		{"L:0-9,A:10-19", 20, 10, oryx.Linear}, // beyond every range
		{"L:0-9,A:10-", 500, 10, oryx.Attention},
		{"A:10-,L:12", 12, 10, oryx.Linear}, // later wins
	}
	for _, c := range cases {
		m, err := decodeMode(c.spec, c.pos, c.promptLen)
		require.NoError(t, err, c.spec)
		assert.Equal(t, c.want, m, "decodeMode(%q, %d, %d)", c.spec, c.pos, c.promptLen)
	}
	for _, spec := range []string{"block", "block:64:0.5", "sequence:0.5"} {
		_, err := decodeMode(spec, 10, 10)
		assert.ErrorContains(t, err, "random schedules do not define generated-token modes", spec)
		assert.ErrorContains(t, err, `schedule "`+spec+`"`)
	}
	_, err := decodeMode("attention", 5, 10)
	assert.ErrorContains(t, err, "inside the prompt")
	_, err = decodeMode("attention", 5, -1)
	assert.ErrorContains(t, err, "promptLen")
	_, err = decodeMode("block:0", 10, 10)
	assert.ErrorContains(t, err, "block length must be > 0")
}
