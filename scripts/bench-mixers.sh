#!/usr/bin/env bash
# Mixer-core benchmarks side by side, in one sitting: layers' BenchmarkMixer on the pure-Go backend and on XLA
# CPU (built with -tags xla, XLA's default flags: XLA_FLAGS is cleared; no other environment variable, i.e. what a
# user of the library gets), then the PyTorch CPU peer
# (scripts/peer_mixers.py), for every mixer and T; prints one markdown table (tokens/s, XLA/peer, XLA/Go, XLA
# compile time per graph, peak memory) and keeps the raw outputs.
#
#   scripts/bench-mixers.sh [OUT_DIR]        (or: make bench-mixers-all; default OUT_DIR results/bench-mixers)
#
# Environment:
#   PLUGIN     XLA CPU PJRT plugin (default: the one `make xla-cpu` installed, .xla/cpu.plugin)
#   MIXERS     Go mixers (default "attention ssd ssd-loop gdn": ssd is the default form, layers.Auto = the dense
#              chunk-segsum on XLA and the loop on pure Go; also ssd-dense, ssd-scan, gdn-scan)
#   TS         sequence lengths (default "512 1024 2048"); B = 4, H = 4, head dims 64, chunk 64 are fixed
#   REPS       timed steady-state runs per graph after the first (default 3; the fastest is reported)
#   PEER_REPS  timed runs per peer row (default 5); PYTHON the interpreter with Debian's torch (/usr/bin/python3)
#   PEER_WAIT  OpenMP wait policies the peer runs under, the faster row is kept (default "passive active"; on a
#              loaded machine "active" spin-waiting is up to 10x slower, use PEER_WAIT=passive there)
#   XLA_GLIBC  1 adds a column "xla-glibc": the same XLA binary with ORYX_XLA_MALLOC=default, i.e. glibc's
#              default allocator settings, which the binaries otherwise change at load time (every execution's
#              temp buffer, 33–150 MiB here, is then mmapped and page-faulted afresh). Default 0.
#   SKIP_GO=1, SKIP_PEER=1  leave a column out
#
# Each Go graph runs in its own process (compile time and peak RSS are then per graph). Rows are interleaved by
# T (Go, XLA, peer for T = 512, then 1024, ...) so that all three see similar machine load; `uptime` is logged
# with every row. On a shared machine, rerun and take the best.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
OUT=${1:-results/bench-mixers}
MIXERS=${MIXERS:-attention ssd ssd-loop gdn}
TS=${TS:-512 1024 2048}
REPS=${REPS:-3}
PEER_REPS=${PEER_REPS:-5}
PYTHON=${PYTHON:-/usr/bin/python3}
PEER_WAIT=${PEER_WAIT:-passive active}
XLA_GLIBC=${XLA_GLIBC:-0}
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
log "# MIXERS=$MIXERS TS=$TS REPS=$REPS PEER_REPS=$PEER_REPS PEER_WAIT=$PEER_WAIT XLA_GLIBC=$XLA_GLIBC PLUGIN=$PLUGIN"
go version | tee -a "$raw" >&2
go test -c -o "$OUT/layers-go.test" ./layers
go test -c -tags xla -o "$OUT/layers-xla.test" ./layers

# run_go LABEL BINARY GOMLX_BACKEND ORYX_XLA_MALLOC MIXER T PASS
run_go() {
  local label=$1 bin=$2 cfg=$3 malloc=$4 mixer=$5 t=$6 pass=$7 pat
  pat="^BenchmarkMixer\$/^${mixer}\$/^T=${t}\$/^${pass/+/\\+}\$"
  log "# load $(cut -d' ' -f1-3 /proc/loadavg) before $label $mixer T=$t $pass"
  (cd "$root/layers" && env -u XLA_FLAGS -u GLIBC_TUNABLES -u ORYX_XLA_MALLOC ${malloc:+ORYX_XLA_MALLOC=$malloc} GOMLX_BACKEND="$cfg" "$bin" -test.run '^$' -test.bench "$pat" \
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
      if [[ "$XLA_GLIBC" == 1 ]]; then
        run_go xla-glibc "$OUT/layers-xla.test" "xla:$PLUGIN" default "$mixer" "$t" "$pass"
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
