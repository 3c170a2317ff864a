#!/usr/bin/env bash
# The GPU check (make gpu-check), for a machine with an NVIDIA GPU, in under 15 minutes: the CUDA PJRT plugin,
# the layers suite on CUDA, decoding of the 130m Oryx-TG at 256 and 16,384 KV-cache slots (84 and 8,000 tokens
# in the cache) with the speculative auto decision at 16K, and the training MFU of the 130m recipe; then one
# summary with the card's name. Results go to BENCHMARKS.md by hand, with the card, the date and the commit.
#
#   scripts/gpu-check.sh [OUT_DIR]          (default results/gpu-check; every step's log is kept there)
#
# Steps and their time limits (the sum stays under 15 minutes, compiles included):
#   1. nvidia-smi: the card (name, memory, driver); none found → exit 1 (DRY_RUN=1 goes on).
#   2. The plugin: scripts/install-xla.sh cuda (jax-cuda13-pjrt, pip, once per machine; needs the package
#      index). Its CUDA 13 libraries (cuBLAS, cuDNN, nvJitLink, NVRTC, ptxas, libdevice): the system's when the
#      dynamic loader finds libcublas.so.13 (and ptxas is on PATH or under $CUDA_HOME), else
#      `pip install --target .xla/cuda-libs jax-cuda13-plugin[with-cuda]==0.12.0.1` (the versions JAX pins;
#      several GB, once) with LD_LIBRARY_PATH and XLA_FLAGS=--xla_gpu_cuda_data_dir set from what it installed.
#      go-xla's own CUDA check is turned off (GOPJRT_CUDA_CHECKS=0): it would point XLA at a path of its
#      author's machine (docs/gomlx.md).
#   3. go test -tags xla -short ./layers on CUDA (4 min).
#   4. BenchmarkDecode (oryx/infer) of the 130m preset, the linear-prefill paths, 10 steps each (4 min).
#   5. BenchmarkSpeculative at 16,384 slots, plain vs K = 2 vs auto's choice (2 min).
#   6. scripts/bench-train-xla.sh: 20 training steps of recipes/oryx-tg-130m, tokens/s and MFU against the
#      card's dense bf16 peak (H100/H200 989 TFLOP/s, A100 312; PEAK_TFLOPS overrides; unknown card: auto,
#      the measured float32 matmul rate) (3 min).
#
# Environment: DRY_RUN=1 prints every command instead of running it (no GPU needed); GPU_CHECK_CPU=1 runs the
# same steps on the XLA CPU plugin with the small preset and 3 training steps of the tiny recipe — the check of
# this script on a machine without a GPU (its figures mean nothing); PEAK_TFLOPS; PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-results/gpu-check}
DRY=${DRY_RUN:-0}
CPU=${GPU_CHECK_CPU:-0}
PYTHON=${PYTHON:-python3}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
started=$(date +%s)

say() { echo "gpu-check: $*" >&2; }
# step NAME LIMIT_S CMD...: runs CMD under a time limit, its output in $OUT/NAME.log; a failed or timed-out
# step is reported and the check goes on.
step() {
  local name=$1 limit=$2
  shift 2
  say "[$name] $* (limit ${limit}s, log $OUT/$name.log)"
  [[ $DRY == 1 ]] && return 0
  local t0=$(date +%s) rc=0
  timeout --kill-after=10 "$limit" "$@" > "$OUT/$name.log" 2>&1 || rc=$?
  echo "$name: exit $rc after $(( $(date +%s) - t0 )) s" >> "$OUT/steps.txt"
  if [[ $rc != 0 ]]; then
    say "[$name] FAILED (exit $rc; 124 = timed out); the end of $OUT/$name.log:"
    tail -n 20 "$OUT/$name.log" >&2
  fi
}
# bench_table LOG: each benchmark line of a go test -bench log as its name and its metrics (value unit ...).
bench_table() {
  awk '/^Benchmark/ { line = $1; for (i = 5; i < NF; i += 2) line = line "  " $i " " $(i+1); print line }' "$1" || true
}
: > "$OUT/steps.txt"

# 1. The card.
card="XLA CPU (GPU_CHECK_CPU=1: no GPU)"
if [[ $CPU != 1 ]]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi >/dev/null 2>&1; then
    card=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -n 1)
  elif [[ $DRY == 1 ]]; then
    card="(dry run: no GPU)"
  else
    say "no NVIDIA GPU found (nvidia-smi missing or failing): this check needs one (GPU_CHECK_CPU=1 runs it on XLA CPU)"
    exit 1
  fi
fi
say "card: $card"

# 2. The plugin and the CUDA libraries.
if [[ $CPU == 1 ]]; then
  plugin=$(bash scripts/install-xla.sh cpu | tail -n 1)
  preset=small
else
  preset=130m
  if [[ $DRY == 1 ]]; then
    plugin=$PWD/.xla/cuda/jax_plugins/xla_cuda13/xla_cuda_plugin.so
    say "+ bash scripts/install-xla.sh cuda"
  else
    plugin=$(bash scripts/install-xla.sh cuda | tail -n 1)
  fi
  export GOPJRT_CUDA_CHECKS=0
  if ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.13'; then
    libs=$PWD/.xla/cuda-libs
    if [[ ! -f $libs/.installed ]]; then
      say "+ $PYTHON -m pip install --target $libs jax-cuda13-plugin[with-cuda]==0.12.0.1 (the CUDA 13 libraries JAX uses)"
      if [[ $DRY != 1 ]]; then
        rm -rf "$libs.tmp"
        PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore "$PYTHON" -m pip install --quiet --no-compile \
          --target "$libs.tmp" "jax-cuda13-plugin[with-cuda]==0.12.0.1" >&2
        touch "$libs.tmp/.installed" && rm -rf "$libs" && mv -T "$libs.tmp" "$libs"
      fi
    fi
    if [[ -d $libs/nvidia ]]; then
      libdirs=$(find "$libs/nvidia" -name 'lib*.so*' -printf '%h\n' | sort -u | paste -sd:)
      export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      ptxas=$(find "$libs/nvidia" -name ptxas -type f | head -n 1)
      [[ -n $ptxas ]] && export XLA_FLAGS="--xla_gpu_cuda_data_dir=$(dirname "$(dirname "$ptxas")")${XLA_FLAGS:+ $XLA_FLAGS}"
    fi
  elif [[ -n ${CUDA_HOME:-} ]]; then
    export XLA_FLAGS="--xla_gpu_cuda_data_dir=$CUDA_HOME${XLA_FLAGS:+ $XLA_FLAGS}"
  fi
fi
export GOMLX_BACKEND="xla:$plugin"
export ORYX_XLA_CACHE=${ORYX_XLA_CACHE:-$OUT/xla-cache} ORYX_XLA_CACHE_MIN_COMPILE=0s # a rerun loads its programs
say "backend $GOMLX_BACKEND; XLA_FLAGS=${XLA_FLAGS:-}; LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"

# 3. The layers suite.
step layers 240 go test -tags xla -short -count=1 ./layers

# 4. Decoding along the user's paths (linear prefill: the cheapest fill), 256 and 16,384 slots.
if [[ $CPU == 1 ]]; then decode="small:256,16384"; fills="84,2000"; else decode="130m:256,16384"; fills="84,8000"; fi
step decode 240 env ORYX_BENCH_DECODE="$decode" ORYX_BENCH_FILL="$fills" \
  go test -tags xla ./oryx/infer -run '^$' -bench 'Decode$/.*/prefill=linear/' -benchtime 10x -timeout 10m

# 5. Speculative decoding at 16K slots: plain, K = 2, and the auto decision (random weights: the acceptance
# says nothing, the costs do).
step speculative 120 env ORYX_BENCH_CONTEXTS=16384 ORYX_BENCH_K=2 ORYX_BENCH_TOKENS=32 \
  go test -tags xla ./oryx/infer -run '^$' -bench 'Speculative' -benchtime 1x -timeout 10m

# 6. Training MFU of the 130m recipe.
if [[ $CPU == 1 ]]; then
  step train 300 env PJRT="$plugin" RECIPE=oryx-tg-tiny STEPS=3 BATCH=4 MICRO=4 PEAK_TFLOPS=auto bash scripts/bench-train-xla.sh
else
  peak=${PEAK_TFLOPS:-}
  if [[ -z $peak ]]; then
    case "$card" in
      *H100*|*H200*) peak=989 ;;
      *A100*) peak=312 ;;
      *) peak=auto ;;
    esac
  fi
  step train 240 env PJRT="$plugin" RECIPE=oryx-tg-130m STEPS=20 BATCH=16 MICRO=16 PEAK_TFLOPS="$peak" \
    bash scripts/bench-train-xla.sh
fi

[[ $DRY == 1 ]] && { say "dry run: nothing was run"; exit 0; }
{
  echo "# gpu-check $(date -u +%FT%TZ), $(git rev-parse --short HEAD), card: $card, $(( $(date +%s) - started )) s"
  echo
  cat "$OUT/steps.txt"
  echo
  echo "## layers on the card"
  grep -E '^(ok|FAIL|---)' "$OUT/layers.log" || true
  echo
  echo "## decode ($decode, fills $fills)"
  bench_table "$OUT/decode.log"
  echo
  echo "## speculative at 16K"
  bench_table "$OUT/speculative.log"
  grep -E 'speculative auto' "$OUT/speculative.log" || true
  echo
  echo "## training"
  grep -E 'tokens/s steady|PEAK_TFLOPS' "$OUT/train.log" || true
} | tee "$OUT/summary.md"
say "summary: $OUT/summary.md"
