//go:build !unix

package layers

import "time"

// processCPUTime is not measured on this platform (see benchcpu_unix_test.go).
func processCPUTime() time.Duration { return 0 }
