package tokenizers

// A binary min-heap over a slice, shared by the BPE (merge ranks) and SentencePiece (piece scores) encoders:
// before(a, b) tells whether a pops before b. The ordering item types implement it as a method, so each
// instantiation calls it directly.

type heapItem[T any] interface{ before(T) bool }

// heapPush adds x to the heap h and returns the heap.
func heapPush[T heapItem[T]](h []T, x T) []T {
	h = append(h, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// heapPop removes and returns the first item of the non-empty heap h, and the heap.
func heapPop[T heapItem[T]](h []T) (T, []T) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			c = r
		}
		if !h[c].before(h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return top, h
}
