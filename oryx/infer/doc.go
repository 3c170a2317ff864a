// Package infer runs an oryx model for inference on a backend: the Engine keeps a batch's joint decode state
// (KV caches, linear states, conv inputs) between calls, prefills prompts with the parallel form and decodes
// one token per row in the mode the schedule gives it.
//
// What is here, one concept per file:
//
//	engine.go       Engine: NewEngine, Prefill, Step, the state between calls
//	generate.go     Engine.Generate: prompts under a schedule spec, greedy or sampled, stop tokens
//	sample.go       Sampler: greedy, temperature, top-k, top-p, seeded
//	escalate.go     Engine.StepEscalate and the entropy budget's decoding: a linear trial, rerun in attention
//	                when the escalation rule says so
//	speculative.go  Engine.GenerateSpeculative: linear-mode drafts verified in the target schedule, exact
//	genmem.go       the memory of a generation batch (GenerationRowBytes, GenerationBatch) and freeing an engine
//
// Import direction: infer imports oryx (the model's graph functions) and oryx/schedule (the schedule language);
// neither imports infer.
package infer
