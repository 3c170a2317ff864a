package niah

import "sync"

// pathCache memoises a value loaded from a file path for the life of the process (the essays and the word
// list are read once however many samples are generated). Failed loads are not cached.
type pathCache[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

// get returns the cached value of path, loading it with load on first use.
func (c *pathCache[T]) get(path string, load func() (T, error)) (T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[path]; ok {
		return v, nil
	}
	v, err := load()
	if err != nil {
		return v, err
	}
	if c.m == nil {
		c.m = map[string]T{}
	}
	c.m[path] = v
	return v, nil
}
