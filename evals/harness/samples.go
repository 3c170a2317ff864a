package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// LLSample is the --log-samples line of one loglikelihood request.
type LLSample struct {
	Task          string          `json:"task"`
	Doc           int             `json:"doc"`
	Request       int             `json:"request"` // index of the request within the task
	Type          string          `json:"type"`    // "loglikelihood"
	Context       string          `json:"context"`
	Continuation  string          `json:"continuation"`
	LogLikelihood json.RawMessage `json:"loglikelihood"`
	IsGreedy      bool            `json:"is_greedy"`
	// ContextTokens and ContinuationTokens are the token counts the model scored (after truncation);
	// Truncated tells whether context tokens were dropped; AttentionFrom is the request's split point.
	ContextTokens      int  `json:"context_tokens"`
	ContinuationTokens int  `json:"continuation_tokens"`
	Truncated          bool `json:"truncated"`
	AttentionFrom      int  `json:"attention_from"`
}

// GenSample is the --log-samples line of one generation request.
type GenSample struct {
	Task          string   `json:"task"`
	Doc           int      `json:"doc"`
	Request       int      `json:"request"`
	Type          string   `json:"type"` // "generate_until"
	Prompt        string   `json:"prompt"`
	Generation    string   `json:"generation"` // cut at the first stop string
	Labels        []string `json:"labels"`
	Score         float64  `json:"score"`
	ContextTokens int      `json:"context_tokens"`
	Truncated     bool     `json:"truncated"`
	AttentionFrom int      `json:"attention_from"`
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

// Write appends one sample (any JSON-marshalable value, normally LLSample or GenSample) as a line.
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
