#!/usr/bin/env bash
# The real harness end to end (make lmeval-check): lm-evaluation-harness 0.4.13 itself, scoring an `oryx
# export` through the model adapter scripts/lmeval_oryx.py (which runs the export's own modeling_oryx.py in
# PyTorch), against `go run ./evals` on the same checkpoint, on the nine LM tasks with --limit 5: every
# metric must agree to 1e-6 (relative to max(1, |value|)), and the standard errors too.
#
#   scripts/lmeval-check.sh              # or: make lmeval-check (installs .pytools and torch first)
#
# The checkpoint is a tiny Oryx-TG with random weights (oryx init: byte tokenizer, vocab 320), exported,
# converted to float64 (scripts/lmeval_oryx.py convert) and imported back (`oryx import`), so that both
# sides compute in float64: scores are then equal to rounding, not to float32's 1e-6. Each schedule the
# check runs (SCHEDULES, default "attention linear"; any --schedule string of evals, and "mixed" for --mixed,
# e.g. SCHEDULES="mixed attention-last:4 budget:0.3:random budget:0.2:entropy A:0-9,L:10-") is the Go side's
# --schedule and the adapter's schedule= (scripts/oryx_schedule.py computes the same modes).
# Data: the HF-layout parquet sets ($ORYX_DATA, else a shared/data/hf found walking up), the first 5
# documents of each task. Work files: $LMEVAL_CHECK_DIR (default a new temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
root=${ORYX_DATA:-}
if [[ -z $root ]]; then
  d=$PWD
  while [[ $d != / ]]; do
    if [[ -d $d/shared/data/hf ]]; then root=$d/shared/data/hf; break; fi
    d=$(dirname "$d")
  done
fi
if [[ -z $root || ! -d $root ]]; then
  echo "lmeval-check: no data root: set ORYX_DATA to the folder of the HF-layout parquet sets (shared/data/hf)" >&2
  exit 2
fi
pytools=$(bash scripts/install-pytools.sh | tail -n 1)
torchpy=/usr/bin/python3
if ! $torchpy -c 'import torch' 2>/dev/null; then
  echo "lmeval-check: $torchpy does not import torch: run \`make torch\` (Debian's python3-torch)" >&2
  exit 2
fi
work=${LMEVAL_CHECK_DIR:-$(mktemp -d)}
mkdir -p "$work"
export PYTHONPATH=$pytools HF_HOME=$work/hf-home HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
tasks=${TASKS:-wikitext,lambada_openai,piqa,hellaswag,winogrande,arc_easy,arc_challenge,social_iqa,boolq}
limit=5
echo "lmeval-check: data $root, work files $work" >&2
go run ./cmd/oryx init --preset tiny --variant oryx-tg --out "$work/ckpt" --seed 1 >/dev/null
go run ./cmd/oryx export --checkpoint "$work/ckpt" --out "$work/export32" >/dev/null
$torchpy scripts/lmeval_oryx.py convert --dtype float64 "$work/export32" "$work/export"
go run ./cmd/oryx import --from "$work/export" --out "$work/ckpt64"
$torchpy scripts/lmeval_oryx.py tasks --data-root "$root" --out "$work/tasks"
status=0
for schedule in ${SCHEDULES:-attention linear}; do
  start=$(date +%s)
  name=${schedule//[^A-Za-z0-9_.-]/_}
  goflag=(--schedule "$schedule")
  [[ $schedule == mixed ]] && goflag=(--mixed)
  go run ./evals --checkpoint "$work/ckpt64" --tasks "$tasks" --limit $limit "${goflag[@]}" \
    --data-root "$root" --model oryx-check --out "$work/go-$name/run.json" --force >/dev/null
  mid=$(date +%s)
  $torchpy scripts/lmeval_oryx.py --model oryx --model_args "export=$work/export,dtype=float64,schedule=${schedule//,/;}" \
    --tasks "$tasks" --include_path "$work/tasks" --limit $limit \
    --output_path "$work/lmeval-$name" >"$work/lmeval-$name.log" 2>&1 ||
    { tail -n 30 "$work/lmeval-$name.log" >&2; exit 1; }
  end=$(date +%s)
  echo "lmeval-check: schedule $schedule: go run ./evals $((mid - start)) s, lm_eval $((end - mid)) s" >&2
  $torchpy scripts/lmeval_oryx.py compare "$work/go-$name/run.json" "$work/lmeval-$name" || status=1
done
exit $status
