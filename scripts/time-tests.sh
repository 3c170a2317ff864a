#!/usr/bin/env bash
# Times single tests, one after the other, each in its own `go test` (the test binary built first, so its
# build is not in the figure), and records the machine's load beside each figure; on XLA CPU with the
# settings of `make test-xla` (scripts/test-xla.sh) unless BACKEND=go. It also samples, every 0.2 s, how many
# of the test binary's threads are runnable (state R): the mean says how many cores the test could use on
# an idle machine (about 1: one thread compiling or computing; about 2: both cores), independent of the load.
#
#   scripts/time-tests.sh ./recipes/train:TestResumeIsExact ./oryx:TestScorerMatchesDense ...
#   BACKEND=go scripts/time-tests.sh ./recipes/study:TestQuickStudyArtefacts
# Prints one line per test: package, test, seconds (go test's own figure), mean runnable threads and the
# share of samples with at most one (the time a second core would idle on a quiet machine), load.
set -uo pipefail
cd "$(dirname "$0")/.."
short=-short
[[ ${XLA_FULL:-0} == 1 ]] && short=
if [[ ${BACKEND:-xla} == xla ]]; then
  plugin=$(bash scripts/install-xla.sh cpu | tail -n 1)
  export GOMLX_BACKEND="xla:$plugin"
  export XLA_FLAGS="--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true --xla_force_host_platform_device_count=4"
  tags=(-tags xla)
else
  export GOMLX_BACKEND=go short=
  tags=()
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for t in "$@"; do # every binary first: the figures are of the sources as they were at the start
  pkg=${t%%:*}
  exe=$bin/$(echo "$pkg" | tr / _).test
  [[ -x $exe ]] || go test "${tags[@]}" -c -o "$exe" "$pkg" || exit 1
done
for t in "$@"; do
  pkg=${t%%:*} name=${t#*:}
  exe=$bin/$(echo "$pkg" | tr / _).test
  load0=$(cut -d' ' -f1 /proc/loadavg)
  log=$bin/log
  # go test runs a test binary in its package's directory.
  (cd "$pkg" && exec "$exe" -test.run "^$name\$" -test.count 1 -test.timeout 60m $([[ -n $short ]] && echo -test.short) -test.v >"$log" 2>&1) &
  pid=$!
  samples=0 running=0 one=0
  while kill -0 $pid 2>/dev/null; do
    n=$(cat /proc/$pid/task/*/stat 2>/dev/null | awk '$3 == "R"' | wc -l)
    samples=$((samples + 1)) running=$((running + n))
    ((n <= 1)) && one=$((one + 1))
    sleep 0.2
  done
  wait $pid; rc=$?
  secs=$(grep -E "^--- (PASS|FAIL|SKIP): $name " "$log" | sed -E 's/.*\(([0-9.]+)s\).*/\1/' | tail -n 1)
  printf '%-22s %-44s %8s s  runnable %s (≤ 1: %s)  load %s -> %s  rc=%d\n' "$pkg" "$name" "${secs:-?}" \
    "$(awk -v r=$running -v s=$samples 'BEGIN { printf "%.2f", s ? r / s : 0 }')" \
    "$(awk -v o=$one -v s=$samples 'BEGIN { printf "%.0f%%", s ? 100 * o / s : 0 }')" "$load0" \
    "$(cut -d' ' -f1 /proc/loadavg)" $rc
  [[ $rc == 0 ]] || tail -n 30 "$log" >&2
done
