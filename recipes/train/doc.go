// Package train is the trainer: the run loop, the optimizer, the run state that makes a resume exact, data
// parallelism, the curves and the progress line. Train(Run) is the entry point; the recipe commands
// (recipes/recipe) and the study (recipes/study) call it.
//
// The pieces, one per file:
//
//	config.go     TrainConfig: batch, micro-batch, sequence length, LR schedule, AdamW, clipping, precision
//	optimizer.go  AdamW in the graph, DecayParam (no decay on norms, A_log, dt_bias, D), global-norm clipping
//	trainer.go    Trainer: forward/backward over micro-batches with accumulation, one optimizer step
//	run.go        Train(Run): the loop — data, checkpoints, validation, metrics.jsonl, SIGINT, exact resume
//	rundir.go     the run directory at start-up: a finished run, leftovers of killed saves, the tokenizer copy
//	runstate.go   what a checkpoint needs beyond the weights to resume bit-exactly
//	parallel.go   data parallelism over N devices (XLA AutoSharding)
//	curves.go     curves.png from metrics.jsonl
//	progress.go   the progress line
//
// It knows nothing of recipes or evaluation.
package train
