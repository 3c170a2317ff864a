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

// DataSource is implemented by a task that reads a data file: DataPath is the file (or glob) Build will
// read — its Plan's Data — known before Build, so that a rerun keeps an earlier result only when it was
// scored on this same path and content.
type DataSource interface {
	DataPath() string
}

// Options are the run options every task understands.
type Options struct {
	// Limit scores only the first Limit documents (0: all), like lm-eval --limit N.
	Limit int
	// Mixed passes each request's AttentionFrom (the task's split point: context in linear mode, the
	// question suffix and the answer or generated tokens in attention) to the model. Without it Run sets
	// every AttentionFrom to Never before the model sees it, so the model's configured schedule applies to
	// every token; the split point still divides the tokens into context and question in Result.Segments.
	Mixed bool
	// GroupMaxLength gives the max_length of the tasks of a group ("lm" → 2048: lm-eval's max_length,
	// independent of the long NIAH lengths). A task of no listed group uses Model.MaxLength(). The
	// effective length (also capped by Plan.MaxLength and Model.MaxLength()) is what Build sees as
	// m.MaxLength() and is recorded in Result.MaxLength.
	GroupMaxLength map[string]int
	// BootstrapIters is the number of bootstrap resamples for bootstrapped standard errors (LAMBADA
	// perplexity): 0 means lm-eval's default DefaultBootstrapIters, a negative value switches bootstrap off
	// (stderr NaN).
	BootstrapIters int
	// Samples, when non-nil, receives one lm-eval sample record per document (--log-samples: DocSample);
	// tasks fill Plan.SampleDocs only when it is set.
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
//
// Req.AttentionFrom is the task's split point whether or not Options.Mixed is set (Never when the task has
// none, as for rolling windows): Run passes it to the model only in mixed mode, and always uses it to count
// context and question tokens.
type LLItem struct {
	Doc          int    // document index in the data file
	Context      string // the context string (for rolling windows: the decoded window context)
	Continuation string // the continuation string (for rolling windows: the decoded window)
	Req          LLRequest
}

// GenItem is one generation request of a plan; Req.AttentionFrom is the split point, as for LLItem.
type GenItem struct {
	Doc    int
	Prompt string
	Labels []string // the references the generation is scored against (logged with the sample)
	Req    GenRequest
}

// Scores is what a plan's Score returns.
type Scores struct {
	Metrics map[string]Metric
	// Gen holds the per-request score of each GenItem (e.g. contains ∈ {0, 1}); nil when the plan has no
	// generation requests.
	Gen []float64
	// PerDoc holds each document's metric values as lm-eval's process_results returns them, in its order
	// (doc id → metric → value: a number, or [ll, weight] for the weighted perplexities), for
	// --log-samples; nil when samples are not logged.
	PerDoc map[int]Doc
}

// SampleDoc is what a --log-samples record says about one document besides the requests: lm-eval's "doc"
// (a Doc: the dataset row as lm-eval sees it, ReadDocs, plus what the task's process_docs adds) and
// "target" (doc_to_target: a gold index, a target string, the labels), and for loglikelihood_rolling tasks
// the one request lm-eval makes per document (Arguments, e.g. the detokenized page; Run sums the
// document's windows into its one response).
type SampleDoc struct {
	Doc       any
	Target    any
	Arguments []any
}

// Output types (lm-eval output_type), for Plan.OutputType.
const (
	OutputLoglikelihood        = "loglikelihood"
	OutputLoglikelihoodRolling = "loglikelihood_rolling"
	OutputMultipleChoice       = "multiple_choice"
	OutputGenerateUntil        = "generate_until"
)

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
	// OutputType is lm-eval's output_type of the task (OutputMultipleChoice, ...); Version its task
	// version (lm-eval's metadata.version of the task definition followed).
	OutputType string
	Version    float64
	// SampleDocs describes the documents for --log-samples (doc id → SampleDoc), filled only when
	// Options.Samples is set; a document without an entry is logged with a null doc and target.
	SampleDocs map[int]SampleDoc
	// Score aggregates the results, given in the order of LL and Gen (generation texts already cut at
	// their stop strings).
	Score func(ll []LLResult, gen []GenResult) (Scores, error)
}

// Checker is implemented by tasks that can validate their options against the max length they will run
// with before any model is loaded (NIAH: its target lengths), so that a run fails before spending compute.
type Checker interface {
	Check(maxLength int) error
}
