#!/usr/bin/env bash
# Installs a pinned XLA PJRT plugin from the Python package index into the project-local, git-ignored
# directory .xla/<kind> (pip --target: nothing system-wide, no venv needed, no Python at run time), records its
# absolute path in .xla/<kind>.plugin and prints that path as the last line. Idempotent: when the pinned
# version is already there it installs nothing and prints the same path.
#
#   scripts/install-xla.sh cpu    # XLA's CPU plugin (make xla-cpu)
#   scripts/install-xla.sh cuda   # XLA's CUDA 13 plugin for NVIDIA GPUs (make xla-cuda)
#
# Binaries built with `-tags xla` pick up .xla/cpu.plugin by themselves when GOMLX_BACKEND is unset (walking
# up from the working directory); the CUDA plugin is chosen explicitly: GOMLX_BACKEND=xla:$(make -s xla-cuda).
# The installed tree is kept once per machine in the user's cache and .xla/<kind> links to it
# (scripts/toolcache.sh; ORYX_TOOL_CACHE=off installs into .xla/<kind> itself).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/install-xla.sh cpu|cuda}
case "$kind" in
  # xla-cpu-pjrt 0.0.1: XLA's CPU client as a PJRT C API plugin (API 0.81). Chosen over
  # lammps-jax-pjrt-cpu 0.11.2 (API 0.115), which also loads and passes; see docs/backends.md for why.
  cpu)  pkg=xla-cpu-pjrt; version=0.0.1; so=xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so ;;
  # jax-cuda13-pjrt: the plugin JAX uses for CUDA 13; it needs the NVIDIA driver and CUDA 13 libraries
  # (cuBLAS, cuDNN, ...) on the machine, as for JAX itself.
  cuda) pkg=jax-cuda13-pjrt; version=0.12.0.1; so=jax_plugins/xla_cuda13/xla_cuda_plugin.so ;;
  *) echo "scripts/install-xla.sh: unknown plugin kind '$kind' (want cpu or cuda)" >&2; exit 2 ;;
esac
source scripts/toolcache.sh
tool_tree "$pkg" "$version" "$PWD/.xla/$kind"
dir=$tool_dir
plugin=$PWD/.xla/$kind/$so
stamp=$dir/.installed-$pkg-$version
if [[ ! -f $stamp || ! -f $plugin ]]; then
  python=${PYTHON:-python3}
  if ! command -v "$python" >/dev/null || ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "scripts/install-xla.sh: needs python3 with pip to fetch $pkg==$version from the Python package index" \
      "(or set GOMLX_BACKEND=xla:/abs/path/plugin.so to a plugin you have); use 'make test-go' without it" >&2
    exit 3
  fi
  echo "installing $pkg==$version into $dir (pip --target, project-local) ..." >&2
  tmp=$dir.tmp.$$
  rm -rf "$tmp"
  PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
    "$python" -m pip install --quiet --no-deps --no-compile --target "$tmp" "$pkg==$version" >&2
  if [[ ! -f $tmp/$so ]]; then
    echo "scripts/install-xla.sh: $pkg==$version installed no $so" >&2
    exit 1
  fi
  touch "$tmp/.installed-$pkg-$version"
  rm -rf "$dir"
  mv -T "$tmp" "$dir"
fi
# Binaries trust the pointer only when others cannot write it (internal/backend/plugin.go): whatever the umask.
echo "$plugin" > "$PWD/.xla/$kind.plugin.tmp" && chmod 0644 "$PWD/.xla/$kind.plugin.tmp" && mv "$PWD/.xla/$kind.plugin.tmp" "$PWD/.xla/$kind.plugin"
echo "$plugin"
