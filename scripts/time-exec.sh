#!/usr/bin/env bash
# go test -exec wrapper for scripts/profile-tests.sh: runs one test binary under /usr/bin/time and appends
# "wall_s user_s sys_s max_rss_kb package_dir" to $TEST_TIMES (go test runs a test binary in its package's
# directory; CPU time per package is less sensitive to the machine's load than wall time).
exec /usr/bin/time -a -o "${TEST_TIMES:?}" -f "%e %U %S %M $PWD" "$@"
