package guard

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestArithmetic(t *testing.T) {
	for _, c := range []struct {
		a, b, prod int64
		ok         bool
	}{
		{0, math.MaxInt64, 0, true},
		{3, 5, 15, true},
		{1 << 31, 1 << 31, 1 << 62, true},
		{1 << 32, 1 << 31, 0, false},                        // 2^63 does not fit
		{math.MaxInt64, 256, 0, false},                      // --steps 9223372036854775807 × 256 tokens per step
		{-1, 5, 0, false},                                   // negative operands are refused, not wrapped
		{3037000499, 3037000499, 9223372030926249001, true}, // ⌊√MaxInt64⌋²
	} {
		p, ok := Mul(c.a, c.b)
		require.Equal(t, c.ok, ok, "%d × %d", c.a, c.b)
		require.Equal(t, c.prod, p, "%d × %d", c.a, c.b)
	}
	p, ok := MulAll(2, 3, 7)
	require.True(t, ok)
	require.Equal(t, int64(42), p)
	_, ok = MulAll(1<<40, 1<<20, 1<<4)
	require.False(t, ok)

	s, ok := Add(math.MaxInt64-1, 1)
	require.True(t, ok)
	require.Equal(t, int64(math.MaxInt64), s)
	_, ok = Add(math.MaxInt64, 1) // --max-tokens 9223372036854775807 plus a prompt
	require.False(t, ok)
	_, ok = Add(-3, 1)
	require.False(t, ok)
}

func TestCheck(t *testing.T) {
	require.NoError(t, Check("d_model", 768, 1, MaxDModel))
	require.EqualError(t, Check("d_model", 1e9, 1, MaxDModel), "d_model: 1000000000 is out of range [1, 32768]")
	require.EqualError(t, Check("heads", 0, 1, MaxHeads), "heads: 0 is out of range [1, 1024]")
}

func TestCheckMemory(t *testing.T) {
	old := memoryLimit
	defer func() { memoryLimit = old }()
	memoryLimit = func() memLimit { return memLimit{bytes: 10 << 30} }
	require.NoError(t, CheckMemory("the weights", 9<<30))
	require.EqualError(t, CheckMemory("the weights", 10<<30), "the weights needs ~10.0 GiB of memory, this machine has 10.0 GiB")
	require.EqualError(t, CheckMemory("the KV cache", -1), "the KV cache: the memory estimate overflows")
	// An address-space limit counts what the process already holds: 10 GiB with 4 GiB mapped leaves 6 GiB.
	memoryLimit = func() memLimit { return memLimit{bytes: 10 << 30, source: "RLIMIT_AS", inUse: 4 << 30} }
	require.NoError(t, CheckMemory("the weights", 5<<30))
	require.EqualError(t, CheckMemory("the weights", 6<<30),
		"the weights needs ~6.0 GiB of memory, this machine has 10.0 GiB (the process's limit, RLIMIT_AS, 4.0 GiB of it in use)")
	memoryLimit = func() memLimit { return memLimit{} } // unknown: only overflow is refused
	require.NoError(t, CheckMemory("the weights", 1<<50))
}

func TestHostMemory(t *testing.T) {
	if HostMemory() == 0 {
		t.Skip("no /proc/meminfo on this system")
	}
	require.Greater(t, HostMemory(), int64(1<<20))
}
