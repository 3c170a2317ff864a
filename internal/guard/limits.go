package guard

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// memoryLimits are every memory limit known to apply to this process: the machine's memory, the rlimits and
// the control group's (cgroupRoot: where the cgroup file systems are mounted).
func memoryLimits() []memLimit {
	out := []memLimit{{bytes: memTotal()}}
	out = append(out, rlimits()...)
	if data, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		out = append(out, cgroupLimits(cgroupRoot, string(data))...)
	}
	return out
}

// cgroupRoot is where the cgroup file systems are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupLimits reads the memory limits of the control groups that /proc/self/cgroup (its text) names, under
// root: cgroup v2's memory.max ("0::/path") and v1's memory.limit_in_bytes (a "memory" controller line), of
// the group and of every ancestor (a parent's limit bounds its children), at the path as listed and at the
// mount's root (a container sees its own group there). "max" and v1's near-2^63 "unlimited" are no limit.
func cgroupLimits(root, procCgroup string) []memLimit {
	var out []memLimit
	for _, line := range strings.Split(procCgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var base, file, name string
		switch {
		case parts[0] == "0" && parts[1] == "":
			base, file, name = root, "memory.max", "cgroup memory.max"
		case containsField(parts[1], "memory"):
			base, file, name = filepath.Join(root, "memory"), "memory.limit_in_bytes", "cgroup memory.limit_in_bytes"
		default:
			continue
		}
		for p := filepath.Clean("/" + parts[2]); ; p = filepath.Dir(p) {
			if b, ok := readLimit(filepath.Join(base, p, file)); ok {
				out = append(out, memLimit{bytes: b, source: name})
			}
			if p == "/" {
				break
			}
		}
	}
	return out
}

func containsField(list, name string) bool {
	for _, f := range strings.Split(list, ",") {
		if f == name {
			return true
		}
	}
	return false
}

// readLimit reads a cgroup memory limit file: false when it is absent, "max", or "unlimited" (v1 writes
// 2^63 rounded down to a page).
func readLimit(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(data))
	if s == "max" {
		return 0, false
	}
	b, err := strconv.ParseInt(s, 10, 64)
	if err != nil || b <= 0 || b >= 1<<62 {
		return 0, false
	}
	return b, true
}
