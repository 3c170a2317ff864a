#!/usr/bin/env bash
# XLA CPU vs pure Go, side by side in one sitting (make bench-xla-vs-go): training tokens/s per variant (tiny:
# 16 × 256 tokens a step; 130m: 1 × 512), decode ms/token of the Oryx-TG 130m preset at 256 and 4096 tokens of
# context, first-step (compile) seconds and peak RSS, from the same benchmark binaries run once per backend.
# XLA runs with its default flags. Prints the raw benchmark lines and a summary table.
#
#   scripts/bench-xla-vs-go.sh                 # everything (about 30 min on 2 cores; the pure-Go 130m rows dominate)
#   BENCH_130M=0 scripts/bench-xla-vs-go.sh    # tiny training only
#   TRAIN_BENCH='TrainStep/tiny/ TrainStep/130m/oryx-tg$' ...   # subsets: space-separated -bench patterns
set -euo pipefail
cd "$(dirname "$0")/.."
plugin=$(bash scripts/install-xla.sh cpu | tail -n 1)
mkdir -p bin
go test -tags xla -c -o bin/recipe-bench.test ./recipes/train
go test -tags xla -c -o bin/oryx-bench.test ./oryx/infer
out=${OUT_DIR:-$(mktemp -d)}
export BENCH_130M=${BENCH_130M:-1}
for be in go xla; do
  if [[ $be == go ]]; then cfg=go:parallelism=-1; else cfg="xla:$plugin"; fi
  echo "== $cfg (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  : > "$out/train-$be.txt"
  for pattern in ${TRAIN_BENCH:-TrainStep}; do
    GOMLX_BACKEND=$cfg XLA_FLAGS= ./bin/recipe-bench.test -test.run '^$' -test.bench "$pattern" \
      -test.benchtime "${TRAIN_STEPS:-3}x" -test.timeout 90m | tee -a "$out/train-$be.txt" >&2
  done
  if [[ $BENCH_130M == 1 ]]; then
    GOMLX_BACKEND=$cfg XLA_FLAGS= ./bin/oryx-bench.test -test.run '^$' -test.bench 'Decode/130m-oryx-tg/context=(256|4096)/' \
      -test.benchtime "${DECODE_STEPS:-10}x" -test.timeout 60m | tee "$out/decode-$be.txt" >&2
  fi
done
python3 - "$out" <<'PY'
import re, sys, os
out = sys.argv[1]
def parse(path):
    rows = {}
    if not os.path.exists(path):
        return rows
    for line in open(path):
        if not line.startswith("Benchmark"):
            continue
        name = re.sub(r"-\d+$", "", line.split()[0])
        metrics = dict((u, float(v)) for v, u in re.findall(r"([\d.e+-]+) ([\w/%-]+)", line))
        rows[name] = metrics
    return rows
for kind, metric in (("train", "tok/s"), ("decode", "ms/token")):
    go, xla = parse(f"{out}/{kind}-go.txt"), parse(f"{out}/{kind}-xla.txt")
    if not go and not xla:
        continue
    print(f"\n| {kind} | pure Go {metric} | XLA CPU {metric} | XLA / Go speed-up | first step s (Go / XLA) | peak RSS MiB (Go / XLA) |")
    print("|---|---|---|---|---|---|")
    for name in sorted(set(go) | set(xla)):
        g, x = go.get(name, {}), xla.get(name, {})
        gv, xv = g.get(metric), x.get(metric)
        ratio = "–"
        if gv and xv:
            ratio = f"{xv / gv:.1f}×" if metric == "tok/s" else f"{gv / xv:.1f}×"
        fmt = lambda v: "–" if v is None else f"{v:,.1f}"
        print(f"| {name.removeprefix('Benchmark')} | {fmt(gv)} | {fmt(xv)} | {ratio} | "
              f"{fmt(g.get('first-step-s'))} / {fmt(x.get('first-step-s'))} | {fmt(g.get('peak-RSS-MiB'))} / {fmt(x.get('peak-RSS-MiB'))} |")
PY
echo "raw results: $out" >&2
