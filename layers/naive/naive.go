// Package naive holds the reference forms of the mixers of package layers, as token loops over named vectors
// and matrices that follow the equations of docs/mixers.md line by line (no chunking, no graph code, float64):
// the oracles the chunked forms, the scans and the one-token steps of package layers are tested against, and
// the shortest statement of what each mixer computes. (flash-linear-attention ships naive.py beside chunk.py,
// and mamba ssd_minimal.py, for the same reason.) They are slow — O(T·K·V) per head for the linear mixers,
// O(T²) for attention — and meant for tests and for reading.
//
// One file per mixer: ssd.go (Mamba-2's SSD, docs/mixers.md §3), deltarule.go (the gated delta rule, §4),
// attention.go (causal softmax attention, §2), conv.go (the causal depthwise convolution, §1); linalg.go has
// the vector and matrix types they are written with.
//
// The functions take and return the graph functions' layouts as row-major flat slices — vectors [B, T, H, D],
// per-token scalars [B, T, H], states [B, H, K, V] (the shape glossary is package layers') — and cut them
// into one sequence per (batch row, head) before the loop (heads.go).
package naive

// Dims are the sizes of a reference computation: batch B, tokens T, heads H, key dim K, value dim V.
type Dims struct{ B, T, H, K, V int }

// Vec is the flat index of element i of the n-wide vector of (batch b, token t, head h) in a [B, T, H, n]
// slice.
func (d Dims) Vec(b, t, h, i, n int) int { return ((b*d.T+t)*d.H+h)*n + i }

// Scalar is the flat index of (batch b, token t, head h) in a [B, T, H] slice.
func (d Dims) Scalar(b, t, h int) int { return (b*d.T+t)*d.H + h }

// State is the flat index of element (i, j) of head h's state of batch b in a [B, H, K, V] slice.
func (d Dims) State(b, h, i, j int) int { return ((b*d.H+h)*d.K+i)*d.V + j }
