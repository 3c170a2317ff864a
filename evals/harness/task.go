package harness

// Task is one evaluation task (wikitext, piqa, based_swde, ...). A task is pure: Build reads its data and
// turns documents into tokenized requests for the model's tokenizer, and the Plan's Score turns the
// model's results into metrics. Run does everything that involves the model.
type Task interface {
	// Name is the registry name (lm-eval's task name where there is one).
	Name() string
	// Build reads the task's data and returns the requests for m's tokenizer, prefix token and max
	// length (Build does not call LogLikelihood or GenerateUntil).
	Build(m Model, opts Options) (*Plan, error)
}

// Options are the run options every task understands.
type Options struct {
	// Limit scores only the first Limit documents (0: all), like lm-eval --limit N.
	Limit int
	// Mixed sets each request's AttentionFrom by the task's mixed-mode rule (context in linear mode, the
	// question suffix and the answer or generated tokens in attention). Without it every AttentionFrom is
	// Never and the model's configured schedule applies to every token.
	Mixed bool
	// BootstrapIters is the number of bootstrap resamples for bootstrapped standard errors (LAMBADA
	// perplexity): 0 means lm-eval's default DefaultBootstrapIters, a negative value switches bootstrap off
	// (stderr NaN).
	BootstrapIters int
	// Samples, when non-nil, receives one JSON line per request (--log-samples).
	Samples *SampleWriter
	// Progress, when non-nil, is called as requests complete: phase is "loglikelihood" or
	// "generate_until".
	Progress func(task, phase string, done, total int)
}

// Iters returns the bootstrap iteration count these options ask for (see BootstrapIters).
func (o Options) Iters() int {
	switch {
	case o.BootstrapIters == 0:
		return DefaultBootstrapIters
	case o.BootstrapIters < 0:
		return 0
	}
	return o.BootstrapIters
}

// LLItem is one loglikelihood request of a plan with the text it came from (for --log-samples).
type LLItem struct {
	Doc          int    // document index in the data file
	Context      string // the context string (for rolling windows: the decoded window context)
	Continuation string // the continuation string (for rolling windows: the decoded window)
	Req          LLRequest
}

// GenItem is one generation request of a plan.
type GenItem struct {
	Doc    int
	Prompt string
	Labels []string // the references the generation is scored against (logged with the sample)
	Req    GenRequest
}

// Scores is what a plan's Score returns.
type Scores struct {
	Metrics map[string]Metric
	// Gen holds the per-request score of each GenItem (e.g. contains ∈ {0, 1}), for --log-samples; nil
	// when the plan has no generation requests.
	Gen []float64
}

// Plan is a task's built requests and its scorer.
type Plan struct {
	LL  []LLItem
	Gen []GenItem
	// Docs is the number of documents the requests cover; TotalDocs the number in the data file; Dropped
	// the documents left out by the task's own rule (not by Limit).
	Docs, TotalDocs, Dropped int
	// MaxLength, when > 0, overrides Model.MaxLength() as the truncation length (recall tasks: 2048); the
	// smaller of the two is used.
	MaxLength int
	// Data is the file read; Notes are caveats copied into the Result.
	Data  string
	Notes []string
	// Score aggregates the results, given in the order of LL and Gen (generation texts already cut at
	// their stop strings).
	Score func(ll []LLResult, gen []GenResult) (Scores, error)
}
