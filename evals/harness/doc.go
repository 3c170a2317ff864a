// Package harness is the model-independent core of the evaluation harness: the request types every task
// builds, the Model interface a checkpoint implements, lm-evaluation-harness 0.4.x's request rules (the
// loglikelihood pair encoding, rolling windows, left truncation), its aggregations and standard errors, the
// task registry, the runner and the --log-samples writer (a FakeModel for tests is in harnesstest).
//
// The reference is lm-evaluation-harness 0.4.x (lm_eval/api/task.py, lm_eval/api/metrics.py). The pieces,
// one per file:
//
//	model.go      LLRequest, LLResult, GenRequest, GenResult, Model
//	encode.go     EncodePair (lm-eval _encode_pair and the empty-context prefix rule), EncodeContext, SplitPoint
//	rolling.go    RollingWindows (lm-eval loglikelihood_rolling: disjoint windows, context length 1)
//	truncate.go   TruncateLL, TruncateGen (lm-eval left truncation), CutAtStop
//	task.go       Task, Options, Plan, LLItem, GenItem, Scores
//	run.go        Run, RunAll, EffectiveMaxLength: per-group lengths, truncation, model calls, scoring, samples
//	segments.go   Segments (context / question / generated tokens and their attention)
//	params.go     RegisterParam, ParseParams (--param keys the task families read)
//	result.go     Result, Metric
//	metrics.go    Mean, MeanStderr, Argmax, the perplexity aggregations
//	bootstrap.go  BootstrapStderr (lm-eval's bootstrap, same random draws as Python's)
//	pystr.go      Python string semantics (whitespace, strip, capitalize, re.split(r"\s+") counting)
//	samples.go    DocSample, SampleWriter (--log-samples: lm-eval's per-document records, JSON lines)
//	registry.go   Register, RegisterGroup, Tasks, Lookup, ParseTaskList, Resolve
//	config.go     Config (data root and per-task path overrides), ParsePathOverrides, ResolveDataRoot
//	table.go      ReadTable (parquet rows with required/optional columns; errors name file and column)
//	progress.go   ProgressBar
//	parallel.go   ParallelFor (request building over documents)
//
// Division of labour: a Task turns documents into requests (already tokenized, with the task's mixed-mode
// split point) and requests' results into metrics; Run applies every lm-eval truncation rule, calls the
// model once per request type, counts truncated requests and attention tokens, and times the task. A Model
// only scores what it is given.
package harness
