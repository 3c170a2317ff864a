package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/oryx-go/oryx/datasets/hfparquet"
)

// DocumentSource yields the documents (texts) of a corpus one at a time, and can say where it is and go back
// there exactly. It is what a Stream reads from.
//
// Position and Seek contract:
//   - Position returns where the source is now: after Seek(Position()), Next returns the same document that
//     Next would have returned had there been no Seek. It is an opaque JSON value, meaningful only to a source
//     of the same kind over the same data.
//   - Seek(nil), Seek of an empty message or Seek of JSON null rewinds to the first document (a Stream uses
//     this to start another epoch).
//   - Next returns io.EOF (and keeps returning it) after the last document.
//
// Name identifies the source in logs, errors and resume cursors (e.g. the file pattern and column).
type DocumentSource interface {
	Next() (string, error)
	Position() json.RawMessage
	Seek(pos json.RawMessage) error
	Name() string
}

// isStartPosition reports whether pos means "the beginning" (nil, empty, or JSON null).
func isStartPosition(pos json.RawMessage) bool {
	p := bytes.TrimSpace(pos)
	return len(p) == 0 || bytes.Equal(p, []byte("null"))
}

// SliceSource is an in-memory DocumentSource over a slice of documents (tests, synthetic text, small corpora).
// Its position is the JSON number of the next document's index.
type SliceSource struct {
	name string
	docs []string
	next int
}

var _ DocumentSource = (*SliceSource)(nil)

// NewSliceSource returns a source yielding docs in order. The slice is not copied.
func NewSliceSource(name string, docs []string) *SliceSource {
	if name == "" {
		name = "slice"
	}
	return &SliceSource{name: name, docs: docs}
}

// Next returns the next document, or io.EOF after the last.
func (s *SliceSource) Next() (string, error) {
	if s.next >= len(s.docs) {
		return "", io.EOF
	}
	d := s.docs[s.next]
	s.next++
	return d, nil
}

// Position is the index of the next document, as a JSON number.
func (s *SliceSource) Position() json.RawMessage {
	return json.RawMessage(fmt.Sprintf("%d", s.next))
}

// Seek goes to the document index pos (a JSON number in [0, len(docs)]); nil or null rewinds.
func (s *SliceSource) Seek(pos json.RawMessage) error {
	if isStartPosition(pos) {
		s.next = 0
		return nil
	}
	var i int
	if err := json.Unmarshal(pos, &i); err != nil {
		return fmt.Errorf("datasets: SliceSource %q: seek position %s is not a document index: %w", s.name, pos, err)
	}
	if i < 0 || i > len(s.docs) {
		return fmt.Errorf("datasets: SliceSource %q: seek position %d out of range [0, %d]", s.name, i, len(s.docs))
	}
	s.next = i
	return nil
}

// Name returns the name given to NewSliceSource.
func (s *SliceSource) Name() string { return s.name }

// Len is the number of documents.
func (s *SliceSource) Len() int { return len(s.docs) }

// ParquetTextSource is a DocumentSource over a string column (usually "text") of a ParquetSet, the shape of
// Hugging Face text corpora. Its position is the hfparquet.Position JSON ({"file":F,"row":R}) of the next row
// the reader will look at, so a checkpointed stream resumes at the exact row even across files.
//
// Policies come from the column reader (see datasets/hfparquet/parquet_columns.go): null rows are skipped and counted
// (Skipped), invalid UTF-8 is repaired to U+FFFD and counted (InvalidUTF8), both logged there. Empty strings
// are returned as documents (a Stream skips and counts them).
type ParquetTextSource struct {
	set    *hfparquet.Set
	col    *hfparquet.StringColumn
	column string
}

var _ DocumentSource = (*ParquetTextSource)(nil)

// NewParquetTextSource reads column (default "text" when empty) of set. The column's existence and type are
// checked in every file now. Close the source when done.
func NewParquetTextSource(set *hfparquet.Set, column string) (*ParquetTextSource, error) {
	if column == "" {
		column = "text"
	}
	col, err := set.Strings(column)
	if err != nil {
		return nil, err
	}
	return &ParquetTextSource{set: set, col: col, column: column}, nil
}

// OpenParquetTextSource opens the parquet files named by pattern (a file, directory or glob; see
// hfparquet.Open) and reads column (default "text") as documents.
func OpenParquetTextSource(pattern, column string) (*ParquetTextSource, error) {
	set, err := hfparquet.Open(pattern)
	if err != nil {
		return nil, err
	}
	return NewParquetTextSource(set, column)
}

// Next returns the next non-null value of the column, or io.EOF after the last file.
func (s *ParquetTextSource) Next() (string, error) {
	v, _, err := s.col.Next()
	return v, err
}

// Position returns the hfparquet.Position JSON of the next row to read.
func (s *ParquetTextSource) Position() json.RawMessage {
	b, err := json.Marshal(s.col.Position())
	if err != nil {
		panic(fmt.Sprintf("datasets: marshalling hfparquet.Position: %v", err)) // two integers: cannot fail
	}
	return b
}

// Seek continues at a position from Position (a hfparquet.Position JSON); nil or null rewinds to the first row.
func (s *ParquetTextSource) Seek(pos json.RawMessage) error {
	var p hfparquet.Position
	if !isStartPosition(pos) {
		dec := json.NewDecoder(bytes.NewReader(pos))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("datasets: %s: seek position %s is not a hfparquet.Position: %w", s.Name(), pos, err)
		}
	}
	return s.col.Seek(p)
}

// Name is "parquet(PATTERN:COLUMN)".
func (s *ParquetTextSource) Name() string {
	return fmt.Sprintf("parquet(%s:%s)", s.set.Pattern(), s.column)
}

// Set returns the underlying ParquetSet.
func (s *ParquetTextSource) Set() *hfparquet.Set { return s.set }

// Skipped returns the number of null rows skipped so far.
func (s *ParquetTextSource) Skipped() int64 { return s.col.Skipped() }

// InvalidUTF8 returns the number of values so far whose invalid UTF-8 was replaced by U+FFFD.
func (s *ParquetTextSource) InvalidUTF8() int64 { return s.col.InvalidUTF8() }

// Progress returns rows passed and total rows (see ParquetColumn.Progress).
func (s *ParquetTextSource) Progress() (done, total int64) { return s.col.Progress() }

// Close closes the open file.
func (s *ParquetTextSource) Close() error { return s.col.Close() }
