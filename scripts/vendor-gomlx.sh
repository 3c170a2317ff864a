#!/usr/bin/env bash
# Rebuilds (or, with --check, verifies) third_party/gomlx: GoMLX v0.26.0 as the Go module proxy serves it (the
# module cache's copy, its hash checked below), without its documentation, examples, Docker files and repository
# tooling, formatted by gofmt, plus the project's patch third_party/gomlx.patch (third_party/PATCHES.md says what
# it changes and why). go.mod points the module there: `replace github.com/gomlx/gomlx => ./third_party/gomlx`.
#
#   scripts/vendor-gomlx.sh           # recreate third_party/gomlx from the module cache + the patch
#   scripts/vendor-gomlx.sh --check   # exit 1 if third_party/gomlx differs from pristine + patch
#   scripts/vendor-gomlx.sh --diff    # print the diff pristine → third_party/gomlx (to refresh the patch file)
set -euo pipefail
cd "$(dirname "$0")/.."
version=v0.26.0
mode=${1:-}
# The module's hash as the checksum database records it (go.sum had it before the replace).
sum=h1:ra0MtgdUh2rgor3aNodcqeGGJqPLrot3yBm0UqG+lbI=
# The pristine module: `go mod download` fetches it (or finds it in the module cache) and reports its hash.
info=$(GOFLAGS=-mod=mod go mod download -json "github.com/gomlx/gomlx@$version")
src=$(echo "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
got=$(echo "$info" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p')
if [[ -z "$src" || ! -d "$src" ]]; then
  echo "vendor-gomlx.sh: could not download github.com/gomlx/gomlx@$version" >&2
  exit 1
fi
if [[ "$got" != "$sum" ]]; then
  echo "vendor-gomlx.sh: github.com/gomlx/gomlx@$version has hash $got, want $sum" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Not vendored: what no Go package of the module needs.
(cd "$src" && tar --exclude=./docs --exclude=./examples --exclude=./docker --exclude=./.github \
  --exclude=./.dockerignore --exclude=./.gitignore --exclude=./.golangci.yml --exclude=./.sccignore \
  --exclude='*.ipynb' -cf - .) | (mkdir -p "$tmp/pristine" && cd "$tmp/pristine" && tar xf -)
chmod -R u+w "$tmp/pristine"
# gofmt of this Go version (import order, comment layout) so that `gofmt -l .` stays clean in the repository;
# it changes no code, and none of the files the patch touches.
gofmt -w "$tmp/pristine"
case "$mode" in
  --diff)
    cp -r "$tmp/pristine" "$tmp/a" && cp -r third_party/gomlx "$tmp/b"
    (cd "$tmp" && diff -ruN a b | sed -E 's/^(---|\+\+\+) ([^\t]*)\t.*/\1 \2/') || true
    ;;
  --check)
    cp -r "$tmp/pristine" "$tmp/patched"
    (cd "$tmp/patched" && patch -s -p1 < "$OLDPWD/third_party/gomlx.patch")
    if diff -r "$tmp/patched" third_party/gomlx >/dev/null; then
      echo "third_party/gomlx = github.com/gomlx/gomlx@$version + third_party/gomlx.patch"
    else
      echo "vendor-gomlx.sh: third_party/gomlx differs from github.com/gomlx/gomlx@$version + third_party/gomlx.patch:" >&2
      diff -r "$tmp/patched" third_party/gomlx >&2 || true
      exit 1
    fi
    ;;
  "")
    cp -r "$tmp/pristine" "$tmp/patched"
    (cd "$tmp/patched" && patch -s -p1 < "$OLDPWD/third_party/gomlx.patch")
    rm -rf third_party/gomlx
    cp -r "$tmp/patched" third_party/gomlx
    echo "third_party/gomlx: github.com/gomlx/gomlx@$version + third_party/gomlx.patch"
    ;;
  *) echo "usage: scripts/vendor-gomlx.sh [--check|--diff]" >&2; exit 2 ;;
esac
