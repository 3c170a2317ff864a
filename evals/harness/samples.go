package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
)

// DocSample is one --log-samples record: lm-eval 0.4's per-document sample (doc_id, doc, target,
// arguments, resps, filtered_resps, then each metric's per-document value under its name), plus the
// project's per-request details under "oryx". Arguments, resps and filtered_resps have one entry per
// request of the document, in order, as lm-eval 0.4.2 writes them:
//
//   - loglikelihood, multiple_choice: arguments [context, continuation], resps [[ll, is_greedy]],
//     filtered_resps [ll, is_greedy];
//   - loglikelihood_rolling: arguments [text], resps [[ll]], filtered_resps ll (the document's windows
//     summed, as lm-eval's loglikelihood_rolling returns one number per document);
//   - generate_until: arguments [context, {"until": [...], "max_gen_toks": n, "do_sample": false}], resps
//     [[text]], filtered_resps text (cut at the first stop string).
//
// [choice] lm-eval's doc_hash, prompt_hash and target_hash are left out: they hash Python's json.dumps
// text, which Go's encoder does not reproduce byte for byte.
type DocSample struct {
	DocID         int
	Doc           any
	Target        any
	Arguments     []any
	Resps         []any
	FilteredResps []any
	Metrics       map[string]any
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

// MarshalJSON writes the fields in lm-eval's order, metrics sorted by name, then "oryx".
func (d DocSample) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	field := func(name string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteByte(':')
		enc, err := marshalValue(v)
		if err != nil {
			return fmt.Errorf("sample field %s: %w", name, err)
		}
		b.Write(enc)
		return nil
	}
	b.WriteByte('{')
	nonNil := func(xs []any) []any {
		if xs == nil {
			return []any{}
		}
		return xs
	}
	for _, f := range []struct {
		k string
		v any
	}{{"doc_id", d.DocID}, {"doc", d.Doc}, {"target", d.Target}, {"arguments", nonNil(d.Arguments)},
		{"resps", nonNil(d.Resps)}, {"filtered_resps", nonNil(d.FilteredResps)}} {
		if err := field(f.k, f.v); err != nil {
			return nil, err
		}
	}
	names := make([]string, 0, len(d.Metrics))
	for k := range d.Metrics {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := field(k, d.Metrics[k]); err != nil {
			return nil, err
		}
	}
	if err := field("oryx", map[string]any{"requests": d.Requests}); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalValue is json.Marshal without HTML escaping, with non-finite floats (also inside slices and
// maps) written as jsonFloat writes them.
func marshalValue(v any) ([]byte, error) {
	switch x := v.(type) {
	case float64:
		return jsonFloat(x), nil
	case []any:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			enc, err := marshalValue(e)
			if err != nil {
				return nil, err
			}
			b.Write(enc)
		}
		b.WriteByte(']')
		return b.Bytes(), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
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

// Write appends one sample (any JSON-marshalable value, normally a DocSample) as a line.
func (s *SampleWriter) Write(sample any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sample); err != nil {
		return fmt.Errorf("harness: log-samples: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(buf.Bytes()); err != nil {
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
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("harness: log-samples: %w", err)
	}
	return NewSampleWriter(f), nil
}
