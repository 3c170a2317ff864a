#!/usr/bin/env bash
# Short training benchmark on XLA/PJRT: builds the recipe with -tags xla and trains STEPS steps on the
# synthetic corpus, then prints steady tokens/s, achieved model TFLOP/s and MFU against PEAK_TFLOPS.
#
#   [PJRT=/abs/path/plugin.so] [RECIPE=oryx-tg-130m] [DEVICES=1] [STEPS=30] [BATCH=16] [MICRO=16] \
#   [PEAK_TFLOPS=989|auto] scripts/bench-train-xla.sh               # (or: make bench-train-xla ...)
#
# GPUs: PJRT=$(make -s xla-cuda) PEAK_TFLOPS=989 (the accelerator's dense bf16 peak per device: H100/H200 SXM
# 989, A100 312). Without PJRT the XLA CPU plugin of `make xla-cpu` is used, and PEAK_TFLOPS defaults to
# "auto": the backend's float32 matmul rate measured by the recipe's plan probe (a 4096³ product), so that MFU
# on a CPU is against what its matmul really reaches.
set -euo pipefail
cd "$(dirname "$0")/.."
PJRT=${PJRT:-$(bash scripts/install-xla.sh cpu | tail -n 1)}
RECIPE=${RECIPE:-oryx-tg-130m}
DEVICES=${DEVICES:-1}
STEPS=${STEPS:-30}
BATCH=${BATCH:-16}
MICRO=${MICRO:-$BATCH}
PEAK_TFLOPS=${PEAK_TFLOPS:-auto}
mkdir -p bin
go build -tags xla -o "bin/$RECIPE" "./recipes/$RECIPE"
if [[ $PEAK_TFLOPS == auto ]]; then
  gflops=$(GOMLX_BACKEND="xla:$PJRT" "./bin/$RECIPE" --plan --tokenizer bytes 2>/dev/null |
    sed -n 's/.*"probe_matmul_gflops": \([0-9.e+-]*\).*/\1/p')
  PEAK_TFLOPS=$(awk -v g="$gflops" 'BEGIN { printf "%.4f", g / 1000 }')
  echo "PEAK_TFLOPS=auto: measured float32 matmul peak ${gflops} GFLOP/s per device" >&2
fi
out=$(mktemp -d)
GOMLX_BACKEND="xla:$PJRT" "./bin/$RECIPE" --data synth --tokenizer bytes --steps "$STEPS" --warmup 5 \
  --batch "$BATCH" --micro-batch "$MICRO" --devices "$DEVICES" --eval-batches 1 --checkpoint-every 0 \
  --out "$out/run" > "$out/summary.json"
steady=$(sed -n 's/.*"steady_tokens_per_s": \([0-9.e+-]*\).*/\1/p' "$out/summary.json")
tflops=$(sed -n 's/.*"achieved_tflops": \([0-9.e+-]*\).*/\1/p' "$out/summary.json")
rss=$(sed -n 's/.*"peak_rss_bytes": \([0-9]*\).*/\1/p' "$out/summary.json")
awk -v r="$RECIPE" -v d="$DEVICES" -v s="$steady" -v t="$tflops" -v p="$PEAK_TFLOPS" -v m="$rss" 'BEGIN {
  printf "%s on %d device(s): %.0f tokens/s steady, %.2f model TFLOP/s, MFU %.1f%% of %g TFLOP/s per device, host peak RSS %.1f GiB\n",
    r, d, s, t, 100 * t / (p * d), p, m / 2^30 }'
echo "run directory: $out/run"
