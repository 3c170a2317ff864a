// Package oryx is the multi-mixer language model: every layer holds both a softmax-attention readout and a
// linear-recurrent one (Mamba-2's SSD or Gated DeltaNet) over one shared set of key, value, gate and output
// projections, and each token is read in one of the two modes, chosen per token at run time.
//
// What is here, one concept per file:
//
//	config.go      Config (JSON with every checkpoint), Variant: transformer, mamba2, gdn, oryx-tm, oryx-tg
//	presets.go     Preset(size, variant): tiny, 130m, 370m, 760m, 1.4b
//	block.go       one layer: shared K/V/G/O, two queries, both memories updated, the per-token readout
//	model.go       New, Model.Logits (parallel forward over a [B, T] grid of modes), LogitsGathered
//	schedule.go    Mode, Schedule and the schedule specs: "attention", "linear", "attention-last:N", "block:L:p", ranges...
//	budget.go      schedules chosen at inference: "budget:F:POLICY" (last, question, random, entropy), the exact
//	               rules, their cost (what the entropy policy computes twice) and the decoding escalation rule
//	entropy.go     the Scorer's predictive entropy at every position (the entropy policy's linear pass)
//	escalate.go    Engine.StepEscalate: a linear trial step, rerun in attention when the policy escalates
//	state.go step.go   the joint inference state (KV cache + linear state) and the one-token decode step
//	engine.go      Engine: prefill and step on a backend, keeping the state between calls
//	generate.go sample.go   Engine.Generate with greedy or seeded sampling, DecodeMode
//	chunk.go speculative.go   Model.ChunkStep / CommitChunk (T tokens continued from a state, any prefix kept) and
//	               Engine.GenerateSpeculative: linear-mode drafts verified in the target schedule, exact
//	params.go      parameter counts, FLOPs per token
//	checkpoint.go  SaveCheckpoint, LoadCheckpoint, InitCheckpoint (crash-safe, config.json beside the weights)
//	weights.go     parameter creation and initialisation (every parameter is "<scope>/weight")
//	backend.go     Backend: the backend every computation here runs on
//
// Start from Preset and New, build graphs with Model.Logits inside a GoMLX context (the weights are created
// on first use and saved with SaveCheckpoint), and generate with NewEngine + Engine.Generate; see the
// examples. The package builds on package layers and knows nothing of datasets, training or evaluation.
package oryx
