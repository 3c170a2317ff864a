package harness

import (
	"errors"
	"fmt"
	"io"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/parquet-go/parquet-go"
)

// ReadDocs returns the first n rows (n ≤ 0: all) of the parquet file(s) at pattern as lm-eval's documents:
// every column, in the file's column order, struct columns as Docs in their fields' order (ARC's choices
// {text, label}), integers as int64 — the dict Hugging Face datasets gives lm-eval for the row, so that
// its json.dumps, and lm-eval's doc_hash of it, are the same. For --log-samples only.
func ReadDocs(pattern string, n int) ([]Doc, error) {
	set, err := hfparquet.Open(pattern)
	if err != nil {
		return nil, err
	}
	set = set.WithLogger(nil)
	files := set.Files()
	cols, err := set.Columns(files[0])
	if err != nil {
		return nil, err
	}
	schema, err := set.Schema(files[0])
	if err != nil {
		return nil, err
	}
	rows, err := set.Rows(cols...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Doc
	for n <= 0 || len(out) < n {
		r, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		d := make(Doc, 0, len(cols))
		for _, c := range cols {
			v, err := orderedValue(r.Values[c], fieldNode(schema, c))
			if err != nil {
				return nil, fmt.Errorf("harness: %s: row %d: column %q: %w", r.File, r.Pos.Row, c, err)
			}
			d = append(d, DocField{c, v})
		}
		out = append(out, d)
	}
	return out, nil
}

// fieldNode returns the schema node of a top-level column (nil when it cannot be found).
func fieldNode(schema *parquet.Schema, col string) parquet.Node {
	for _, f := range schema.Fields() {
		if f.Name() == col {
			return f
		}
	}
	return nil
}

// orderedValue turns the struct values (maps) of a row into Docs in the schema's field order.
func orderedValue(v any, node parquet.Node) (any, error) {
	m, ok := v.(map[string]any)
	if !ok || node == nil {
		return v, nil
	}
	d := make(Doc, 0, len(m))
	for _, f := range node.Fields() {
		if x, ok := m[f.Name()]; ok {
			o, err := orderedValue(x, f)
			if err != nil {
				return nil, err
			}
			d = append(d, DocField{f.Name(), o})
		}
	}
	if len(d) != len(m) {
		return nil, fmt.Errorf("struct fields %v do not match the schema", m)
	}
	return d, nil
}
