//go:build unix

package layers

import (
	"syscall"
	"time"
)

// processCPUTime is the CPU time (user + system, all threads) this process has used so far, or 0 when
// unavailable. On a loaded machine it varies much less than wall time, since waiting for a core costs none.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
