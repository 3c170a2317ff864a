//go:build unix

package guard

import "syscall"

// rlimits are the process's finite address-space and data-segment limits.
func rlimits() []memLimit {
	var out []memLimit
	for _, r := range []struct {
		res        int
		name, used string // used: the /proc/self/status line of what the process holds against it
	}{{syscall.RLIMIT_AS, "RLIMIT_AS", "VmSize:"}, {syscall.RLIMIT_DATA, "RLIMIT_DATA", "VmData:"}} {
		var l syscall.Rlimit
		if syscall.Getrlimit(r.res, &l) == nil && l.Cur < 1<<62 { // RLIM_INFINITY is all ones
			out = append(out, memLimit{int64(l.Cur), r.name, procKB("/proc/self/status", r.used)})
		}
	}
	return out
}
