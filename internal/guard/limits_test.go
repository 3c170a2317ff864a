package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCgroupLimits: the limits of cgroup v2 (memory.max) and v1 (memory.limit_in_bytes) are read for the
// group and its ancestors; "max" and v1's "unlimited" (2^63 rounded to a page) are no limit.
func TestCgroupLimits(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s+"\n"), 0o644))
	}
	write("user.slice/job/memory.max", "max")
	write("user.slice/memory.max", "2147483648") // the parent's limit bounds the group
	write("memory/docker/abc/memory.limit_in_bytes", "9223372036854771712")
	write("memory/docker/memory.limit_in_bytes", "1073741824")
	got := cgroupLimits(root, "12:memory:/docker/abc\n0::/user.slice/job\n3:cpu,cpuacct:/docker/abc\n")
	require.ElementsMatch(t, []memLimit{{bytes: 1 << 30, source: "cgroup memory.limit_in_bytes"}, {bytes: 2 << 30, source: "cgroup memory.max"}}, got)
	require.Empty(t, cgroupLimits(root, "0::/elsewhere\n"))
}

// TestMemoryLimitRlimit: a process started under `ulimit -v` (RLIMIT_AS) sees that limit as its memory, and
// CheckMemory refuses an estimate above it naming the limit. The test binary is the child.
func TestMemoryLimitRlimit(t *testing.T) {
	if os.Getenv("GUARD_PRINT_LIMIT") == "1" {
		b, src := MemoryLimit()
		err := CheckMemory("the test", 4<<30)
		os.Stdout.WriteString(strconv.FormatInt(b, 10) + " " + src + "\n" + err.Error() + "\n")
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	// 4 GiB of address space: enough for a Go test binary to start.
	cmd := exec.Command("sh", "-c", `ulimit -v 4194304 && exec "$0" -test.run '^TestMemoryLimitRlimit$'`, exe)
	cmd.Env = append(os.Environ(), "GUARD_PRINT_LIMIT=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	lines := strings.Split(string(out), "\n")
	require.Equal(t, strconv.Itoa(4<<30)+" RLIMIT_AS", lines[0], string(out))
	require.Regexp(t, `^the test needs ~4\.0 GiB of memory, this machine has 4\.0 GiB \(the process's limit, RLIMIT_AS, [0-9.]+ [MG]iB of it in use\)$`, lines[1])
}
