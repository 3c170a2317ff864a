//go:build xla && linux && cgo

package xlamalloc

/*
#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

static int oryx_malloc_tuned;

// Runs when the program is loaded, before the Go runtime starts and before any thread has allocated: glibc
// fixes its arena limit the first time a second thread needs an arena, so a later mallopt(M_ARENA_MAX) can come
// too late (that is why mallopt at Go init did not reproduce the environment variable's effect).
__attribute__((constructor)) static void oryx_tune_malloc(void) {
	const char *mode = getenv("ORYX_XLA_MALLOC");
	if (mode != NULL && strcmp(mode, "default") == 0) {
		return;
	}
	if (getenv("GLIBC_TUNABLES") != NULL) {
		return; // the user (or make) chose the allocator's settings
	}
	mallopt(M_ARENA_MAX, 4);
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	oryx_malloc_tuned = 1;
}

static int oryx_malloc_was_tuned(void) { return oryx_malloc_tuned; }
*/
import "C"

import "github.com/oryx-go/oryx/internal/xlaalloc"

func init() { xlaalloc.Tuned = mallocTuned }

// mallocTuned reports whether this process set glibc's allocator for XLA at load time (see the C constructor
// above): at most four arenas, no mmap for large blocks, no trimming — what GLIBC_TUNABLES=glibc.malloc.
// arena_max=4:glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=… does. XLA CPU mallocs each execution's
// temporary buffers (tens to hundreds of MiB); by default glibc serves each from a fresh mmap and unmaps it on
// free, so every execution pays the kernel's page faults again (a quarter of the CPU time of the mixer
// benchmarks, docs/history.md §8.9). The cost: the process keeps its peak C heap until it exits. The Go heap is not
// affected.
//
// Four arenas, not one (2026-12-05, docs/history.md §8.7): with a single arena, a process
// that compiled its executables itself (no persistent cache, or a cold one: a user's first run) trained at half
// the speed of one that loaded them — the tiny Oryx-TG 15–17K against 33K tokens/s — the compiler's freed
// heap left in the one arena that XLA's worker threads all lock: perf showed 12 % of the process in
// _int_malloc and 9 % in the kernel's lock wake-ups, against 3 % and 1 % with four arenas. Four arenas train
// at 27–32K tokens/s compiling in process and 32–34K from the cache; the mixers' fwd+bwd at T = 2048 are
// faster too (SSD 142–159K → 166–180K tokens/s, GDN 32–39K → 51–56K). Two arenas measured like four; glibc's
// default (8 per core) trained slower from the cache (28K).
// ORYX_XLA_MALLOC=default keeps glibc's defaults; a GLIBC_TUNABLES in the environment is left to decide.
func mallocTuned() bool { return C.oryx_malloc_was_tuned() != 0 }
