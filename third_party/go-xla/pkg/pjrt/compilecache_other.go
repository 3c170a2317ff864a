//go:build !unix

package pjrt

// openNoFollowNonBlock: no such flags here; readCacheEntry's Lstat and Stat checks remain.
const openNoFollowNonBlock = 0
