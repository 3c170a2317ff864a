#!/usr/bin/env bash
# Installs the pinned Python packages the interoperability tests use into the project-local, git-ignored
# directory .pytools (pip --target: nothing system-wide, no venv), the same mechanism as the XLA plugin
# (scripts/install-xla.sh). Prints the directory as the last line; tests find it there (walking up from
# their working directory) and put it on PYTHONPATH. Idempotent: when the pinned set is there it installs
# nothing. The tree itself is kept once per machine in the user's cache and .pytools links to it
# (scripts/toolcache.sh; ORYX_TOOL_CACHE=off installs into .pytools itself): a fresh clone links it
# instead of spending 100 s in pip.
#
#   scripts/install-pytools.sh     # make py-tools
#
# What is in it, and which tests use it:
#   - safetensors (the reference reader of the format): oryx/hf reads `oryx export` files with it;
#   - lm-evaluation-harness 0.4.13, installed without its dependencies (it would pull torch and
#     transformers), and the packages its result, sample and task code imports (datasets with pyarrow and
#     pandas, pytablewriter, sqlitedict, sacrebleu, ...): evals/leaderboard and evals/evalrun check the
#     project's results and samples files with lm-eval's own code (make_table, EvaluationTracker, the
#     Zeno loaders), and generate lm-eval results files for `evals merge`; scripts/lmeval-check.sh runs
#     lm_eval itself;
#   - transformers 4.44 and tokenizers (without dependencies: the ones above serve): oryx/hf checks that
#     AutoModelForCausalLM loads an export through its modeling_oryx.py.
# numpy is pinned to 1.26: Debian's python3-torch 1.13 (the torch the tests run, `make torch`) is built
# against numpy 1.x and fails with numpy 2 on its path. The wheels are for the Python version of the
# python3 that runs pip (PYTHON, default python3); use one with the same major.minor version as
# /usr/bin/python3 (Debian's, with torch), which the torch tests run with this directory on PYTHONPATH.
set -euo pipefail
cd "$(dirname "$0")/.."
deps=(numpy==1.26.4 safetensors==0.8.0 datasets==3.6.0 pyarrow==19.0.1 pandas==2.2.3 huggingface_hub==0.30.2
  pytablewriter==1.2.1 sqlitedict==2.1.0 more_itertools==10.7.0 jinja2==3.1.6 pyyaml==6.0.2 sacrebleu==2.5.1
  word2number==1.1 dill==0.3.8 tqdm==4.67.1 regex==2024.11.6)
nodeps=(lm_eval==0.4.13 transformers==4.44.2 tokenizers==0.19.1)
source scripts/toolcache.sh
key=$(echo "${deps[*]} ${nodeps[*]}" | sha256sum | cut -c1-16)
tool_tree pytools "$key" "$PWD/.pytools"
dir=$tool_dir
stamp=$dir/.installed-$key
python=${PYTHON:-python3}
# The wheels are for one Python version (.python's second line): another python3 installs again.
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
if [[ ! -f $stamp || ( -n $pyver && $(sed -n 2p "$dir/.python" 2>/dev/null) != "$pyver" ) ]]; then
  if ! command -v "$python" >/dev/null || ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "scripts/install-pytools.sh: needs python3 with pip to fetch ${deps[*]} ${nodeps[*]} from the Python" \
      "package index; the tests that use them skip without it" >&2
    exit 3
  fi
  echo "installing ${nodeps[*]} (without dependencies) and ${deps[*]} into $dir (pip --target) ..." >&2
  start=$(date +%s)
  tmp=$dir.tmp.$$
  rm -rf "$tmp" "$tmp.nodeps"
  export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
  # The two sets are independent (--no-deps): two pips at once, one mostly waiting on the network.
  "$python" -m pip install --quiet --no-compile --no-deps --target "$tmp.nodeps" "${nodeps[@]}" >&2 &
  nodeps_pid=$!
  "$python" -m pip install --quiet --no-compile --target "$tmp" "${deps[@]}" >&2
  wait $nodeps_pid
  for f in "$tmp.nodeps"/*; do
    [[ $(basename "$f") == bin ]] || mv "$f" "$tmp/"
  done
  mkdir -p "$tmp/bin" && cp -r "$tmp.nodeps/bin/." "$tmp/bin/" 2>/dev/null || true
  rm -rf "$tmp.nodeps"
  "$python" -c 'import sys; print(sys.executable); print("%d.%d" % sys.version_info[:2])' >"$tmp/.python"
  touch "$tmp/.installed-$key"
  rm -rf "$dir"
  mv -T "$tmp" "$dir"
  echo "installed in $(( $(date +%s) - start )) s" >&2
fi
echo "$PWD/.pytools"
