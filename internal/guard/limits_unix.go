//go:build unix

package guard

import "syscall"

// rlimits are the process's finite address-space and data-segment limits.
func rlimits() []memLimit {
	var out []memLimit
	for _, r := range []struct {
		res  int
		name string
	}{{syscall.RLIMIT_AS, "RLIMIT_AS"}, {syscall.RLIMIT_DATA, "RLIMIT_DATA"}} {
		var l syscall.Rlimit
		if syscall.Getrlimit(r.res, &l) == nil && l.Cur < 1<<62 { // RLIM_INFINITY is all ones
			out = append(out, memLimit{int64(l.Cur), r.name})
		}
	}
	return out
}
