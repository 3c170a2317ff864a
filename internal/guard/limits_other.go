//go:build !unix

package guard

func rlimits() []memLimit { return nil }
