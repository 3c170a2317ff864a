package harness

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/oryx-go/oryx/datasets/hfparquet"
)

// Table is the rows of an evaluation split, read whole (evaluation sets are small).
type Table struct {
	// Pattern is what was opened; File the first file (for messages).
	Pattern, File string
	Rows          []hfparquet.Row
	// Has tells which of the optional columns exist (required ones always do).
	Has map[string]bool
}

// ReadTable reads the required and the present optional columns of every row of the parquet file(s) at
// pattern (hfparquet.Open: a file, a directory or a glob). A missing required column is an error
// naming the file and the column (and listing the file's columns); a value of the wrong type or a null is
// an error naming file, row and column when the task reads it (hfparquet.Row accessors).
func ReadTable(pattern string, required []string, optional ...string) (*Table, error) {
	set, err := hfparquet.Open(pattern)
	if err != nil {
		return nil, err
	}
	set = set.WithLogger(nil)
	files := set.Files()
	t := &Table{Pattern: pattern, File: files[0], Has: map[string]bool{}}
	cols := slices.Clone(required)
	for _, o := range optional {
		present := true
		for _, f := range files {
			names, err := set.Columns(f)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(names, topLevel(o)) {
				present = false
				break
			}
		}
		t.Has[o] = present
		if present {
			cols = append(cols, o)
		}
	}
	rows, err := set.Rows(cols...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for {
		r, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, r)
	}
	return t, nil
}

func topLevel(col string) string {
	top, _, _ := strings.Cut(col, ".")
	return top
}

// Limit returns the number of documents to build given a limit (0: all) and the number available.
func Limit(limit, n int) int {
	if limit > 0 && limit < n {
		return limit
	}
	return n
}

// RowInt reads an integer label that HF stores as an int or as a numeric string ("0".."3"): lm-eval turns
// both into an int. [choice] Either form is accepted; anything else is an error naming file, row and
// column.
func RowInt(r hfparquet.Row, col string) (int, error) {
	switch v := r.Get(col).(type) {
	case int64:
		return int(v), nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("datasets: %s: row %d: column %q: %q is not an integer", r.File, r.Pos.Row, col, v)
		}
		return n, nil
	}
	_, err := r.Int(col) // the accessor's error names file, row, column and the type found
	return 0, err
}

// RowStringOrFirst reads a string column, or the first element of a list<string> column (the JRT cutting
// reads `doc[key][0]` when the value is a list). ok is false for an empty list.
func RowStringOrFirst(r hfparquet.Row, col string) (s string, ok bool, err error) {
	switch v := r.Get(col).(type) {
	case string:
		return v, true, nil
	case []string:
		if len(v) == 0 {
			return "", false, nil
		}
		return v[0], true, nil
	}
	_, err = r.Str(col)
	return "", false, err
}
