// Package layers holds the token mixers and building blocks of multi-mixer models as GoMLX graph
// functions. It knows nothing of models, data or training: every function takes its weights as nodes.
//
// Shape glossary (used in every doc comment and einsum of this package):
//
//	B  batch                      T  sequence length (tokens)
//	H  heads                      D  head dim; K = key/query head dim, V = value head dim
//	N  number of chunks (⌈T/C⌉)   C  chunk length; i, j index tokens inside a chunk
//	L  KV-cache capacity (decode) W  convolution width;  E  channels (e.g. H·D)
//
// Conventions:
//   - per-token vectors are [B, T, H, D], per-token scalars (log decay g ≤ 0, write strength β) are [B, T, H];
//   - the linear state is "key-first", [B, H, K, V], read out as o_t = scale · S_tᵀ q_t;
//   - a nil initial state means the zero state;
//   - T need not be a multiple of the chunk length: the tail is padded with identity transitions
//     (q = k = v = 0, g = 0, β = 0) so that the final state is the state after token T.
//
// Each mixer has three forms side by side, tested against each other and against plain token-by-token
// loops (package layers/naive): a parallel/chunked training form, a one-token decode step, and the
// inter-chunk state recurrence as either an unrolled loop or an associative scan (scan.go).
//
// Graph builders panic on bad input (GoMLX's convention); the panic is an error that names the function,
// the argument and the shapes, and graph.Exec returns it as an error.
package layers
