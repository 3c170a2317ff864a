package hfparquet

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// Readers over a Set.
//
// Streaming: a reader holds one file open at a time and, in it, one row group: for every leaf column it reads,
// it decodes one page at a time, a few hundred values at a time, so a 10 GB shard never sits in memory. Rows
// come out in file order, then row order.
//
// Positions: Next returns the Position of the row it returns; Position returns the position of the row
// the next call to Next will look at (store it in a checkpoint); Seek(pos) makes the reader continue from pos
// exactly, skipping whole row groups by their metadata row counts and then rows inside the group (with the
// chunk's offset index when the file has one, so only the pages from the target on are decoded).
//
// Null policy:
//   - Column readers (Strings, Int64s, StringLists, Int64Lists) skip a row whose value is null and count
//     it: Skipped() returns the count, the first skip of a reader and a summary at Close are logged (slog.Warn;
//     see Set.WithLogger).
//     An empty string or empty list is a value, not a null.
//   - Rows (Rows) never skips: a null value is a nil entry in Row.Values and its accessors (Str,
//     Int, ...) return an error naming file, row and column.
//   - A null element inside a list (as opposed to a null list) is an error naming file, row and column in every
//     reader: dropping it would silently shift a list that must stay aligned with another (ARC's choices.text
//     and choices.label).
//
// Invalid UTF-8 policy: a STRING value that is not valid UTF-8 has each maximal run of invalid bytes replaced
// by U+FFFD (strings.ToValidUTF8), so every string a reader returns is valid UTF-8; the values changed are
// counted (InvalidUTF8()) and the first one and a summary at Close are logged. Unannotated BYTE_ARRAY (binary)
// columns are returned as bytes, untouched.
//
// Errors: every error names the file (and, for data errors, the row and column) and starts with "hfparquet:".
// Corrupt input is an error, never a panic, a hang or a huge allocation: footers and page headers are checked
// before parquet-go decodes them (parquet_check.go), and parquet-go panics are recovered. After an error other
// than io.EOF, Next keeps returning that error until Seek is called.
//
// Not supported: LZ4_RAW compression (see checkChunk), encrypted files, MAP columns, lists of structs or of
// lists, INT96/FIXED_LEN_BYTE_ARRAY/DECIMAL/DATE/TIME/TIMESTAMP columns; each is an error naming the column.

// ---- Typed column readers ----

// Column reads one column of a Set as values of type T, skipping (and counting) null rows. Get
// one with Set.Strings, Int64s, StringLists or Int64Lists. Close it when done.
type Column[T any] struct {
	core    *columnReader
	column  string
	decode  func(vals []leafValue, p *columnPlan) (v T, null bool, err error)
	skipped int64
}

// StringColumn reads a STRING column (e.g. the "text" of a training corpus); see Set.Strings.
type StringColumn = Column[string]

// Int64Column reads an INT32 or INT64 column as int64; see Set.Int64s.
type Int64Column = Column[int64]

// StringListColumn reads a list<string> column; see Set.StringLists.
type StringListColumn = Column[[]string]

// Int64ListColumn reads a list<int32> or list<int64> column (e.g. pre-tokenized ids); see Set.Int64Lists.
type Int64ListColumn = Column[[]int64]

// Strings opens a reader of a STRING column (BYTE_ARRAY annotated STRING/UTF8, ENUM or JSON). The column may be
// a top-level column or a dotted path to a struct field ("meta.title"). Every file of the set is checked now:
// an error names the first file where the column is missing (listing its columns) or has another type (naming
// the actual and the expected type).
func (s *Set) Strings(column string) (*StringColumn, error) {
	return newColumn(s, column, wantString, func(vals []leafValue, p *columnPlan) (string, bool, error) {
		v := vals[0]
		return v.s, v.def < p.fullDef, nil
	})
}

// Int64s opens a reader of an integer column: INT64, or INT32 (HF int32 features such as boolq's idx; also
// 8/16-bit and unsigned annotations narrower than 64 bits), returned as int64. Checks as for Strings.
func (s *Set) Int64s(column string) (*Int64Column, error) {
	return newColumn(s, column, wantInt, func(vals []leafValue, p *columnPlan) (int64, bool, error) {
		v := vals[0]
		return v.i, v.def < p.fullDef, nil
	})
}

// StringLists opens a reader of a list<string> column (e.g. hellaswag's endings, or choices.text). A null list
// is skipped and counted, an empty list is returned as an empty (non-nil) slice, a null element is an error.
func (s *Set) StringLists(column string) (*StringListColumn, error) {
	return newColumn(s, column, wantStringList, func(vals []leafValue, p *columnPlan) ([]string, bool, error) {
		return listOf(vals, p, func(v leafValue) string { return v.s })
	})
}

// Int64Lists opens a reader of a list<int32> or list<int64> column (e.g. pre-tokenized input_ids), returned as
// []int64. Nulls as for StringLists.
func (s *Set) Int64Lists(column string) (*Int64ListColumn, error) {
	return newColumn(s, column, wantIntList, func(vals []leafValue, p *columnPlan) ([]int64, bool, error) {
		return listOf(vals, p, func(v leafValue) int64 { return v.i })
	})
}

func newColumn[T any](s *Set, column string, want wantType, decode func([]leafValue, *columnPlan) (T, bool, error)) (*Column[T], error) {
	core, err := newColumnReader(s, []string{column}, &want)
	if err != nil {
		return nil, err
	}
	return &Column[T]{core: core, column: column, decode: decode}, nil
}

// Next returns the next non-null value and its position. At the end of the set it returns io.EOF.
func (c *Column[T]) Next() (value T, pos Position, err error) {
	var zero T
	for {
		pos, err := c.core.next()
		if err != nil {
			return zero, pos, err
		}
		v, null, err := c.decode(c.core.rows[0], c.core.plans[c.core.fileIdx][0])
		if err != nil {
			return zero, pos, c.core.fail(fmt.Errorf("hfparquet: %s: row %d: column %q: %w", c.core.path(), pos.Row, c.column, err))
		}
		if null {
			c.skipped++
			if c.skipped == 1 {
				c.core.set.warn("hfparquet: skipping null values (counted in Skipped)", "file", c.core.path(), "row", pos.Row, "column", c.column)
			}
			continue
		}
		return v, pos, nil
	}
}

// Seek makes the reader continue at pos (see Position): the next Next returns the first non-null value
// at or after pos. pos.Row may equal the file's row count (the start of the next file). An out-of-range
// position is an error. Seek also clears a previous error.
func (c *Column[T]) Seek(pos Position) error { return c.core.seek(pos) }

// Position returns the position of the next row Next will look at: store it to resume with Seek.
func (c *Column[T]) Position() Position { return c.core.pos }

// Progress returns the rows passed so far (null rows included; after a Seek, every row before the position
// counts as passed) and the total rows of the set, for progress bars.
func (c *Column[T]) Progress() (done, total int64) { return c.core.progress() }

// Skipped returns the number of null rows skipped so far.
func (c *Column[T]) Skipped() int64 { return c.skipped }

// InvalidUTF8 returns the number of string values so far whose invalid UTF-8 was replaced by U+FFFD.
func (c *Column[T]) InvalidUTF8() int64 { return c.core.invalidUTF8 }

// Close closes the open file. It logs a summary when values were skipped or repaired.
func (c *Column[T]) Close() error {
	if c.skipped > 0 {
		c.core.set.warn("hfparquet: parquet column had null values, skipped", "pattern", c.core.set.pattern, "column", c.column, "skipped", c.skipped)
	}
	return c.core.close()
}

// listOf decodes a list column's values for one row. null is set for a null list.
func listOf[T any](vals []leafValue, p *columnPlan, get func(leafValue) T) (out []T, null bool, err error) {
	first := vals[0]
	if first.def < p.nullDef {
		return nil, true, nil
	}
	if first.def < p.emptyDef {
		return []T{}, false, nil
	}
	out = make([]T, len(vals))
	for i, v := range vals {
		if v.def < p.fullDef {
			if v.def < p.emptyDef {
				return nil, false, fmt.Errorf("corrupt list (definition level %d inside a list)", v.def)
			}
			return nil, false, fmt.Errorf("null element %d in list", i)
		}
		out[i] = get(v)
	}
	return out, false, nil
}

// ---- Generic rows ----

// Rows reads several columns of a Set row by row; see Set.Rows. Close it when done.
type Rows struct {
	core    *columnReader
	columns []string
}

// Row is one row read by Rows. Values maps each requested column name to its value:
//
//	STRING                    string
//	INT32, INT64              int64
//	BOOLEAN                   bool
//	FLOAT, DOUBLE             float64
//	BYTE_ARRAY (binary)       []byte
//	list<T> of the above      []string, []int64, []bool, []float64, [][]byte (empty lists are non-nil)
//	struct (group)            map[string]any with the same rules for its fields
//	null                      nil
type Row struct {
	File   string   // path of the file the row is in
	Pos    Position // position of the row
	Values map[string]any
}

// Rows opens a reader of the named columns (all top-level columns of the first file when none is named). A
// name is a top-level column or a dotted path to a struct field ("choices.label"). Supported types: string,
// integers (INT32/INT64), boolean, float/double, binary, lists of these, and structs of all of these (ARC's
// choices {text: list<string>, label: list<string>}). Every file of the set is checked now; an error names the
// file and column and the unsupported or missing part. Nulls are returned as nil, never skipped.
func (s *Set) Rows(columns ...string) (*Rows, error) {
	if len(columns) == 0 {
		if len(s.files) > 0 {
			columns = s.files[0].root.childNames()
		}
		if len(columns) == 0 {
			return nil, fmt.Errorf("hfparquet: parquet set %q has no columns", s.pattern)
		}
	}
	core, err := newColumnReader(s, columns, nil)
	if err != nil {
		return nil, err
	}
	return &Rows{core: core, columns: columns}, nil
}

// Next returns the next row. At the end of the set it returns io.EOF.
func (r *Rows) Next() (Row, error) {
	pos, err := r.core.next()
	if err != nil {
		return Row{}, err
	}
	row := Row{File: r.core.path(), Pos: pos, Values: make(map[string]any, len(r.columns))}
	plans := r.core.plans[r.core.fileIdx]
	for i, col := range r.columns {
		v, err := buildValue(r.core.rows, plans[i])
		if err != nil {
			return Row{}, r.core.fail(fmt.Errorf("hfparquet: %s: row %d: column %q: %w", row.File, pos.Row, col, err))
		}
		row.Values[col] = v
	}
	return row, nil
}

// Seek makes the reader continue at pos; see Column.Seek.
func (r *Rows) Seek(pos Position) error { return r.core.seek(pos) }

// Position returns the position of the row the next Next returns: store it to resume with Seek.
func (r *Rows) Position() Position { return r.core.pos }

// Progress returns the rows passed so far and the total rows of the set.
func (r *Rows) Progress() (done, total int64) { return r.core.progress() }

// InvalidUTF8 returns the number of string values so far whose invalid UTF-8 was replaced by U+FFFD.
func (r *Rows) InvalidUTF8() int64 { return r.core.invalidUTF8 }

// Close closes the open file.
func (r *Rows) Close() error { return r.core.close() }

// buildValue decodes the value of plan p from the leaf values of one row.
func buildValue(rows [][]leafValue, p *columnPlan) (any, error) {
	switch p.shape {
	case shapeScalar:
		v := rows[p.slot][0]
		if v.def < p.fullDef {
			return nil, nil
		}
		return v.value(p.kind), nil
	case shapeList:
		vals := rows[p.slot]
		var out any
		var null bool
		var err error
		switch p.kind {
		case kindString:
			out, null, err = listOf(vals, p, func(v leafValue) string { return v.s })
		case kindInt:
			out, null, err = listOf(vals, p, func(v leafValue) int64 { return v.i })
		case kindBool:
			out, null, err = listOf(vals, p, func(v leafValue) bool { return v.b })
		case kindFloat:
			out, null, err = listOf(vals, p, func(v leafValue) float64 { return v.f })
		case kindBytes:
			out, null, err = listOf(vals, p, func(v leafValue) []byte { return []byte(v.s) })
		}
		if err != nil || null {
			return nil, err
		}
		return out, nil
	default: // shapeStruct
		if rows[p.firstSlot()][0].def < p.nullDef {
			return nil, nil
		}
		m := make(map[string]any, len(p.fields))
		for i, f := range p.fields {
			v, err := buildValue(rows, f)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", p.names[i], err)
			}
			m[p.names[i]] = v
		}
		return m, nil
	}
}

// Get returns the value of column, nil when it is null or absent. A dotted name ("choices.label") that was not
// requested as such is looked up inside the struct values.
func (r Row) Get(column string) any {
	v, _ := r.lookup(column)
	return v
}

func (r Row) lookup(column string) (any, bool) {
	if v, ok := r.Values[column]; ok {
		return v, true
	}
	var cur any = map[string]any(r.Values)
	for part := range strings.SplitSeq(column, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Str returns a string column's value; null, absent or another type is an error naming file, row and column.
func (r Row) Str(column string) (string, error) { return rowGet[string](r, column, "string") }

// Int returns an integer column's value as int64.
func (r Row) Int(column string) (int64, error) { return rowGet[int64](r, column, "integer") }

// Bool returns a boolean column's value.
func (r Row) Bool(column string) (bool, error) { return rowGet[bool](r, column, "boolean") }

// Float returns a FLOAT or DOUBLE column's value as float64.
func (r Row) Float(column string) (float64, error) {
	return rowGet[float64](r, column, "float")
}

// StrList returns a list<string> column's value (e.g. "choices.label").
func (r Row) StrList(column string) ([]string, error) {
	return rowGet[[]string](r, column, "list<string>")
}

// IntList returns a list<int32|int64> column's value as []int64.
func (r Row) IntList(column string) ([]int64, error) {
	return rowGet[[]int64](r, column, "list<integer>")
}

func rowGet[T any](r Row, column, want string) (T, error) {
	var zero T
	v, ok := r.lookup(column)
	if !ok {
		return zero, fmt.Errorf("hfparquet: %s: row %d: no column %q in the row (read it with Rows)", r.File, r.Pos.Row, column)
	}
	if v == nil {
		return zero, fmt.Errorf("hfparquet: %s: row %d: column %q is null", r.File, r.Pos.Row, column)
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("hfparquet: %s: row %d: column %q is %T, want %s", r.File, r.Pos.Row, column, v, want)
	}
	return t, nil
}

// ---- The streaming core ----

// leafValue is one decoded leaf value with its levels.
type leafValue struct {
	def, rep int32
	s        string // kindString, kindBytes
	i        int64  // kindInt
	f        float64
	b        bool
}

func (v leafValue) value(k valueKind) any {
	switch k {
	case kindString:
		return v.s
	case kindInt:
		return v.i
	case kindBool:
		return v.b
	case kindFloat:
		return v.f
	default:
		return []byte(v.s)
	}
}

// columnReader streams the rows of a set for a list of columns: it is the part shared by Column and
// Rows.
type columnReader struct {
	set   *Set
	plans [][]*columnPlan // per file, per column
	slots [][]leafSlot    // per file: the leaves read

	pos         Position // next row
	fileIdx     int      // file of the row returned last (plans index), valid after next
	positioned  bool     // cursors are placed at pos
	osFile      *os.File
	parquetFile *parquet.File
	openIdx     int   // index of the open file, -1 when none
	group       int   // row group of the cursors
	groupEnd    int64 // row (in the file) where that group ends
	cursors     []chunkCursor
	rows        [][]leafValue // per slot: the values of the last row
	err         error         // sticky error

	invalidUTF8 int64
	loggedUTF8  bool
}

func newColumnReader(s *Set, columns []string, want *wantType) (*columnReader, error) {
	r := &columnReader{set: s, openIdx: -1}
	for _, m := range s.files {
		var slots []leafSlot
		var plans []*columnPlan
		for _, col := range columns {
			p, err := m.plan(col, want, &slots)
			if err != nil {
				return nil, err
			}
			plans = append(plans, p)
		}
		r.plans = append(r.plans, plans)
		r.slots = append(r.slots, slots)
	}
	return r, nil
}

func (r *columnReader) path() string {
	if r.fileIdx < len(r.set.files) {
		return r.set.files[r.fileIdx].path
	}
	return r.set.pattern
}

func (r *columnReader) fail(err error) error {
	r.err = err
	return err
}

func (r *columnReader) progress() (done, total int64) {
	total = r.set.starts[len(r.set.starts)-1]
	if r.pos.File >= len(r.set.files) {
		return total, total
	}
	return r.set.starts[r.pos.File] + r.pos.Row, total
}

func (r *columnReader) seek(pos Position) error {
	n := len(r.set.files)
	switch {
	case pos.File < 0 || pos.File > n || pos.Row < 0:
		return fmt.Errorf("hfparquet: parquet set %q: position %v out of range (%d files)", r.set.pattern, pos, n)
	case pos.File == n && pos.Row != 0:
		return fmt.Errorf("hfparquet: parquet set %q: position %v out of range (%d files)", r.set.pattern, pos, n)
	case pos.File < n && pos.Row > r.set.files[pos.File].numRows:
		return fmt.Errorf("hfparquet: %s: position %v out of range: the file has %d rows", r.set.files[pos.File].path, pos, r.set.files[pos.File].numRows)
	}
	r.err = nil
	r.pos = pos
	r.positioned = false
	return nil
}

// next reads the row at r.pos into r.rows and advances. It returns the row's position.
func (r *columnReader) next() (pos Position, err error) {
	if r.err != nil {
		return r.pos, r.err
	}
	path := ""
	defer func() {
		if err != nil && err != io.EOF {
			r.err = err
			r.closeFile() // a later Seek starts afresh
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("hfparquet: %s: corrupt parquet file (reader panicked: %v)", path, p)
		}
	}()
	for {
		if r.pos.File >= len(r.set.files) {
			r.closeFile()
			return r.pos, io.EOF
		}
		m := r.set.files[r.pos.File]
		path = m.path
		if r.pos.Row >= m.numRows {
			r.pos = Position{File: r.pos.File + 1}
			r.positioned = false
			continue
		}
		if !r.positioned {
			if err := r.place(); err != nil {
				return r.pos, err
			}
		}
		if r.pos.Row >= r.groupEnd {
			if err := r.openGroup(r.group+1, 0); err != nil {
				return r.pos, err
			}
			continue
		}
		for i := range r.cursors {
			if r.rows[i], err = r.cursors[i].readRow(r.rows[i][:0]); err != nil {
				if err == io.EOF {
					err = errors.New("column chunk ends before the row group's row count")
				}
				return r.pos, fmt.Errorf("hfparquet: %s: row %d: column %q: %w", m.path, r.pos.Row, r.cursors[i].slot.path, err)
			}
		}
		pos = r.pos
		r.fileIdx = pos.File
		r.pos.Row++
		return pos, nil
	}
}

// usePageIndex makes readers load the offset index of a column chunk, so that seeking inside a row group
// jumps to the right page. Without it, parquet-go finds the page by reading the pages before it. Tests turn it
// off to check both paths.
var usePageIndex = true

// place opens the file of r.pos if needed and puts the cursors at r.pos.
func (r *columnReader) place() error {
	m := r.set.files[r.pos.File]
	if r.openIdx != r.pos.File {
		r.closeFile()
		f, pf, err := openFile(m.path)
		if err != nil {
			return err
		}
		r.osFile, r.parquetFile, r.openIdx = f, pf, r.pos.File
		if len(pf.Metadata().Schema) != m.numSchema || len(pf.RowGroups()) != len(m.groupRows) || pf.Size() != m.size {
			return fmt.Errorf("hfparquet: %s: file changed since Open", m.path)
		}
		for i, g := range pf.RowGroups() {
			if g.NumRows() != m.groupRows[i] {
				return fmt.Errorf("hfparquet: %s: file changed since Open", m.path)
			}
		}
		slots := r.slots[r.pos.File]
		r.cursors = make([]chunkCursor, len(slots))
		r.rows = make([][]leafValue, len(slots))
		for i := range slots {
			r.cursors[i] = chunkCursor{slot: slots[i], r: r}
		}
	}
	start := int64(0)
	for g, n := range m.groupRows {
		if r.pos.Row < start+n {
			r.groupEnd = start // openGroup adds n
			if err := r.openGroup(g, r.pos.Row-start); err != nil {
				return err
			}
			r.positioned = true
			return nil
		}
		start += n
	}
	return fmt.Errorf("hfparquet: %s: row %d beyond the row groups", m.path, r.pos.Row)
}

// openGroup puts the cursors at row skip of row group g of the open file.
func (r *columnReader) openGroup(g int, skip int64) error {
	m := r.set.files[r.openIdx]
	if g >= len(m.groupRows) {
		return fmt.Errorf("hfparquet: %s: row %d beyond the row groups", m.path, r.pos.Row)
	}
	r.groupEnd += m.groupRows[g] // place sets groupEnd to the group's first row; sequentially it is the previous end
	r.group = g
	chunks := r.parquetFile.RowGroups()[g].ColumnChunks()
	rg := &r.parquetFile.Metadata().RowGroups[g]
	for i := range r.cursors {
		c := &r.cursors[i]
		if c.slot.leaf >= len(chunks) || c.slot.leaf >= len(rg.Columns) {
			return fmt.Errorf("hfparquet: %s: row group %d lacks column %q", m.path, g, c.slot.path)
		}
		info := chunkInfo{group: g, rows: m.groupRows[g], repeated: c.slot.repeated, useIndex: usePageIndex}
		if err := checkChunk(r.osFile, m.size, rg, &rg.Columns[c.slot.leaf], chunks[c.slot.leaf], info); err != nil {
			return fmt.Errorf("hfparquet: %s: row group %d: column %q: corrupt parquet file: %w", m.path, g, c.slot.path, err)
		}
		if err := c.reset(chunks[c.slot.leaf], skip); err != nil {
			return fmt.Errorf("hfparquet: %s: row group %d: column %q: seeking to row %d: %w", m.path, g, c.slot.path, skip, err)
		}
	}
	return nil
}

func (r *columnReader) closeFile() {
	cursors, f := r.cursors, r.osFile
	r.cursors, r.rows, r.osFile, r.parquetFile, r.openIdx, r.positioned = nil, nil, nil, nil, -1, false
	if f != nil {
		defer f.Close()
	}
	defer func() { _ = recover() }() // closing pages after a corrupt read must not panic; the error was reported
	for i := range cursors {
		cursors[i].close()
	}
}

func (r *columnReader) close() (err error) {
	defer recoverCorrupt(&err, r.set.pattern)
	if r.invalidUTF8 > 0 {
		r.set.warn("hfparquet: parquet strings had invalid UTF-8, replaced by U+FFFD", "pattern", r.set.pattern, "values", r.invalidUTF8)
	}
	r.closeFile()
	r.err = errors.New("hfparquet: parquet reader is closed")
	return nil
}

// chunkCursor reads the values of one leaf column chunk, page by page.
type chunkCursor struct {
	slot   leafSlot
	r      *columnReader
	pages  parquet.Pages
	page   parquet.Page
	values parquet.ValueReader
	buf    []parquet.Value
	i, n   int
}

const cursorBatch = 256

func (c *chunkCursor) reset(chunk parquet.ColumnChunk, skip int64) error {
	c.close()
	c.pages = chunk.Pages()
	if skip > 0 {
		if err := c.pages.SeekToRow(skip); err != nil {
			return err
		}
	}
	return nil
}

func (c *chunkCursor) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	c.values = nil
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
	c.i, c.n = 0, 0
}

// fill makes c.buf[c.i] the next value, reading pages as needed; io.EOF at the end of the column chunk.
func (c *chunkCursor) fill() error {
	for c.i >= c.n {
		if c.values != nil {
			if c.buf == nil {
				c.buf = make([]parquet.Value, cursorBatch)
			}
			n, err := c.values.ReadValues(c.buf)
			c.i, c.n = 0, n
			if err != nil && err != io.EOF {
				return err
			}
			if n > 0 {
				return nil
			}
			// The page is exhausted and every value of it was converted: give its buffers back.
			parquet.Release(c.page)
			c.page, c.values = nil, nil
		}
		if c.pages == nil {
			return io.EOF
		}
		p, err := c.pages.ReadPage()
		if err == io.EOF {
			c.pages.Close()
			c.pages = nil
			return io.EOF
		}
		if err != nil {
			return err
		}
		c.page, c.values = p, p.Values()
	}
	return nil
}

// readRow appends the values of the next row to dst.
func (c *chunkCursor) readRow(dst []leafValue) ([]leafValue, error) {
	if err := c.fill(); err != nil {
		return dst, err
	}
	if c.buf[c.i].RepetitionLevel() != 0 {
		return dst, fmt.Errorf("corrupt column chunk: row starts at repetition level %d", c.buf[c.i].RepetitionLevel())
	}
	for {
		v, err := c.convert(c.buf[c.i])
		if err != nil {
			return dst, err
		}
		dst = append(dst, v)
		c.i++
		if err := c.fill(); err == io.EOF {
			return dst, nil
		} else if err != nil {
			return dst, err
		}
		if c.buf[c.i].RepetitionLevel() == 0 {
			return dst, nil
		}
	}
}

// convert copies a parquet value (which points into page memory) into a leafValue.
func (c *chunkCursor) convert(v parquet.Value) (leafValue, error) {
	out := leafValue{def: int32(v.DefinitionLevel()), rep: int32(v.RepetitionLevel())}
	if int(out.def) > c.slot.maxDef {
		return out, fmt.Errorf("corrupt column chunk: definition level %d above the maximum %d", out.def, c.slot.maxDef)
	}
	if int(out.def) < c.slot.maxDef || v.IsNull() {
		if int(out.def) == c.slot.maxDef {
			return out, errors.New("corrupt column chunk: null value at the maximum definition level")
		}
		return out, nil
	}
	k := v.Kind()
	switch c.slot.kind {
	case kindString, kindBytes:
		if k != parquet.ByteArray {
			return out, fmt.Errorf("corrupt column chunk: %v value in a BYTE_ARRAY column", k)
		}
		out.s = string(v.ByteArray())
		if c.slot.kind == kindString && !utf8.ValidString(out.s) {
			out.s = strings.ToValidUTF8(out.s, "\uFFFD")
			c.r.invalidUTF8++
			if !c.r.loggedUTF8 {
				c.r.loggedUTF8 = true
				c.r.set.warn("hfparquet: invalid UTF-8 replaced by U+FFFD (counted in InvalidUTF8)", "file", c.r.set.files[c.r.openIdx].path, "row", c.r.pos.Row, "column", c.slot.path)
			}
		}
	case kindInt:
		switch {
		case k == parquet.Int32 && c.slot.unsigned:
			out.i = int64(uint32(v.Int32()))
		case k == parquet.Int32:
			out.i = int64(v.Int32())
		case k == parquet.Int64:
			out.i = v.Int64()
		default:
			return out, fmt.Errorf("corrupt column chunk: %v value in an integer column", k)
		}
	case kindBool:
		if k != parquet.Boolean {
			return out, fmt.Errorf("corrupt column chunk: %v value in a BOOLEAN column", k)
		}
		out.b = v.Boolean()
	case kindFloat:
		switch k {
		case parquet.Float:
			out.f = float64(v.Float())
		case parquet.Double:
			out.f = v.Double()
		default:
			return out, fmt.Errorf("corrupt column chunk: %v value in a float column", k)
		}
	}
	return out, nil
}
