// Package recipe is the trainer and the table of training runs. A recipe (Recipe, looked up by Lookup) is
// one named run — "<variant>-<size>", e.g. "oryx-tg-130m" — with its architecture preset, optimisation
// (TrainConfig) and default data; every recipes/<name>/main.go is `recipe.Main("<name>")`.
//
// The pieces, one per file:
//
//	recipes.go    Recipe, the table (five variants × tiny, 130m, 370m, 760m, 1.4b), Lookup, Names
//	config.go     TrainConfig: batch, micro-batch, sequence length, LR schedule, AdamW, clipping, precision
//	optimizer.go  AdamW in the graph, DecayParam (no decay on norms, A_log, dt_bias, D), global-norm clipping
//	trainer.go    Trainer: forward/backward over micro-batches with accumulation, one optimizer step
//	run.go        Train(Run): the loop — data, checkpoints, validation, metrics.jsonl, SIGINT, exact resume
//	runstate.go   what a checkpoint needs beyond the weights to resume bit-exactly
//	parallel.go   data parallelism over N devices (XLA AutoSharding)
//	plan.go       MakePlan: parameters, FLOPs, memory, time and "does it fit" before anything is allocated
//	curves.go     curves.png from metrics.jsonl
//	progress.go   the progress line
//	main.go       Main/MainArgs: the flags every recipe command shares
//
// Train is the library entry point (the study calls it); Main is the command.
package recipe
