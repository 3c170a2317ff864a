#!/usr/bin/env bash
# The decoding figures in one quiet sitting (decode paths, the speculative auto decision, the model peer) (run it on an otherwise idle machine; the load is
# printed before and after every part): about an hour on the 2-core VM, most of it XLA compiling on a first run
# (the programs are kept in $OUT/xla-cache, so a rerun is much shorter), then one table.
#
#   scripts/bench-decode-sitting.sh [OUT_DIR]      (default results/decode-sitting; raw logs kept there)
#
#   1. BenchmarkDecode (oryx/infer) on XLA CPU, the 130m Oryx-TG: engines of 256 and 16,384 slots, prompts of 84
#      and 8,000 tokens read in attention / linear / mixed modes, each stepped in attention / linear /
#      alternating schedules: wall and CPU ms/token per path, the first step's ms (a new cache bucket's compile).
#      Targets: a linear step at 16,384 slots within 1.1× of 256 and the fastest path; an attention step with
#      84 tokens in 16,384 slots within 1.2× of 256 slots.
#   2. The speculative auto decision: BenchmarkSpeculative (small Oryx-TG, random weights: the costs hold, the
#      acceptance does not) at 8,192 and 16,384 slots, plain vs K = 2, 4 vs auto (its choice printed), on XLA CPU
#      and on pure Go.
#   3. make bench-model-peer with the 130m rows (training 4 × 512, prefill 2K, decode at 256 / 4K / 16K tokens in
#      the cache) beside PyTorch, MFU against the matmul peak measured in the same run.
#
# Environment: SKIP_PEER=1 skips part 3's PyTorch side (bench-model-peer.sh's variable), PARTS="1 2 3" picks parts,
# DECODE (default 130m:256,16384), FILLS (84,8000), SPEC_CONTEXTS (8192,16384) and ROWS (bench-model-peer's)
# shrink it for a check of the script,
# BASE=<git rev> also runs bench/modelpeer's 130m rows as of that revision (oryx only), for a before/after in the
# same sitting (e.g. BASE=8656cff, the commit before the decode work).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-results/decode-sitting}
PARTS=${PARTS:-1 2 3}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
plugin=$(bash scripts/install-xla.sh cpu | tail -n 1)
xla="xla:$plugin"
export ORYX_XLA_CACHE=${ORYX_XLA_CACHE:-$OUT/xla-cache} ORYX_XLA_CACHE_MIN_COMPILE=0s
load() { echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$OUT/log.txt" >&2; }
load "start on $(hostname), $(nproc) CPUs, $(git rev-parse --short HEAD)"

if [[ " $PARTS " == *" 1 "* ]]; then
  load "part 1: BenchmarkDecode, 130m, XLA CPU"
  GOMLX_BACKEND=$xla ORYX_BENCH_DECODE="${DECODE:-130m:256,16384}" ORYX_BENCH_FILL="${FILLS:-84,8000}" \
    go test -tags xla ./oryx/infer -run '^$' -bench 'Decode$' -benchtime 10x -timeout 120m | tee "$OUT/decode.log" >&2
fi
if [[ " $PARTS " == *" 2 "* ]]; then
  for be in xla go; do
    load "part 2: BenchmarkSpeculative, $be"
    if [[ $be == xla ]]; then env=(GOMLX_BACKEND=$xla); tags=(-tags xla); else env=(GOMLX_BACKEND=go:parallelism=-1); tags=(); fi
    env "${env[@]}" ORYX_BENCH_CONTEXTS="${SPEC_CONTEXTS:-8192,16384}" ORYX_BENCH_K=2,4 ORYX_BENCH_TOKENS=64 \
      go test "${tags[@]}" ./oryx/infer -run '^$' -bench 'Speculative' -benchtime 2x -timeout 120m |
      tee "$OUT/speculative-$be.log" >&2
  done
fi
if [[ " $PARTS " == *" 3 "* ]]; then
  load "part 3: make bench-model-peer (130m rows included)"
  bash scripts/bench-model-peer.sh "$OUT/model-peer" >&2
  if [[ -n ${BASE:-} ]]; then
    load "part 3: bench/modelpeer at $BASE (oryx only)"
    tmp=$(mktemp -d)
    git archive "$BASE" | tar -x -C "$tmp"
    (cd "$tmp" && go build -tags xla -o "$OUT/modelpeer-base" ./bench/modelpeer)
    rm -rf "$tmp"
    GOMLX_BACKEND=$xla "$OUT/modelpeer-base" --out "$OUT/base-models" --reps 3 \
      --rows train:130m:4x512,prefill:130m:2048,decode:130m:256,decode:130m:4096,decode:130m:16384 | tee "$OUT/base.jsonl" >&2
  fi
fi
load "done"

# One table: every benchmark line as its path and metrics, then the model peer's table.
{
  echo "# decode sitting, $(git rev-parse --short HEAD), $(nproc) CPUs; loads in $OUT/log.txt"
  cat "$OUT/log.txt"
  for f in decode speculative-xla speculative-go; do
    [[ -f $OUT/$f.log ]] || continue
    echo
    echo "## $f"
    echo
    echo "| path | metrics |"
    echo "|---|---|"
    awk '/^Benchmark/ { m = ""; for (i = 5; i < NF; i += 2) m = m $i " " $(i+1) "; "; print "| " $1 " | " m " |" }' "$OUT/$f.log"
    grep -h '^context=.*speculative auto' "$OUT/$f.log" | sed 's/^/- /' || true
  done
  if [[ -f $OUT/model-peer/table.md ]]; then
    echo
    echo "## bench-model-peer"
    echo
    cat "$OUT/model-peer/table.md"
  fi
  if [[ -f $OUT/base.jsonl ]]; then
    echo
    echo "## bench/modelpeer at $BASE (130m rows, oryx)"
    echo
    cat "$OUT/base.jsonl"
  fi
} | tee "$OUT/table.md"
echo "table: $OUT/table.md" >&2
