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

// A memory limit and where it comes from.
type memLimit struct {
	bytes  int64
	source string // "" for MemTotal: "this machine has X"; else the limit's name
}

// MemoryLimit is HostMemory with where the limit comes from: "" for the machine's memory, else the name of
// the limit ("RLIMIT_AS", "cgroup memory.max", ...).
func MemoryLimit() (int64, string) {
	var best memLimit
	for _, l := range memoryLimits() {
		if l.bytes > 0 && (best.bytes == 0 || l.bytes < best.bytes) {
			best = l
		}
	}
	return best.bytes, best.source
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

// memoryLimit is MemoryLimit, replaceable in tests.
var memoryLimit = MemoryLimit

// CheckMemory refuses an estimate (bytes) above MemoryFraction of the memory this process may use
// (MemoryLimit), or negative (an overflow upstream), with an error naming what needs it and the limit. Where
// nothing is known only a negative estimate is refused.
func CheckMemory(what string, bytes int64) error {
	if bytes < 0 {
		return fmt.Errorf("%s: the memory estimate overflows", what)
	}
	host, source := memoryLimit()
	if host > 0 && float64(bytes) > MemoryFraction*float64(host) {
		where := ""
		if source != "" {
			where = " (the process's limit, " + source + ")"
		}
		return fmt.Errorf("%s needs ~%s of memory, this machine has %s%s", what, HumanBytes(bytes), HumanBytes(host), where)
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
