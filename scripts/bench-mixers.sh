#!/usr/bin/env bash
# Mixer-core benchmarks side by side, in one sitting: layers' BenchmarkMixer on the pure-Go backend and on XLA
# CPU (built with -tags xla, XLA's default flags: XLA_FLAGS is cleared), then the PyTorch CPU peer
# (scripts/peer_mixers.py), for every mixer and T; prints one markdown table (tokens/s, XLA/peer, XLA/Go, XLA
# compile time per graph, peak memory) and keeps the raw outputs.
#
#   scripts/bench-mixers.sh [OUT_DIR]        (or: make bench-mixers-all; default OUT_DIR results/bench-mixers)
#
# Environment:
#   PLUGIN     XLA CPU PJRT plugin (default: the one `make xla-cpu` installed, .xla/cpu.plugin)
#   MIXERS     Go mixers (default "attention ssd ssd-dense gdn"; also ssd-scan, gdn-scan)
#   TS         sequence lengths (default "512 1024 2048"); B = 4, H = 4, head dims 64, chunk 64 are fixed
#   REPS       timed steady-state runs per graph after the first (default 3; the fastest is reported)
#   PEER_REPS  timed runs per peer row (default 5); PYTHON the interpreter with Debian's torch (/usr/bin/python3)
#   PEER_WAIT  OpenMP wait policies the peer runs under, the faster row is kept (default "passive active"; on a
#              loaded machine "active" spin-waiting is up to 10x slower, use PEER_WAIT=passive there)
#   XLA_TUNED  1 (default) adds a column "xla-tuned": the same XLA binary with glibc's allocator told to keep
#              freed memory (GLIBC_TUNABLES below): by default every execution's temp buffer (33–150 MiB here)
#              is mmapped and page-faulted afresh. 0 leaves it out.
#   SKIP_GO=1, SKIP_PEER=1  leave a column out
#
# Each Go graph runs in its own process (compile time and peak RSS are then per graph). Rows are interleaved by
# T (Go, XLA, peer for T = 512, then 1024, ...) so that all three see similar machine load; `uptime` is logged
# with every row. On a shared machine, rerun and take the best.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
OUT=${1:-results/bench-mixers}
MIXERS=${MIXERS:-attention ssd ssd-dense gdn}
TS=${TS:-512 1024 2048}
REPS=${REPS:-3}
PEER_REPS=${PEER_REPS:-5}
PYTHON=${PYTHON:-/usr/bin/python3}
PEER_WAIT=${PEER_WAIT:-passive active}
XLA_TUNED=${XLA_TUNED:-1}
# One malloc arena, no mmap for large blocks, no trimming: XLA's per-execution buffers are then reused from
# the heap instead of being mapped, faulted in and unmapped every run.
TUNABLES=glibc.malloc.arena_max=1:glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184
if [[ -z "${PLUGIN:-}" ]]; then
  if [[ -f .xla/cpu.plugin ]]; then PLUGIN=$(cat .xla/cpu.plugin); else PLUGIN=; fi
fi
if [[ -z "$PLUGIN" || ! -f "$PLUGIN" ]]; then
  echo "bench-mixers.sh: no XLA CPU plugin (PLUGIN=${PLUGIN:-unset}; .xla/cpu.plugin): run \`make xla-cpu\` first" >&2
  exit 1
fi
if [[ -z "${SKIP_PEER:-}" ]] && ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  echo "bench-mixers.sh: $PYTHON cannot import torch: \`apt-get install python3-torch libopenblas0-pthread\`" \
    "(or set PYTHON, or SKIP_PEER=1)" >&2
  exit 1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
raw=$OUT/raw.txt
: > "$raw"
log() { echo "$*" | tee -a "$raw" >&2; }

log "# bench-mixers.sh $(date -u +%FT%TZ) on $(hostname): $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
log "# MIXERS=$MIXERS TS=$TS REPS=$REPS PEER_REPS=$PEER_REPS PEER_WAIT=$PEER_WAIT XLA_TUNED=$XLA_TUNED PLUGIN=$PLUGIN"
go version | tee -a "$raw" >&2
go test -c -o "$OUT/layers-go.test" ./layers
go test -c -tags xla -o "$OUT/layers-xla.test" ./layers

# run_go LABEL BINARY GOMLX_BACKEND GLIBC_TUNABLES MIXER T PASS
run_go() {
  local label=$1 bin=$2 cfg=$3 tun=$4 mixer=$5 t=$6 pass=$7 pat
  pat="^BenchmarkMixer\$/^${mixer}\$/^T=${t}\$/^${pass/+/\\+}\$"
  log "# load $(cut -d' ' -f1-3 /proc/loadavg) before $label $mixer T=$t $pass"
  (cd "$root/layers" && env -u XLA_FLAGS ${tun:+GLIBC_TUNABLES=$tun} GOMLX_BACKEND="$cfg" "$bin" -test.run '^$' -test.bench "$pat" \
    -test.benchtime "${REPS}x" -test.timeout 60m 2>&1) | grep -E '^(Benchmark|backend:|--- FAIL|panic)' |
    sed "s/^/$label /" | tee -a "$raw" >&2
}

if [[ -z "${SKIP_PEER:-}" ]]; then
  log "# peer numerics check"
  OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-2} "$PYTHON" scripts/peer_mixers.py --check-only 2>&1 | tee -a "$raw" >&2
fi
for t in $TS; do
  for mixer in $MIXERS; do
    for pass in fwd fwd+bwd; do
      if [[ -z "${SKIP_GO:-}" ]]; then run_go go "$OUT/layers-go.test" "go:parallelism=-1" "" "$mixer" "$t" "$pass"; fi
      run_go xla "$OUT/layers-xla.test" "xla:$PLUGIN" "" "$mixer" "$t" "$pass"
      if [[ "$XLA_TUNED" == 1 ]]; then
        run_go xla-tuned "$OUT/layers-xla.test" "xla:$PLUGIN" "$TUNABLES" "$mixer" "$t" "$pass"
      fi
    done
  done
  if [[ -z "${SKIP_PEER:-}" ]]; then
    only=$(for m in $MIXERS; do echo "${m%%-*}"; done | sort -u | paste -sd, -)
    for wait in $PEER_WAIT; do
      log "# load $(cut -d' ' -f1-3 /proc/loadavg) before peer T=$t OMP_WAIT_POLICY=$wait"
      OMP_WAIT_POLICY=$wait OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-2} "$PYTHON" scripts/peer_mixers.py \
        --no-check --T "$t" --only "$only" --reps "$PEER_REPS" 2>>"$raw" |
        sed "s/^{/{\"omp_wait\": \"$wait\", /; s/^/peer /" | tee -a "$raw" >&2
    done
  fi
done
log "# done $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$PYTHON" scripts/mixers_table.py "$raw" | tee "$OUT/table.md"
echo "raw outputs: $raw; table: $OUT/table.md" >&2
