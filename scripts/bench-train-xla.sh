#!/usr/bin/env bash
# Short training benchmark on XLA/PJRT (GPUs): builds the recipe with -tags xla and trains STEPS steps on the
# synthetic corpus, then prints steady tokens/s, achieved model TFLOP/s and MFU against PEAK_TFLOPS.
#
#   PJRT=/abs/path/pjrt_c_api_cuda_plugin.so [RECIPE=oryx-tg-130m] [DEVICES=1] [STEPS=30] [BATCH=16] \
#   [MICRO=16] [PEAK_TFLOPS=989] scripts/bench-train-xla.sh        # (or: make bench-train-xla PJRT=...)
#
# PEAK_TFLOPS is the accelerator's dense bf16 peak per device (H100/H200 SXM 989, A100 312).
set -euo pipefail
: "${PJRT:?set PJRT to the absolute path of a PJRT plugin (.so)}"
RECIPE=${RECIPE:-oryx-tg-130m}
DEVICES=${DEVICES:-1}
STEPS=${STEPS:-30}
BATCH=${BATCH:-16}
MICRO=${MICRO:-$BATCH}
PEAK_TFLOPS=${PEAK_TFLOPS:-989}
cd "$(dirname "$0")/.."
mkdir -p bin
go build -tags xla -o "bin/$RECIPE" "./recipes/$RECIPE"
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
