package hfparquet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

// Writer streams rows of type T into a parquet file. The rows go to a temporary file next to path; Close
// flushes it and renames it to path, so a reader never sees a partial file and a crash leaves path untouched.
// T is a struct whose fields map to columns by their `parquet:"name"` tags (see parquet-go): string, integers,
// bool, floats, slices with the `list` tag (the standard 3-level LIST layout HF uses), nested structs. A field
// tagged `optional` writes its zero value as null; use a pointer field for a nullable column whose zero value
// is meaningful.
type Writer[T any] struct {
	path string
	tmp  *os.File
	w    *parquet.GenericWriter[T]
	err  error // sticky
	done bool
}

// NewWriter creates a Writer for path. The default options are SNAPPY compression (as HF files);
// opts (parquet.MaxRowsPerRowGroup, parquet.PageBufferSize, parquet.KeyValueMetadata, a *parquet.Schema, ...)
// are applied after the defaults.
func NewWriter[T any](path string, opts ...parquet.WriterOption) (pw *Writer[T], err error) {
	defer recoverCorrupt(&err, path)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("hfparquet: writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	all := append([]parquet.WriterOption{parquet.Compression(&parquet.Snappy)}, opts...)
	return &Writer[T]{path: path, tmp: tmp, w: parquet.NewGenericWriter[T](tmp, all...)}, nil
}

// Write appends rows. Rows are buffered into the current row group, which is flushed when it reaches the
// writer's row-group limits (parquet.MaxRowsPerRowGroup), so memory stays bounded.
func (pw *Writer[T]) Write(rows ...T) (err error) {
	if pw.err != nil {
		return pw.err
	}
	if pw.done {
		return fmt.Errorf("hfparquet: writing %s: writer is closed", pw.path)
	}
	defer func() {
		if err != nil {
			pw.err = err
		}
	}()
	defer recoverCorrupt(&err, pw.path)
	if _, err := pw.w.Write(rows); err != nil {
		return fmt.Errorf("hfparquet: writing %s: %w", pw.path, err)
	}
	return nil
}

// Flush ends the current row group (useful to make several row groups of chosen sizes).
func (pw *Writer[T]) Flush() (err error) {
	if pw.err != nil {
		return pw.err
	}
	defer recoverCorrupt(&err, pw.path)
	if err := pw.w.Flush(); err != nil {
		pw.err = fmt.Errorf("hfparquet: writing %s: %w", pw.path, err)
		return pw.err
	}
	return nil
}

// Close writes the footer, syncs the temporary file and renames it to path. After an error (here or in an
// earlier Write), the temporary file is removed and path is left as it was.
func (pw *Writer[T]) Close() (err error) {
	if pw.done {
		return pw.err
	}
	pw.done = true
	tmpName := pw.tmp.Name()
	defer func() {
		if err != nil {
			pw.tmp.Close()
			os.Remove(tmpName)
			pw.err = err
		}
	}()
	defer recoverCorrupt(&err, pw.path)
	if pw.err != nil {
		return pw.err
	}
	if err := pw.w.Close(); err != nil {
		return fmt.Errorf("hfparquet: writing %s: %w", pw.path, err)
	}
	if err := pw.tmp.Sync(); err != nil {
		return fmt.Errorf("hfparquet: writing %s: %w", pw.path, err)
	}
	if err := pw.tmp.Close(); err != nil {
		return fmt.Errorf("hfparquet: writing %s: %w", pw.path, err)
	}
	if err := os.Rename(tmpName, pw.path); err != nil {
		return fmt.Errorf("hfparquet: writing %s: %w", pw.path, err)
	}
	return nil
}

// Abort discards the file being written: the temporary file is removed and path is left as it was.
func (pw *Writer[T]) Abort() error {
	if pw.done {
		return nil
	}
	pw.done = true
	pw.err = errors.New("hfparquet: writing " + pw.path + ": aborted")
	pw.tmp.Close()
	return os.Remove(pw.tmp.Name())
}

// WriteFile writes rows to path atomically (temporary file, then rename); see Writer for T and opts.
func WriteFile[T any](path string, rows []T, opts ...parquet.WriterOption) error {
	pw, err := NewWriter[T](path, opts...)
	if err != nil {
		return err
	}
	if err := pw.Write(rows...); err != nil {
		pw.Abort()
		return err
	}
	return pw.Close()
}
