#!/usr/bin/env bash
# Rebuilds (or, with --check, verifies) the patched dependencies under third_party/ (third_party/PATCHES.md says
# what each patch changes and why; go.mod replaces the modules with these directories):
#
#   third_party/gomlx   github.com/gomlx/gomlx v0.26.0 + third_party/gomlx.patch
#   third_party/go-xla  github.com/gomlx/go-xla v0.1.4 + third_party/go-xla.patch
#
# Each is the module as the Go module proxy serves it (the module cache's copy, its hash checked against the one
# below), without its documentation, examples and repository tooling (Docker, CI, lint and ignore files,
# notebooks), formatted by gofmt (so that `gofmt -l .` stays clean here; it changes layout only, and no file a
# patch touches), plus the patch.
#
#   scripts/vendor-patched.sh [NAME...]          # recreate third_party/NAME (default: all) from the cache + patch
#   scripts/vendor-patched.sh --check [NAME...]  # exit 1 if third_party/NAME differs from pristine + patch
#   scripts/vendor-patched.sh --diff NAME        # print the diff pristine → third_party/NAME (to refresh a patch)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=
case "${1:-}" in --check|--diff) mode=$1; shift ;; esac
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(gomlx go-xla)

# module NAME → path, version and the hash the checksum database records for it (go.sum had them before the
# replace directives).
module() {
  case "$1" in
    gomlx)  echo "github.com/gomlx/gomlx v0.26.0 h1:ra0MtgdUh2rgor3aNodcqeGGJqPLrot3yBm0UqG+lbI=" ;;
    go-xla) echo "github.com/gomlx/go-xla v0.1.4 h1:7u1RcRBuCBZefQcmcQXSrJ9PmpxXMbmszmDT4dubibw=" ;;
    *) echo "vendor-patched.sh: unknown module '$1' (want gomlx or go-xla)" >&2; exit 2 ;;
  esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# pristine NAME DIR: the published module, trimmed and formatted, into DIR.
pristine() {
  local path version sum info src got
  read -r path version sum <<<"$(module "$1")"
  info=$(GOFLAGS=-mod=mod go mod download -json "$path@$version")
  src=$(echo "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  got=$(echo "$info" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p')
  if [[ -z "$src" || ! -d "$src" ]]; then
    echo "vendor-patched.sh: could not download $path@$version" >&2
    exit 1
  fi
  if [[ "$got" != "$sum" ]]; then
    echo "vendor-patched.sh: $path@$version has hash $got, want $sum" >&2
    exit 1
  fi
  mkdir -p "$2"
  (cd "$src" && tar --exclude=./docs --exclude=./examples --exclude=./docker --exclude=./.github \
    --exclude=./.dockerignore --exclude=./.gitignore --exclude=./.golangci.yml --exclude=./.sccignore \
    --exclude='*.ipynb' -cf - .) | (cd "$2" && tar xf -)
  chmod -R u+w "$2"
  gofmt -w "$2"
}

for name in "${names[@]}"; do
  read -r path version _ <<<"$(module "$name")"
  pristine "$name" "$tmp/$name.a"
  case "$mode" in
    --diff)
      cp -r "third_party/$name" "$tmp/$name.b"
      (cd "$tmp" && diff -ruN "$name.a" "$name.b" |
        sed -E "s#^(---|\+\+\+) $name\.(a|b)/([^\t]*)\t.*#\1 \2/\3#; s#^diff -ruN $name\.a/(\S*) $name\.b/(\S*)#diff -ruN a/\1 b/\2#") || true
      ;;
    --check)
      (cd "$tmp/$name.a" && patch -s -p1 < "$OLDPWD/third_party/$name.patch")
      if diff -r "$tmp/$name.a" "third_party/$name" >/dev/null; then
        echo "third_party/$name = $path@$version + third_party/$name.patch"
      else
        echo "vendor-patched.sh: third_party/$name differs from $path@$version + third_party/$name.patch:" >&2
        diff -r "$tmp/$name.a" "third_party/$name" >&2 || true
        exit 1
      fi
      ;;
    "")
      (cd "$tmp/$name.a" && patch -s -p1 < "$OLDPWD/third_party/$name.patch")
      rm -rf "third_party/$name"
      cp -r "$tmp/$name.a" "third_party/$name"
      echo "third_party/$name: $path@$version + third_party/$name.patch"
      ;;
  esac
done
