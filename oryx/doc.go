// Package oryx is the multi-mixer language model: every layer holds both a softmax-attention readout and a
// linear-recurrent one (Mamba-2's SSD or Gated DeltaNet) over one shared set of key, value, gate and output
// projections, and each token is read in one of the two modes, chosen per token at run time.
//
// What is here, one concept per file:
//
//	config.go      Config (JSON with every checkpoint), Variant: transformer, mamba2, gdn, oryx-tm, oryx-tg
//	presets.go     Preset(size, variant): tiny, small, 130m, 370m, 760m, 1.4b
//	mode.go        Mode: the readout a token runs in (Linear, Attention)
//	block.go       the layer, written once: shared K/V/G/O, two queries, both memories updated, the per-token readout
//	span.go        Model.Continue: T tokens continued from a memory (empty for training; T = 1 for a decode step)
//	model.go       New, Model.Logits (parallel forward over a [B, T] grid of modes: Continue from the empty memory)
//	state.go       the joint decode state (KV cache + linear state + conv inputs) as graph nodes
//	score.go entropy.go   Scorer: log-likelihoods and predictive entropies at chosen positions, streamed
//	params.go      parameter counts, FLOPs per token
//	checkpoint.go  SaveCheckpoint, LoadCheckpoint, InitCheckpoint (crash-safe, config.json beside the weights)
//	weights.go     parameter creation and initialisation (every parameter is "<scope>/weight")
//	backend.go     Backend: the backend every computation here runs on
//
// Built on it, one way: package oryx/schedule (the schedule language: specs, block-random training schedules,
// attention budgets and their policies, the escalation rule) and package oryx/infer (the inference engine:
// the decode state across calls — prefill, step, segments, the speculative commit — on a backend, generation,
// sampling, speculative decoding, escalation). This package
// imports neither. Start from Preset and New, build graphs with Model.Logits inside a GoMLX context (the
// weights are created on first use and saved with SaveCheckpoint), and generate with infer.NewEngine +
// Engine.Generate; see the examples. The package builds on package layers and knows nothing of datasets,
// training or evaluation.
package oryx
