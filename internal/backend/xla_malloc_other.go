//go:build xla && !linux

package backend

func tuneMalloc() {}
