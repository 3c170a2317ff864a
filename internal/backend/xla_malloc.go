//go:build xla && linux

package backend

/*
#include <malloc.h>
#include <limits.h>
*/
import "C"

import "os"

// tuneMalloc makes glibc's allocator keep freed memory for reuse in XLA builds. XLA CPU allocates its
// temporary buffers (tens to hundreds of MiB per execution) with malloc; by default glibc serves each from a
// fresh mmap and unmaps it on free, so every execution pays the kernel's page faults again: 24–26 % of
// steady-state CPU time in the mixer benchmarks (perf). No mmap for large blocks, no trimming and one arena
// cut SSD fwd+bwd at T=2048 from 170–180 to 117–126 CPU ms (BENCHMARKS.md). The cost: the process keeps
// its peak C heap until it exits, which is what a training or evaluation run does anyway. The Go heap is
// not affected (Go does not use malloc). ORYX_XLA_MALLOC=default keeps glibc's defaults.
func tuneMalloc() {
	if os.Getenv("ORYX_XLA_MALLOC") == "default" {
		return
	}
	C.mallopt(C.M_ARENA_MAX, 1)
	C.mallopt(C.M_MMAP_MAX, 0)
	C.mallopt(C.M_TRIM_THRESHOLD, C.INT_MAX)
}
