#!/usr/bin/env bash
# The whole model next to a PyTorch peer, in one sitting (make bench-model-peer): Oryx-TG training tokens/s (the
# tiny study's 32 × 128 shape, the small preset's 16 × 256, the 130m preset's 4 × 512), prefill tokens/s (small, 2K
# and 8K prompt tokens; 130m, 2K) and decode ms/token (small and 130m, 256 / 4K / 16K tokens in the cache), on this
# project's backend (bench/modelpeer: XLA CPU from
# `make xla-cpu` when installed, with no environment variable set) and on PyTorch (scripts/peer_model.py:
# modeling_oryx.py of `oryx export`, the same weights, chunked linear mixers, float32, 2 threads, OpenBLAS); then
# one table with the ratio and each row's MFU against the machine's measured float32 matmul peak (the larger of
# the two implementations' 4096³ products). Expected duration on the 2-core VM: about 15 minutes for the small
# and tiny rows (most of it XLA compilation on a first run — compiled executables are kept across runs — and
# PyTorch's 8K prefill), not yet measured with the 130m rows (estimated 20–35 more minutes: 130m training steps
# of 2,048 tokens on both sides, a 16K-token fill before the last decode row).
#
#   scripts/bench-model-peer.sh [OUT_DIR]      (default results/bench-model-peer; raw JSON lines kept there)
#
# Environment: ROWS (KIND:PRESET:SHAPE,... see bench/modelpeer), REPS (timed repetitions, default 3),
# DECODE_STEPS (default 8), PYTHON (default /usr/bin/python3, with Debian's python3-torch), THREADS (default 2),
# OMP_WAIT (PyTorch's OpenMP wait policy, default passive: with "active" spin-waiting the peer ran 10-18× slower
# on a loaded machine; on a quiet one try OMP_WAIT=active too and keep the faster),
# SKIP_PEER=1 (this project only), GOMLX_BACKEND (default: the installed XLA CPU plugin, else pure Go).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-results/bench-model-peer}
ROWS=${ROWS:-train:tiny:32x128,train:small:16x256,prefill:small:2048,prefill:small:8192,decode:small:256,decode:small:4096,decode:small:16384,train:130m:4x512,prefill:130m:2048,decode:130m:256,decode:130m:4096,decode:130m:16384}
REPS=${REPS:-3}
DECODE_STEPS=${DECODE_STEPS:-8}
PYTHON=${PYTHON:-/usr/bin/python3}
THREADS=${THREADS:-2}
mkdir -p "$OUT" bin
OUT=$(cd "$OUT" && pwd)
if [[ -z "${GOMLX_BACKEND:-}" ]] && plugin=$(bash scripts/install-xla.sh cpu 2>/dev/null | tail -n 1) && [[ -n "$plugin" ]]; then
  export GOMLX_BACKEND="xla:$plugin"
fi
if [[ -z "${SKIP_PEER:-}" ]] && ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  echo "bench-model-peer.sh: $PYTHON cannot import torch: \`apt-get install python3-torch libopenblas0-pthread\`" \
    "(or set PYTHON, or SKIP_PEER=1)" >&2
  exit 1
fi
tags=
[[ "${GOMLX_BACKEND:-}" == xla:* ]] && tags="-tags xla"
go build $tags -o bin/modelpeer ./bench/modelpeer
echo "# bench-model-peer.sh $(date -u +%FT%TZ) on $(hostname): $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/log.txt" >&2
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) before oryx" | tee -a "$OUT/log.txt" >&2
env -u XLA_FLAGS -u GLIBC_TUNABLES ./bin/modelpeer --out "$OUT/models" --rows "$ROWS" --reps "$REPS" \
  --decode-steps "$DECODE_STEPS" | tee "$OUT/oryx.jsonl" >&2
: > "$OUT/torch.jsonl"
if [[ -z "${SKIP_PEER:-}" ]]; then
  echo "# load $(cut -d' ' -f1-3 /proc/loadavg) before torch (OMP_WAIT_POLICY=${OMP_WAIT:-passive})" | tee -a "$OUT/log.txt" >&2
  OMP_WAIT_POLICY=${OMP_WAIT:-passive} OMP_NUM_THREADS=$THREADS OPENBLAS_NUM_THREADS=$THREADS "$PYTHON" scripts/peer_model.py --exports "$OUT/models" \
    --rows "$ROWS" --reps "$REPS" --decode-steps "$DECODE_STEPS" --threads "$THREADS" | tee "$OUT/torch.jsonl" >&2
fi
echo "# done $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/log.txt" >&2
"$PYTHON" - "$OUT" <<'PY' | tee "$OUT/table.md"
import json, sys
out = sys.argv[1]
def read(name):
    rows, meta = {}, {}
    for line in open(f"{out}/{name}.jsonl"):
        r = json.loads(line)
        if "row" in r:
            rows[r["row"]] = r
        else:
            meta = r
    return rows, meta
oryx, om = read("oryx")
torch, tm = read("torch")
peak = max(om.get("peak_gflops", 0), tm.get("peak_gflops", 0))
print(f"oryx: {om.get('backend', '?')}, matmul peak {om.get('peak_gflops', 0):.1f} GFLOP/s; "
      f"torch: {tm.get('backend', 'not run')}, matmul peak {tm.get('peak_gflops', 0):.1f} GFLOP/s; "
      f"MFU against the larger, {peak:.1f} GFLOP/s\n")
print("| row | oryx | torch | oryx / torch | oryx MFU | torch MFU | params |")
print("|---|---|---|---|---|---|---|")
for name, o in oryx.items():
    t = torch.get(name, {})
    decode = name.startswith("decode")
    key, unit = ("ms_per_token", "ms/token") if decode else ("tok_s", "tok/s")
    ov, tv = o.get(key), t.get(key)
    ratio = "–"
    if ov and tv:
        ratio = f"{tv / ov:.2f}×" if decode else f"{ov / tv:.2f}×"
    mfu = lambda r: f"{100 * r['tok_s'] * o['flops_per_token'] / 1e9 / peak:.1f} %" if r.get("tok_s") and peak else "–"
    fmt = lambda v: "–" if v is None else (f"{v:,.2f} {unit}" if decode else f"{v:,.0f} {unit}")
    print(f"| {name} | {fmt(ov)} | {fmt(tv)} | {ratio} | {mfu(o)} | {mfu(t)} | {o['params']:,} |")
PY
echo "raw: $OUT/{oryx,torch}.jsonl, log $OUT/log.txt; table: $OUT/table.md" >&2
