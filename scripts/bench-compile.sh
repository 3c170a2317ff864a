#!/usr/bin/env bash
# Compile cost per command on XLA CPU (make bench-compile): wall seconds of `oryx selfcheck`, of `oryx generate`
# (small Oryx-TG, random weights, 32 tokens) and of the tiny Oryx-TG's first two training steps in the study's
# shape (32 × 128), each run three ways: without the persistent compilation cache (ORYX_XLA_CACHE=off: every
# graph compiled, as before it existed), with an empty cache (compiled and stored) and with the cache warm (a
# second run: loaded). Prints a markdown table. About 5 minutes on the 2-core VM.
#
#   scripts/bench-compile.sh [OUT_DIR]        (default results/bench-compile; the cache and run dirs live there)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-results/bench-compile}
plugin=$(bash scripts/install-xla.sh cpu | tail -n 1)
export GOMLX_BACKEND="xla:$plugin"
mkdir -p "$OUT" bin
OUT=$(cd "$OUT" && pwd)
go build -tags xla -o bin/oryx ./cmd/oryx
go build -tags xla -o bin/oryx-tg-tiny ./recipes/oryx-tg-tiny
rm -rf "$OUT/cache" "$OUT/ckpt"
ORYX_XLA_CACHE=off ./bin/oryx init --preset small --variant oryx-tg --out "$OUT/ckpt" >/dev/null
declare -A cmds=(
  [selfcheck]="./bin/oryx selfcheck"
  [generate]="./bin/oryx generate --checkpoint $OUT/ckpt --prompt hello --max-tokens 32"
  [train]="./bin/oryx-tg-tiny --out $OUT/run --steps 2 --warmup 1 --seq-len 128 --batch 32 --micro-batch 32 --block-len 32 --eval-every 1000 --checkpoint-every 1000 --data mix:synth=1,mqar=2,needle=1,pairs=8"
)
echo "# bench-compile.sh $(date -u +%FT%TZ) on $(hostname): $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "| command | cache off s | cache empty s | cache warm s | load before |"
echo "|---|---|---|---|---|"
for name in selfcheck generate train; do
  row="| $name"
  load=$(cut -d' ' -f1 /proc/loadavg)
  for cache in off "$OUT/cache" "$OUT/cache"; do
    rm -rf "$OUT/run"
    start=$(date +%s.%N)
    ORYX_XLA_CACHE=$cache ${cmds[$name]} > "$OUT/$name.log" 2>&1
    row+=" | $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
  done
  echo "$row | $load |"
done
echo "cache: $OUT/cache ($(du -sh "$OUT/cache" | cut -f1))" >&2
