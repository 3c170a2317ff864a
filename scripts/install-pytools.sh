#!/usr/bin/env bash
# Installs the pinned Python packages the interoperability tests read the project's exports with — the
# safetensors package and numpy — into the project-local, git-ignored directory .pytools (pip --target:
# nothing system-wide, no venv), the same mechanism as the XLA plugin (scripts/install-xla.sh). Prints the
# directory as the last line; tests find it there (walking up from their working directory) and put it on
# PYTHONPATH. Idempotent: when the pinned versions are there it installs nothing.
#
#   scripts/install-pytools.sh     # make py-tools
set -euo pipefail
cd "$(dirname "$0")/.."
# safetensors 0.8.0 (the reference reader of the format) and numpy 2.2.6 (its numpy framework; wheels for
# CPython 3.10–3.13).
pkgs=(safetensors==0.8.0 numpy==2.2.6)
dir=$PWD/.pytools
stamp=$dir/.installed-$(IFS=-; echo "${pkgs[*]}")
if [[ ! -f $stamp ]]; then
  python=${PYTHON:-python3}
  if ! command -v "$python" >/dev/null || ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "scripts/install-pytools.sh: needs python3 with pip to fetch ${pkgs[*]} from the Python package index;" \
      "the tests that use them skip without it" >&2
    exit 3
  fi
  echo "installing ${pkgs[*]} into $dir (pip --target, project-local) ..." >&2
  rm -rf "$dir.tmp"
  PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
    "$python" -m pip install --quiet --no-compile --target "$dir.tmp" "${pkgs[@]}" >&2
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
  touch "$stamp"
fi
echo "$dir"
