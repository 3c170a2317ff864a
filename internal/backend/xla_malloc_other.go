//go:build xla && !(linux && cgo)

package backend

// mallocTuned: the allocator setting of xla_malloc.go is glibc's (Linux); elsewhere the allocator is left as is.
func mallocTuned() bool { return false }
