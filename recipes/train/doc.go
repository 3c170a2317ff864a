// Package train is the trainer: the run loop, the optimizer, the run state that makes a resume exact, data
// parallelism, the curves and the progress line. Train(Run) is the entry point; the recipe commands
// (recipes/recipe) and the study (recipes/study) call it.
//
// The pieces, one per file:
//
//	config.go      TrainConfig: batch, micro-batch, sequence length, LR schedule, AdamW, clipping, precision
//	optimizer.go   AdamW in the graph, DecayParam (no decay on norms, A_log, dt_bias, D), global-norm clipping
//	trainer.go     Trainer: forward/backward over micro-batches with accumulation, one optimizer step
//	run.go         Run and Train(Run): set up, open the run directory, resume, train, finish
//	rundir.go      the run directory at start-up: whether its newest checkpoint is this run's (runCheckpoint, the
//	               one answer; another run's is refused before anything is written), a finished run (returned
//	               as it is, or --retrain)
//	session.go     the run in training: resume from the newest checkpoint, the outputs it writes to
//	loop.go        the loop: each step (data, mode schedule, learning rate, update), checkpoints, signals
//	control.go     what steers a run from outside (the OS signals; tests inject their own control)
//	validation.go  the validation modes and the validation, probes, curves at each validation point
//	summary.go     Summary and summary.json
//	runjson.go     run.json (the run's configuration)
//	runstate.go    what a checkpoint needs beyond the weights to resume bit-exactly; the trajectory check
//	peakrss.go     the process's peak resident memory
//	parallel.go    data parallelism over N devices (XLA AutoSharding)
//	curves.go      curves.png from metrics.jsonl
//	progress.go    the progress line
//
// It knows nothing of recipes or evaluation.
package train
