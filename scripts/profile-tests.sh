#!/usr/bin/env bash
# Profiles the test suite as `make test` runs it: the pure-Go suite and the XLA CPU suite (-short unless
# XLA_FULL=1), each with `go test -json` (per-test wall time) and every test binary under /usr/bin/time
# (per-package wall, user and system time). Writes into DIR (default /tmp/oryx-test-profile):
#   go.json, xla.json (go test -json), go.times, xla.times (scripts/time-exec.sh), summary.txt
# and prints the summary (the 20 slowest packages and tests of each suite; scripts/profile-summary.py).
#
#   scripts/profile-tests.sh [DIR]              # both suites
#   SUITES=xla scripts/profile-tests.sh [DIR]   # one of them (go, xla)
# Record the machine's load (uptime) beside any figure taken from it.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/oryx-test-profile}
mkdir -p "$dir"
exec_wrap=$PWD/scripts/time-exec.sh
for suite in ${SUITES:-go xla}; do
  rm -f "$dir/$suite.times"
  echo "profile: $suite suite, load $(uptime | sed 's/.*load average: //')" >&2
  start=$(date +%s)
  case $suite in
    go)  TEST_TIMES=$dir/go.times go test -count=1 -json -exec "$exec_wrap" ./... >"$dir/go.json" 2>"$dir/go.err" ;;
    xla) TEST_TIMES=$dir/xla.times bash scripts/test-xla.sh -count=1 -json -exec "$exec_wrap" >"$dir/xla.json" 2>"$dir/xla.err" ;;
  esac
  echo "profile: $suite suite rc=$? in $(( $(date +%s) - start )) s, load $(uptime | sed 's/.*load average: //')" >&2
done 2>&1 | tee -a "$dir/log.txt"
python3 scripts/profile-summary.py "$dir" | tee "$dir/summary.txt"
