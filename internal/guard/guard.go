// Package guard is the one resource guard of the project's entry points (oryx init/generate/info, the
// recipes, the evals): sane upper bounds on every size a user or a file can set, overflow-checked integer
// arithmetic for steps, tokens and capacities, and a check of a memory estimate against this machine's
// memory — all before anything is allocated, so that a hostile or mistyped size is a clear error naming the
// flag or field instead of a Go "fatal error: out of memory", a negative count or a run that never ends.
package guard

import (
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
)

// Bounds of model and run sizes. They are far above anything this project trains (the largest preset has
// vocab 50304, d_model 2048, 24 layers, 16 heads, MLP 5888), yet low enough that no single bound, nor the
// product of a few, can overflow an int64 or describe a tensor no machine holds.
const (
	MaxVocab     = 1 << 22 // 4.2M tokens (the largest public LM vocabularies are ~256K)
	MaxDModel    = 1 << 15 // residual width
	MaxLayers    = 1 << 10
	MaxHeads     = 1 << 10
	MaxHeadDim   = 1 << 12 // key_dim, value_dim
	MaxMLPHidden = 1 << 18
	MaxChunk     = 1 << 14 // chunk length of the chunked linear mixers
	MaxConvWidth = 1 << 6  // causal depthwise conv taps
	MaxSeqLen    = 1 << 24 // tokens in one sequence, KV-cache capacity, generated tokens per prompt
	MaxBatch     = 1 << 20 // sequences per step or per model call
	MaxParams    = 1 << 40 // ~1.1T parameters: beyond it no estimate below means anything
)

// Check returns an error naming what unless lo ≤ v ≤ hi.
func Check(what string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s: %d is out of range [%d, %d]", what, v, lo, hi)
	}
	return nil
}

// Mul returns a·b and whether it fits an int64 (both operands ≥ 0).
func Mul(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// MulAll is Mul over several operands.
func MulAll(xs ...int64) (int64, bool) {
	p := int64(1)
	for _, x := range xs {
		var ok bool
		if p, ok = Mul(p, x); !ok {
			return 0, false
		}
	}
	return p, true
}

// Add returns a+b and whether it fits an int64 (both operands ≥ 0).
func Add(a, b int64) (int64, bool) {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return 0, false
	}
	return a + b, true
}

// HostMemory is the memory this process may use, in bytes (0 where nothing is known): the smallest of the
// machine's memory (MemTotal), the process's address-space and data limits (RLIMIT_AS, RLIMIT_DATA) and its
// control group's limit (cgroup v2 memory.max, v1 memory.limit_in_bytes). MemoryLimit says which it is.
func HostMemory() int64 {
	b, _ := MemoryLimit()
	return b
}

// A memory limit, where it comes from, and how much of it this process already holds.
type memLimit struct {
	bytes  int64
	source string // "" for MemTotal: "this machine has X"; else the limit's name
	// inUse is what the process holds already against an rlimit: its address space (VmSize) for RLIMIT_AS,
	// its data segment (VmData) for RLIMIT_DATA; 0 for the others. A Go process reserves about 1.5 GiB of
	// address space before it allocates anything (the runtime's arenas, thread stacks, the C allocator's
	// arenas), all of which counts against RLIMIT_AS.
	inUse int64
}

// free is what is left of the limit for new allocations.
func (l memLimit) free() int64 { return max(l.bytes-l.inUse, 0) }

// MemoryLimit is HostMemory with where the limit comes from: "" for the machine's memory, else the name of
// the limit ("RLIMIT_AS", "cgroup memory.max", ...).
func MemoryLimit() (int64, string) {
	l := tightestLimit()
	return l.bytes, l.source
}

// tightestLimit is the known limit with the least left for new allocations (bytes 0 where none is known).
func tightestLimit() memLimit {
	var best memLimit
	for _, l := range memoryLimits() {
		if l.bytes > 0 && (best.bytes == 0 || l.free() < best.free()) {
			best = l
		}
	}
	return best
}

// memTotal is MemTotal from /proc/meminfo in bytes (0 where it is unknown).
func memTotal() int64 { return procKB("/proc/meminfo", "MemTotal:") }

// PeakRSS is the process's peak resident set size (VmHWM from /proc/self/status) in bytes, 0 where it is
// unknown.
func PeakRSS() int64 { return procKB("/proc/self/status", "VmHWM:") }

// procKB reads the "key: N kB" line of a /proc file in bytes (0 where the file or the line is missing).
func procKB(file, key string) int64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// MemoryFraction is the share of the machine's memory an estimate may use before CheckMemory refuses it.
const MemoryFraction = 0.9

// memoryLimit is tightestLimit, replaceable in tests.
var memoryLimit = tightestLimit

// CheckMemory refuses an estimate (bytes) above MemoryFraction of the memory this process may still use
// (the tightest limit, less what the process already holds of an address-space or data limit), or negative
// (an overflow upstream), with an error naming what needs it and the limit. Where nothing is known only a
// negative estimate is refused.
func CheckMemory(what string, bytes int64) error {
	if bytes < 0 {
		return fmt.Errorf("%s: the memory estimate overflows", what)
	}
	l := memoryLimit()
	if l.bytes > 0 && float64(bytes) > MemoryFraction*float64(l.free()) {
		where := ""
		switch {
		case l.source != "" && l.inUse > 0:
			where = fmt.Sprintf(" (the process's limit, %s, %s of it in use)", l.source, HumanBytes(l.inUse))
		case l.source != "":
			where = " (the process's limit, " + l.source + ")"
		}
		return fmt.Errorf("%s needs ~%s of memory, this machine has %s%s", what, HumanBytes(bytes), HumanBytes(l.bytes), where)
	}
	return nil
}

// HumanBytes formats a byte count in KiB, MiB, GiB or TiB.
func HumanBytes(b int64) string {
	switch {
	case b >= 1<<40:
		return fmt.Sprintf("%.1f TiB", float64(b)/(1<<40))
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", b/1024)
}
