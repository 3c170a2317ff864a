#!/usr/bin/env bash
# The package as a library (make consumer-check): builds a Go module outside this repository that requires
# github.com/oryx-go/oryx (a `replace` to this checkout) and runs its smoke program (scripts/consumer/main.go.txt:
# the tiny Oryx-TG preset → logits, the prefill and one decode step, each equal to the parallel forward), in a
# temporary directory that is removed at the end:
#
#   upstream  the module as an importer gets it by default: upstream GoMLX v0.26.0 and go-xla v0.1.4 (this
#             repository's replace directives apply only when it is the main module)
#   patched   with the go.mod stanza third_party/PATCHES.md documents for importers (the patched GoMLX and
#             go-xla of third_party/): in-place buffer donation and the persistent compilation cache
#
# each built without and with -tags xla (the latter when cgo works and an XLA CPU plugin is installed: `make
# xla-cpu`, or GOMLX_BACKEND=xla:/abs/path/plugin.so). Each binary runs twice. First as an importer that asks
# the library for nothing: it must print nothing on standard error and write nothing in its cache directory
# (XDG_CACHE_HOME, a fresh folder: no compilation cache unless asked). Then asking for the announcement
# (oryx.Setup, ORYX_CONSUMER_ANNOUNCE=1; that run only creates the backend): one "backend:" line, and on XLA
# the upstream build must say, once, that it runs without in-place donation and how to get it; the patched
# build must not.
#
#   scripts/consumer-check.sh [upstream|patched ...] [--tags "" xla]
#
# Needs the module cache or GOPROXY for the dependencies (CI: the network). Nothing is written to the checkout.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
export PATH="/usr/local/go/bin:$PATH"
variants=() tagsets=()
while (($#)); do
  case $1 in
    upstream|patched) variants+=("$1"); shift ;;
    --tags) shift; while (($#)) && [[ $1 != upstream && $1 != patched ]]; do tagsets+=("$1"); shift; done ;;
    *) echo "consumer-check: unknown argument '$1' (want upstream, patched, --tags \"\" xla)" >&2; exit 2 ;;
  esac
done
((${#variants[@]})) || variants=(upstream patched)
((${#tagsets[@]})) || tagsets=("" xla)

plugin=
if [[ -n ${GOMLX_BACKEND:-} ]]; then
  plugin=${GOMLX_BACKEND#xla:}
elif [[ -f $repo/.xla/cpu.plugin ]]; then
  plugin=$(<"$repo/.xla/cpu.plugin")
fi
cgo=$(go env CGO_ENABLED)

work=$(mktemp -d "${TMPDIR:-/tmp}/oryx-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The module's own go.sum has every dependency of the oryx packages but GoMLX and go-xla (replaced here);
# `go mod tidy` adds theirs (from the module cache, or the proxy and the checksum database).
status=0
for variant in "${variants[@]}"; do
  dir=$work/$variant
  mkdir -p "$dir"
  cp "$repo/scripts/consumer/main.go.txt" "$dir/main.go"
  cp "$repo/go.sum" "$dir/go.sum"
  {
    echo "module example.com/oryx-consumer"
    echo
    echo "go $(sed -n 's/^go //p' "$repo/go.mod")"
    echo
    echo "require github.com/oryx-go/oryx v0.0.0"
    echo
    echo "replace github.com/oryx-go/oryx => $repo"
    if [[ $variant == patched ]]; then
      # The stanza of third_party/PATCHES.md ("For importers"), with the checkout's path.
      echo "replace github.com/gomlx/gomlx => $repo/third_party/gomlx"
      echo "replace github.com/gomlx/go-xla => $repo/third_party/go-xla"
    fi
  } >"$dir/go.mod"
  (cd "$dir" && GOFLAGS=-mod=mod go mod tidy) || { echo "consumer-check: $variant: go mod tidy failed" >&2; exit 1; }
  for tags in "${tagsets[@]}"; do
    name="$variant${tags:+ -tags $tags}"
    env=(-u ORYX_XLA_CACHE XDG_CACHE_HOME="$work/cache" GOMLX_BACKEND=) # empty: the default, pure Go with an unbounded worker pool (plain "go" can deadlock: docs/gomlx.md §6)
    if [[ $tags == xla ]]; then
      if [[ $cgo != 1 || -z $plugin ]]; then
        echo "consumer-check: $name: skipped (needs cgo and an XLA CPU plugin: make xla-cpu)"
        continue
      fi
      env=(-u ORYX_XLA_CACHE XDG_CACHE_HOME="$work/cache" GOMLX_BACKEND="xla:$plugin")
    fi
    start=$(date +%s)
    if ! (cd "$dir" && go build ${tags:+-tags $tags} -o consumer .) >"$work/build.log" 2>&1; then
      echo "consumer-check: $name: FAILED to build:" >&2
      cat "$work/build.log" >&2
      status=1
      continue
    fi
    built=$(date +%s)
    # As an importer that asks for nothing: standard error empty, nothing written in the cache directory.
    rm -rf "$work/cache" && mkdir "$work/cache"
    if ! (cd "$dir" && env "${env[@]}" ./consumer) >"$work/quiet.out" 2>"$work/quiet.err"; then
      echo "consumer-check: $name: FAILED (asking for nothing):" >&2
      cat "$work/quiet.out" "$work/quiet.err" >&2
      status=1
      continue
    fi
    if [[ -s $work/quiet.err || -n $(ls -A "$work/cache") ]]; then
      echo "consumer-check: $name: an importer that asked for nothing got output on standard error or files in" \
        "its cache directory ($(cd "$work/cache" && find . -mindepth 1 | head -3 | tr '\n' ' ')):" >&2
      cat "$work/quiet.err" >&2
      status=1
      continue
    fi
    if ! (cd "$dir" && env "${env[@]}" ORYX_CONSUMER_ANNOUNCE=1 ./consumer) >"$work/run.log" 2>&1; then
      echo "consumer-check: $name: FAILED:" >&2
      cat "$work/run.log" >&2
      status=1
      continue
    fi
    warned=$(grep -c 'without in-place' "$work/run.log" || true)
    ok=1
    if ! grep -q '^backend: ' "$work/run.log"; then
      echo "consumer-check: $name: asked for the announcement (oryx.Setup), got no \"backend:\" line:" >&2
      ok=0
    elif [[ $tags == xla && $variant == upstream && $warned != 1 ]]; then
      echo "consumer-check: $name: want one notice that it runs without in-place donation, got $warned:" >&2
      ok=0
    elif [[ ($tags != xla || $variant == patched) && $warned != 0 ]]; then
      echo "consumer-check: $name: unexpected notice about in-place donation:" >&2
      ok=0
    fi
    if ((!ok)); then
      cat "$work/run.log" >&2
      status=1
      continue
    fi
    echo "consumer-check: $name: built in $((built - start)) s, ran in $(($(date +%s) - built)) s, silent unless asked: $(grep '^consumer:' "$work/quiet.out")"
    if ((warned)); then
      sed -n '/^backend: note/,$p' "$work/run.log" | grep -v '^consumer:' | sed 's/^/    /'
    fi
  done
done
exit $status
