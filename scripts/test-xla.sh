#!/usr/bin/env bash
# The test suite on XLA CPU (make test-xla): installs the pinned plugin if needed (make xla-cpu), then runs
# `go test -tags xla` on every package whose tests reach a backend (those that import internal/backend,
# directly or not; the others compute nothing on a backend and run in the pure-Go suite alone), with:
#   - XLA's fast-compile settings: the suite compiles hundreds of small graphs once each, and XLA CPU takes
#     2-8 s per compile on 2 cores; LLVM's optimisation level 0 halves that. The HLO passes (fusion, layout)
#     are XLA's usual ones, so the numerics tested are those of the fused graphs. Benchmarks use the defaults.
#   - 4 host devices (--xla_force_host_platform_device_count=4) for the data-parallel tests.
#   - a compilation cache of the suite's own (ORYX_XLA_CACHE, a temporary directory removed at the end; an
#     ORYX_XLA_CACHE the caller sets wins, `off` included): a test that compiles a program an earlier test (or
#     an earlier package, or a child process) compiled loads it instead: a resumed training, the same model
#     trained again in another test. Loading gives the executable compiling gives (same program, options,
#     plugin, XLA_FLAGS and processor: third_party/PATCHES.md), so the numerics tested are the same; only the
#     compiler's time is saved. Test binaries never use the user's cache (internal/backend/xla_cache.go).
#   - -short unless XLA_FULL=1: the heaviest sweeps (every variant × every schedule) run one representative
#     case each on XLA; `XLA_FULL=1 make test-xla` runs them all.
# Extra `go test` arguments come from the command line: scripts/test-xla.sh -run TestX -v; PKGS chooses the
# packages instead of every backend package: PKGS=./recipes/train scripts/test-xla.sh -run '^TestX$' -count=1
set -euo pipefail
cd "$(dirname "$0")/.."
plugin=$(bash scripts/install-xla.sh cpu | tail -n 1)
export GOMLX_BACKEND="xla:$plugin"
# The allocator the project's commands set for XLA when they are loaded (oryx/xlamalloc, which test binaries do
# not import): four arenas, no mmap for large blocks, no trimming, here through glibc's own variable (a
# GLIBC_TUNABLES or ORYX_XLA_MALLOC=default in the environment keeps what it says).
if [[ -z ${GLIBC_TUNABLES+set} && ${ORYX_XLA_MALLOC:-} != default ]]; then
  export GLIBC_TUNABLES=glibc.malloc.arena_max=4:glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=2147483647
fi
export XLA_FLAGS="--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true --xla_force_host_platform_device_count=4${XLA_FLAGS:+ $XLA_FLAGS}"
# `go list -test` also lists test variants ("pkg [pkg.test]", "pkg_test [pkg.test]", "pkg.test"): fold them
# into their package, keeping those whose code or tests depend on internal/backend.
pkgs=${PKGS:-$(go list -tags xla -test -f '{{.ImportPath}} {{join .Deps " "}}' ./... |
  awk '{ p = $1; sub(/_test$/, "", p) }
       p ~ /[.]test$/ { next }
       p ~ /\/internal\/backend$/ || / github.com\/oryx-go\/oryx\/internal\/backend( |$)/ { print p }' | sort -u)}
short=-short timeout=40m
[[ ${XLA_FULL:-0} == 1 ]] && short= timeout=120m
echo "test-xla: $GOMLX_BACKEND"
echo "test-xla: XLA_FLAGS=$XLA_FLAGS"
if [[ -z ${ORYX_XLA_CACHE+set} ]]; then
  ORYX_XLA_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/oryx-test-xla-cache.XXXXXX")
  trap 'rm -rf "$ORYX_XLA_CACHE"' EXIT
fi
export ORYX_XLA_CACHE
# Keep every executable (not only those that took ≥ 0.5 s, the commands' default): with the fast-compile flags
# most of the suite's graphs compile in 0.1–0.5 s, and loading one is faster than compiling it again.
export ORYX_XLA_CACHE_MIN_COMPILE=${ORYX_XLA_CACHE_MIN_COMPILE:-0s}
echo "test-xla: ORYX_XLA_CACHE=$ORYX_XLA_CACHE"
# -p 1: XLA CPU compiles with all cores; two test binaries compiling at once only thrash on 2 cores.
go test -tags xla -p 1 -timeout $timeout $short "$@" $pkgs
