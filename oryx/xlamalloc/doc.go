// Package xlamalloc sets glibc's allocator for XLA CPU when the program is loaded, in binaries built with
// -tags xla on Linux with cgo (elsewhere it does nothing): at most four arenas, no mmap for large blocks, no
// trimming — what GLIBC_TUNABLES=glibc.malloc.arena_max=4:glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=…
// does. XLA CPU mallocs each execution's temporaries (tens to hundreds of MiB) and with glibc's defaults pays
// the kernel's page faults for them every time (a quarter of the CPU time of the mixer benchmarks,
// BENCHMARKS.md). The cost: the process keeps its peak C heap until it exits.
//
// It is a process-wide change made before main runs, so it is opt-in by import: the project's commands
// (cmd/oryx, the recipes, evals, tiny-study) and benchmark test binaries import it,
//
//	import _ "github.com/oryx-go/oryx/oryx/xlamalloc"
//
// and a program that imports the library gets glibc's allocator as it is unless it does the same.
// ORYX_XLA_MALLOC=default, or a GLIBC_TUNABLES in the environment, keeps the allocator as it is even then.
// The backend's announcement (oryx.Setup) says when it was set.
package xlamalloc
