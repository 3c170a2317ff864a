package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/oryx-go/oryx/internal/safefile"
)

// DocSample is one --log-samples record, in lm-eval 0.4's on-disk layout (what its EvaluationTracker writes
// to samples_<task>_<date>.jsonl), byte for byte as Python's json.dumps(…, ensure_ascii=False) writes it:
//
//	doc_id, doc            the document as lm-eval sees it (Doc: the dataset row, plus what the task's
//	                       process_docs adds)
//	target                 str(doc_to_target(doc)): the gold index, the target string, the label list
//	arguments              {"gen_args_<i>": {"arg_<j>": …}}: request i's arguments — (context,
//	                       continuation) for loglikelihood and multiple_choice, (text,) for
//	                       loglikelihood_rolling, (context, generation kwargs) for generate_until
//	resps, filtered_resps  every response as str(): [[["-1.5", "False"]], …] per loglikelihood request,
//	                       [["-75.6"]] for a rolling document (its windows summed: one number, as lm-eval
//	                       returns), [["text"]] per generation
//	filter, metrics        "none"; the names of the per-document metrics
//	doc_hash, prompt_hash, target_hash   SHA-256 of json.dumps(doc, indent=2, ensure_ascii=False), of
//	                       the first request's context, of str(target) (lm-eval's hash_string)
//	<metric>…              each metric's per-document value (process_results: a number, or [ll, weight] for
//	                       the weighted perplexities)
//	oryx                   the project's per-request details (SampleRequest)
type DocSample struct {
	DocID  int
	Doc    any
	Target any
	// Arguments, Resps and FilteredResps have one entry per request of the document, in order: its
	// arguments, its responses (each a value or a tuple as []any), its filtered response.
	Arguments     [][]any
	Resps         [][]any
	FilteredResps []any
	// Metrics are the per-document values in process_results' order.
	Metrics Doc
	// Requests are the project's details of each request (token counts after truncation, truncation,
	// split point), written under "oryx".
	Requests []SampleRequest
}

// SampleRequest is one request's details in a DocSample.
type SampleRequest struct {
	ContextTokens      int  `json:"context_tokens"`
	ContinuationTokens int  `json:"continuation_tokens,omitempty"`
	GeneratedTokens    int  `json:"generated_tokens,omitempty"`
	Truncated          bool `json:"truncated"`
	// AttentionFrom is the split point the model received (the request's length when not mixed).
	AttentionFrom int `json:"attention_from"`
}

// Hashes returns lm-eval's doc_hash, prompt_hash and target_hash of the record.
func (d *DocSample) Hashes() (doc, prompt, target string, err error) {
	dj, err := PyJSON(d.Doc, 2)
	if err != nil {
		return "", "", "", fmt.Errorf("sample doc %d: %w", d.DocID, err)
	}
	var context any = ""
	if len(d.Arguments) > 0 && len(d.Arguments[0]) > 0 {
		context = d.Arguments[0][0]
	}
	return HashString(string(dj)), HashString(PyStr(context)), HashString(PyStr(d.Target)), nil
}

// sanitized is lm-eval's sanitize_list: every leaf of nested lists (and tuples) as str().
func sanitized(v any) any {
	if xs, ok := v.([]any); ok {
		out := make([]any, len(xs))
		for i, x := range xs {
			out[i] = sanitized(x)
		}
		return out
	}
	return PyStr(v)
}

// Record returns the record as the ordered dict lm-eval writes (see DocSample).
func (d *DocSample) Record() (Doc, error) {
	dh, ph, th, err := d.Hashes()
	if err != nil {
		return nil, err
	}
	args := Doc{}
	for i, a := range d.Arguments {
		arg := Doc{}
		for j, x := range a {
			arg = append(arg, DocField{fmt.Sprintf("arg_%d", j), x})
		}
		args = append(args, DocField{fmt.Sprintf("gen_args_%d", i), arg})
	}
	resps := make([]any, len(d.Resps))
	for i, r := range d.Resps {
		resps[i] = sanitized(r)
	}
	filtered := sanitized(d.FilteredResps)
	if d.FilteredResps == nil {
		filtered = []any{}
	}
	names := make([]string, len(d.Metrics))
	for i, m := range d.Metrics {
		names[i] = m.Key
	}
	rec := Doc{{"doc_id", d.DocID}, {"doc", d.Doc}, {"target", PyStr(d.Target)}, {"arguments", args},
		{"resps", resps}, {"filtered_resps", filtered}, {"filter", "none"}, {"metrics", names},
		{"doc_hash", dh}, {"prompt_hash", ph}, {"target_hash", th}}
	rec = append(rec, d.Metrics...)
	reqs := make([]any, len(d.Requests))
	for i, r := range d.Requests {
		q := Doc{{"context_tokens", r.ContextTokens}}
		if r.ContinuationTokens != 0 {
			q = append(q, DocField{"continuation_tokens", r.ContinuationTokens})
		}
		if r.GeneratedTokens != 0 {
			q = append(q, DocField{"generated_tokens", r.GeneratedTokens})
		}
		reqs[i] = append(q, DocField{"truncated", r.Truncated}, DocField{"attention_from", r.AttentionFrom})
	}
	return append(rec, DocField{"oryx", Doc{{"requests", reqs}}}), nil
}

// MarshalJSON writes the record on one line as lm-eval's json.dumps does (see DocSample).
func (d DocSample) MarshalJSON() ([]byte, error) {
	rec, err := d.Record()
	if err != nil {
		return nil, err
	}
	return PyJSON(rec, -1)
}

// SampleWriter writes samples as JSON lines (no HTML escaping, so prompts read as they are). It is safe for
// concurrent use. Close flushes.
type SampleWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	c   io.Closer
	err error
}

// NewSampleWriter writes to w; when w is an io.Closer, Close closes it.
func NewSampleWriter(w io.Writer) *SampleWriter {
	sw := &SampleWriter{w: bufio.NewWriterSize(w, 1<<20)}
	if c, ok := w.(io.Closer); ok {
		sw.c = c
	}
	return sw
}

// Write appends one sample as a line: a *DocSample in lm-eval's form (DocSample.MarshalJSON, which
// encoding/json would re-escape), anything else JSON-encoded without HTML escaping.
func (s *SampleWriter) Write(sample any) error {
	var line []byte
	if d, ok := sample.(*DocSample); ok {
		b, err := d.MarshalJSON()
		if err != nil {
			return fmt.Errorf("harness: log-samples: %w", err)
		}
		line = append(b, '\n')
	} else {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(sample); err != nil {
			return fmt.Errorf("harness: log-samples: %w", err)
		}
		line = buf.Bytes()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(line); err != nil {
		s.err = fmt.Errorf("harness: log-samples: %w", err)
	}
	return s.err
}

// Flush writes buffered lines through.
func (s *SampleWriter) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if err := s.w.Flush(); err != nil {
		s.err = fmt.Errorf("harness: log-samples: %w", err)
	}
	return s.err
}

// Close flushes and closes the underlying writer when it is a Closer.
func (s *SampleWriter) Close() error {
	err := s.Flush()
	if s.c != nil {
		if cerr := s.c.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("harness: log-samples: %w", cerr)
		}
	}
	return err
}

// CreateSampleFile creates (truncating) path and returns a SampleWriter on it; Close closes the file.
func CreateSampleFile(path string) (*SampleWriter, error) {
	f, err := safefile.OpenNoFollow(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("harness: log-samples: %w", err)
	}
	return NewSampleWriter(f), nil
}
