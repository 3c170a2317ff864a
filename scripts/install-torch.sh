#!/usr/bin/env bash
# Makes sure /usr/bin/python3 imports torch: Debian's python3-torch (1.13, CPU, with OpenBLAS), installed
# with apt-get when it is missing and this runs as root on a machine with apt-get (`make test` runs it; the
# download is about 200 MB, 880 MB installed). The PyTorch tests (the exported modeling_oryx.py against the
# Go model, oryx/hf; the lm-eval harness check, scripts/lmeval-check.sh) run with it and skip without it.
# The PyTorch wheels of the Python package index are CUDA builds with gigabytes of dependencies: not used.
#
#   scripts/install-torch.sh      # make torch
set -euo pipefail
python=/usr/bin/python3
if [[ -x $python ]] && $python -c 'import torch' 2>/dev/null; then
  echo "torch $($python -c 'import torch; print(torch.__version__)') for $python"
  exit 0
fi
if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
  echo "scripts/install-torch.sh: $python does not import torch, and installing Debian's python3-torch needs root" \
    "and apt-get (apt-get install -y python3-torch python3-numpy libopenblas0-pthread); run \`make test-go\`" \
    "instead, where the PyTorch tests skip" >&2
  exit 3
fi
echo "installing Debian's python3-torch (apt-get; about 200 MB) ..." >&2
start=$(date +%s)
apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch python3-numpy libopenblas0-pthread >/dev/null
echo "installed in $(( $(date +%s) - start )) s: torch $($python -c 'import torch; print(torch.__version__)') for $python" >&2
