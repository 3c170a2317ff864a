//go:build unix

package pjrt

import "syscall"

// openNoFollowNonBlock opens a cache file without following a symbolic link and without blocking on a FIFO.
const openNoFollowNonBlock = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
