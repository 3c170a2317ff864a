// Package hfparquet reads and writes Hugging Face parquet: a set of files (one file, a directory or a glob),
// schema checks, and readers that stream row groups page by page with a resumable position.
//
// The pieces:
//
//	parquet.go          Set (open, files, row counts, schema), Position, the schema model and
//	                    the type checks shared by every reader
//	parquet_columns.go  the readers: Column[T] (Strings, Int64s, StringLists, Int64Lists) and
//	                    Rows (Rows), both built on one streaming core
//	parquet_write.go    WriteFile and Writer (atomic: temporary file, then rename)
//	parquet_check.go    bounds checks of footers and page headers before parquet-go decodes them
//
// Layout facts the readers handle (as pyarrow and the Hugging Face hub write them): every column may be nullable ("optional", as
// pyarrow writes it), lists use the 3-level LIST layout (optional group x (LIST) { repeated group list {
// optional element } }, the legacy 2-level forms are accepted too), struct columns such as ARC's choices
// {text: list<string>, label: list<string>} are groups, and the HF features JSON sits in the key/value metadata
// under "huggingface" (see Set.Metadata).
package hfparquet

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/oryx-go/oryx/internal/safefile"
)

// FeaturesKey is the key/value metadata key under which Hugging Face (datasets, the parquet converter)
// stores the dataset's features JSON: Set.Metadata(file, FeaturesKey).
const FeaturesKey = "huggingface"

// Position is a row of a Set: File indexes Set.Files() and Row counts the rows of that
// file from 0, null rows included. It is JSON-serialisable, so a training run can store it in a checkpoint and
// resume exactly with Seek. The position just past the last row is {File: len(Files()), Row: 0}.
type Position struct {
	File int   `json:"file"`
	Row  int64 `json:"row"`
}

// String renders the position as "file F row R".
func (p Position) String() string { return fmt.Sprintf("file %d row %d", p.File, p.Row) }

// Set is an ordered list of parquet files opened with Open. Opening reads only each file's footer
// (schema, row-group row counts, key/value metadata); data is read later, row group by row group and page by
// page, by the readers Strings, Int64s, StringLists, Int64Lists and Rows. A Set is immutable and safe for
// concurrent use; each reader opens its own file handles and is for one goroutine.
type Set struct {
	pattern   string
	files     []*fileMeta
	starts    []int64 // starts[i] = rows in files[:i]; len(files)+1 entries
	logger    *slog.Logger
	loggerSet bool
}

// fileMeta is what Open keeps of one file: no data, only the footer.
type fileMeta struct {
	path      string
	size      int64
	groupRows []int64 // rows of each row group
	numRows   int64   // sum of groupRows
	numSchema int     // number of schema elements (to detect a file replaced after Open)
	root      *schemaNode
	schema    *parquet.Schema
	kv        map[string]string
}

// Open opens the parquet files named by pattern:
//   - a file: that file (whatever its name);
//   - a directory: every *.parquet file below it (recursively; names starting with "." are skipped), sorted by
//     path;
//   - a glob (filepath.Glob syntax; "**" is not special): the matching files, sorted; a matched directory
//     stands for the *.parquet files below it.
//
// A pattern that matches no file is an error naming the pattern. Every file's footer is read and checked now,
// so that an empty, truncated or non-parquet file fails here, with an error naming the file, before a long run
// starts. Row data is not read.
func Open(pattern string) (*Set, error) {
	paths, err := expandPattern(pattern)
	if err != nil {
		return nil, err
	}
	s := &Set{pattern: pattern, starts: make([]int64, 1, len(paths)+1)}
	for _, p := range paths {
		m, err := readMeta(p)
		if err != nil {
			return nil, err
		}
		s.files = append(s.files, m)
		s.starts = append(s.starts, s.starts[len(s.starts)-1]+m.numRows)
	}
	return s, nil
}

// expandPattern turns the pattern into the sorted list of files.
func expandPattern(pattern string) ([]string, error) {
	if pattern == "" {
		return nil, errors.New("hfparquet: empty parquet pattern")
	}
	if st, err := os.Stat(pattern); err == nil {
		if !st.IsDir() {
			return []string{pattern}, nil
		}
		files, err := Walk(pattern)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("hfparquet: parquet directory %q holds no *.parquet files", pattern)
		}
		return files, nil
	} else if !hasGlobMeta(pattern) {
		return nil, fmt.Errorf("hfparquet: parquet pattern %q: %w", pattern, err)
	}
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("hfparquet: parquet pattern %q: %w", pattern, err)
	}
	var files []string
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil {
			return nil, fmt.Errorf("hfparquet: parquet pattern %q: %w", pattern, err)
		}
		if st.IsDir() {
			sub, err := Walk(m)
			if err != nil {
				return nil, err
			}
			files = append(files, sub...)
		} else {
			files = append(files, m)
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("hfparquet: parquet pattern %q matches no files", pattern)
	}
	return files, nil
}

func hasGlobMeta(pattern string) bool { return strings.ContainsAny(pattern, `*?[\`) }

// Walk lists the *.parquet files below dir, sorted, skipping names that start with ".".
func Walk(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".parquet") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("hfparquet: listing parquet directory %q: %w", dir, err)
	}
	slices.Sort(files)
	return files, nil
}

// recoverCorrupt turns a panic inside parquet-go (which can happen on corrupt input) into an error naming the file.
// Use as: defer recoverCorrupt(&err, path).
func recoverCorrupt(err *error, path string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("hfparquet: %s: corrupt parquet file (reader panicked: %v)", path, r)
	}
}

// openFile opens path with parquet-go, which reads the footer only (the page index of a column chunk is
// loaded when the chunk is read; see checkChunk).
func openFile(path string) (f *os.File, pf *parquet.File, err error) {
	defer recoverCorrupt(&err, path)
	defer func() {
		if err != nil && f != nil {
			f.Close()
			f = nil
		}
	}()
	f, err = safefile.Open(path) // a FIFO or device named *.parquet is refused, not waited on
	if err != nil {
		return nil, nil, fmt.Errorf("hfparquet: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		return f, nil, fmt.Errorf("hfparquet: %w", err)
	}
	if st.IsDir() {
		return f, nil, fmt.Errorf("hfparquet: %s: is a directory, not a parquet file", path)
	}
	// The smallest parquet file is "PAR1" + footer + footer length (4 bytes) + "PAR1".
	if st.Size() < 12 {
		return f, nil, fmt.Errorf("hfparquet: %s: not a parquet file: %d bytes is too small (empty or truncated)", path, st.Size())
	}
	// Check the footer before parquet-go allocates and decodes what it announces.
	if err := checkFooter(f, st.Size()); err != nil {
		return f, nil, fmt.Errorf("hfparquet: %s: not a valid parquet file (truncated or corrupt?): %w", path, err)
	}
	pf, err = parquet.OpenFile(f, st.Size(),
		parquet.SkipPageIndex(true),
		parquet.SkipBloomFilters(true),
		parquet.ReadBufferSize(256<<10),
	)
	if err != nil {
		return f, nil, fmt.Errorf("hfparquet: %s: not a valid parquet file (truncated or corrupt?): %w", path, err)
	}
	return f, pf, nil
}

// readMeta reads and checks the footer of one file.
func readMeta(path string) (m *fileMeta, err error) {
	f, pf, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer recoverCorrupt(&err, path)
	md := pf.Metadata()
	m = &fileMeta{path: path, size: pf.Size(), numSchema: len(md.Schema), schema: pf.Schema(), kv: map[string]string{}}
	for i, g := range md.RowGroups {
		if g.NumRows < 0 {
			return nil, fmt.Errorf("hfparquet: %s: corrupt parquet file: row group %d has %d rows", path, i, g.NumRows)
		}
		m.groupRows = append(m.groupRows, g.NumRows)
		m.numRows += g.NumRows
		if m.numRows < 0 {
			return nil, fmt.Errorf("hfparquet: %s: corrupt parquet file: row count overflows", path)
		}
	}
	for _, kv := range md.KeyValueMetadata {
		m.kv[kv.Key] = kv.Value
	}
	if m.root, err = buildTree(md.Schema); err != nil {
		return nil, fmt.Errorf("hfparquet: %s: %w", path, err)
	}
	for i, g := range md.RowGroups {
		if len(g.Columns) != m.root.numLeaves {
			return nil, fmt.Errorf("hfparquet: %s: corrupt parquet file: row group %d has %d column chunks, schema has %d columns",
				path, i, len(g.Columns), m.root.numLeaves)
		}
	}
	if err := checkOverlap(md.RowGroups); err != nil {
		return nil, fmt.Errorf("hfparquet: %s: corrupt parquet file: %w", path, err)
	}
	return m, nil
}

// checkOverlap refuses column chunks that share bytes of the file: a row group listed twice in the footer
// (or one overlapping another) would be read twice, its rows counted and scored twice. A chunk's bytes are
// what the reader reads (checkChunk): from its dictionary page, else its data page, TotalCompressedSize long.
func checkOverlap(groups []format.RowGroup) error {
	type extent struct {
		start, end    int64
		group, column int
	}
	var all []extent
	for g := range groups {
		for c := range groups[g].Columns {
			md := &groups[g].Columns[c].MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset != 0 {
				start = md.DictionaryPageOffset
			}
			if md.TotalCompressedSize > 0 { // an empty chunk has no bytes to read twice (a bad size: checkChunk)
				all = append(all, extent{start, start + md.TotalCompressedSize, g, c})
			}
		}
	}
	slices.SortFunc(all, func(a, b extent) int { return cmp.Compare(a.start, b.start) })
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if b.start < a.end {
			if a.group == b.group {
				return fmt.Errorf("row group %d: column chunks %d and %d overlap at offset %d", a.group, a.column, b.column, b.start)
			}
			return fmt.Errorf("row groups %d and %d overlap at offset %d (a row group listed twice in the footer?): "+
				"their rows would be read twice", min(a.group, b.group), max(a.group, b.group), b.start)
		}
	}
	return nil
}

// Files returns the paths of the set's files, in reading order. Position.File indexes this slice.
func (s *Set) Files() []string {
	out := make([]string, len(s.files))
	for i, f := range s.files {
		out[i] = f.path
	}
	return out
}

// WithLogger returns a copy of the set whose readers log skipped nulls and repaired UTF-8 (the first
// occurrence and a summary at Close) to l; nil turns logging off. By default readers log to slog.Default().
// The counts (Skipped, InvalidUTF8) are kept either way.
func (s *Set) WithLogger(l *slog.Logger) *Set {
	c := *s
	c.logger, c.loggerSet = l, true
	return &c
}

func (s *Set) warn(msg string, args ...any) {
	l := s.logger
	if !s.loggerSet {
		l = slog.Default()
	}
	if l != nil {
		l.Warn(msg, args...)
	}
}

// Pattern returns the pattern the set was opened with.
func (s *Set) Pattern() string { return s.pattern }

// NumRows returns the number of rows of all files together (null rows included), from the footers read by
// Open: no data is read. The error is reserved for lazily opened sets and is nil today.
func (s *Set) NumRows() (int64, error) { return s.starts[len(s.starts)-1], nil }

// FileRows returns the number of rows of each file, in Files() order.
func (s *Set) FileRows() []int64 {
	out := make([]int64, len(s.files))
	for i, f := range s.files {
		out[i] = f.numRows
	}
	return out
}

// Schema returns the parquet schema of file, which must be one of Files(). Printing it (String) gives the
// schema in the parquet text format.
func (s *Set) Schema(file string) (*parquet.Schema, error) {
	m, err := s.meta(file)
	if err != nil {
		return nil, err
	}
	return m.schema, nil
}

// Columns returns the top-level column names of file (one of Files()), in schema order.
func (s *Set) Columns(file string) ([]string, error) {
	m, err := s.meta(file)
	if err != nil {
		return nil, err
	}
	return m.root.childNames(), nil
}

// Metadata returns the key/value metadata entry key of file (one of Files()); ok is false when the file has
// no such key. Hugging Face stores its features JSON under FeaturesKey.
func (s *Set) Metadata(file, key string) (value string, ok bool, err error) {
	m, err := s.meta(file)
	if err != nil {
		return "", false, err
	}
	value, ok = m.kv[key]
	return value, ok, nil
}

func (s *Set) meta(file string) (*fileMeta, error) {
	for _, m := range s.files {
		if m.path == file {
			return m, nil
		}
	}
	return nil, fmt.Errorf("hfparquet: %q is not a file of parquet set %q", file, s.pattern)
}

// ---- Schema model ----

// schemaNode is one element of a file's schema tree, with the levels the readers need.
type schemaNode struct {
	name      string
	elem      *format.SchemaElement
	parent    *schemaNode
	children  []*schemaNode
	leaf      int // leaf column index (row-group column chunk index) for leaves, -1 for groups
	def, rep  int // definition and repetition level of this node (counting itself)
	numLeaves int // leaves below (the root: all)
}

const maxSchemaDepth = 64

// buildTree builds the schema tree of a file from its flattened schema elements, checking the structure.
// Leaves are the elements with a physical type, numbered in depth-first order as the column chunks are.
func buildTree(elems []format.SchemaElement) (*schemaNode, error) {
	idx, leaves := 0, 0
	var build func(parent *schemaNode, depth int) (*schemaNode, error)
	build = func(parent *schemaNode, depth int) (*schemaNode, error) {
		if depth > maxSchemaDepth {
			return nil, fmt.Errorf("unsupported parquet schema: nested deeper than %d levels", maxSchemaDepth)
		}
		if idx >= len(elems) {
			return nil, errors.New("corrupt parquet schema: fewer elements than the groups announce")
		}
		e := &elems[idx]
		idx++
		n := &schemaNode{name: e.Name, elem: e, parent: parent, leaf: -1}
		if parent != nil {
			n.def, n.rep = parent.def, parent.rep
			switch repetitionOf(e) {
			case format.Optional:
				n.def++
			case format.Repeated:
				n.def++
				n.rep++
			}
		}
		if e.Type.Valid {
			if parent == nil {
				return nil, errors.New("corrupt parquet schema: the root is not a group")
			}
			n.leaf = leaves
			n.numLeaves = 1
			leaves++
			return n, nil
		}
		nc := 0
		if e.NumChildren.Valid {
			nc = int(e.NumChildren.V)
		}
		if nc < 0 || nc > len(elems)-idx {
			return nil, fmt.Errorf("corrupt parquet schema: group %q announces %d children", e.Name, nc)
		}
		for range nc {
			c, err := build(n, depth+1)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, c)
			n.numLeaves += c.numLeaves
		}
		return n, nil
	}
	root, err := build(nil, 0)
	if err != nil {
		return nil, err
	}
	if idx != len(elems) {
		return nil, fmt.Errorf("corrupt parquet schema: %d elements after the root group", len(elems)-idx)
	}
	return root, nil
}

func repetitionOf(e *format.SchemaElement) format.FieldRepetitionType {
	if !e.RepetitionType.Valid {
		return format.Required
	}
	return e.RepetitionType.V
}

func (n *schemaNode) isLeaf() bool { return n.leaf >= 0 }
func (n *schemaNode) repeated() bool {
	return n.parent != nil && repetitionOf(n.elem) == format.Repeated
}
func (n *schemaNode) isList() bool {
	return !n.isLeaf() && isAnnotated(n.elem, "LIST", deprecated.List)
}
func (n *schemaNode) isMap() bool {
	return !n.isLeaf() && (isAnnotated(n.elem, "MAP", deprecated.Map) || isAnnotated(n.elem, "", deprecated.MapKeyValue))
}
func (n *schemaNode) child(name string) *schemaNode {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (n *schemaNode) childNames() []string {
	names := make([]string, len(n.children))
	for i, c := range n.children {
		names[i] = c.name
	}
	return names
}

// isAnnotated reports whether e carries the logical type named logical or the converted type conv.
func isAnnotated(e *format.SchemaElement, logical string, conv deprecated.ConvertedType) bool {
	if logical != "" && e.LogicalType.Value != nil && e.LogicalType.Value.String() == logical {
		return true
	}
	return e.ConvertedType.Valid && e.ConvertedType.V == conv
}

// lookup resolves a column name: a top-level column, or a dotted path through struct groups ("choices.label").
func (n *schemaNode) lookup(column string) *schemaNode {
	if c := n.child(column); c != nil {
		return c
	}
	cur := n
	for part := range strings.SplitSeq(column, ".") {
		if cur = cur.child(part); cur == nil {
			return nil
		}
	}
	return cur
}

// valueKind is the scalar type of a leaf, as the readers deliver it.
type valueKind int

const (
	kindUnsupported valueKind = iota
	kindString                // BYTE_ARRAY annotated STRING, ENUM or JSON (UTF8, ENUM, JSON) → string
	kindInt                   // INT32 or INT64, plain or INT(8|16|32|64, signed) or INT(8|16|32, unsigned) → int64
	kindBool                  // BOOLEAN → bool
	kindFloat                 // FLOAT or DOUBLE → float64
	kindBytes                 // BYTE_ARRAY without annotation (HF "binary") → []byte
)

// leafKindOf classifies a leaf; unsigned is set for unsigned integers stored in INT32.
func leafKindOf(e *format.SchemaElement) (k valueKind, unsigned bool) {
	lt := e.LogicalType.Value
	conv := deprecated.ConvertedType(-1)
	if e.ConvertedType.Valid {
		conv = e.ConvertedType.V
	}
	switch e.Type.V {
	case format.ByteArray:
		switch {
		case lt != nil:
			switch lt.String() {
			case "STRING", "ENUM", "JSON":
				return kindString, false
			}
			return kindUnsupported, false
		case conv == deprecated.UTF8 || conv == deprecated.Enum || conv == deprecated.Json:
			return kindString, false
		case conv == -1:
			return kindBytes, false
		}
	case format.Int32, format.Int64:
		if it, ok := lt.(*format.IntType); ok {
			if !it.IsSigned && (it.BitWidth >= 64 || e.Type.V == format.Int64) {
				return kindUnsupported, false // UINT64 does not fit int64
			}
			return kindInt, !it.IsSigned
		}
		if lt != nil {
			return kindUnsupported, false // DATE, TIME, TIMESTAMP, DECIMAL, ...
		}
		switch conv {
		case -1, deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64:
			return kindInt, false
		case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32:
			return kindInt, e.Type.V == format.Int32
		}
	case format.Boolean:
		if lt == nil && conv == -1 {
			return kindBool, false
		}
	case format.Float, format.Double:
		if lt == nil && conv == -1 {
			return kindFloat, false
		}
	}
	return kindUnsupported, false
}

var convertedNames = map[deprecated.ConvertedType]string{
	deprecated.UTF8: "UTF8", deprecated.Map: "MAP", deprecated.MapKeyValue: "MAP_KEY_VALUE", deprecated.List: "LIST",
	deprecated.Enum: "ENUM", deprecated.Decimal: "DECIMAL", deprecated.Date: "DATE", deprecated.TimeMillis: "TIME_MILLIS",
	deprecated.TimeMicros: "TIME_MICROS", deprecated.TimestampMillis: "TIMESTAMP_MILLIS",
	deprecated.TimestampMicros: "TIMESTAMP_MICROS", deprecated.Uint8: "UINT_8", deprecated.Uint16: "UINT_16",
	deprecated.Uint32: "UINT_32", deprecated.Uint64: "UINT_64", deprecated.Int8: "INT_8", deprecated.Int16: "INT_16",
	deprecated.Int32: "INT_32", deprecated.Int64: "INT_64", deprecated.Json: "JSON", deprecated.Bson: "BSON",
	deprecated.Interval: "INTERVAL",
}

// describe renders the type of a node for error messages: "INT64", "STRING (BYTE_ARRAY)",
// "LIST<STRING (BYTE_ARRAY)>", "struct{text: LIST<...>, label: LIST<...>}".
func (n *schemaNode) describe() string { return n.describeDepth(0) }

func (n *schemaNode) describeDepth(depth int) string {
	if depth > 4 {
		return "..."
	}
	if n.isLeaf() {
		e := n.elem
		phys := e.Type.V.String()
		ann := ""
		if e.LogicalType.Value != nil {
			ann = e.LogicalType.Value.String()
			if it, ok := e.LogicalType.Value.(*format.IntType); ok && it.IsSigned &&
				((it.BitWidth == 32 && e.Type.V == format.Int32) || (it.BitWidth == 64 && e.Type.V == format.Int64)) {
				ann = ""
			}
		} else if e.ConvertedType.Valid {
			ann = convertedNames[e.ConvertedType.V]
			if ann == "" {
				ann = "converted type " + strconv.Itoa(int(e.ConvertedType.V))
			}
			if (ann == "INT_32" && e.Type.V == format.Int32) || (ann == "INT_64" && e.Type.V == format.Int64) {
				ann = ""
			}
		}
		s := phys
		if ann != "" {
			s = ann + " (" + phys + ")"
		}
		if n.repeated() {
			s = "repeated " + s
		}
		return s
	}
	if n.isList() {
		if _, elem := n.listParts(); elem != nil {
			return "LIST<" + elem.describeDepth(depth+1) + ">"
		}
		return "LIST group (malformed)"
	}
	if n.isMap() {
		return "MAP group"
	}
	parts := make([]string, len(n.children))
	for i, c := range n.children {
		parts[i] = c.name + ": " + c.describeDepth(depth+1)
	}
	s := "struct{" + strings.Join(parts, ", ") + "}"
	if n.repeated() {
		s = "repeated " + s
	}
	return s
}

// listParts returns the repeated node and the element node of a list column: a LIST-annotated group (3-level
// layout, or the legacy 2-level forms), or a bare repeated leaf (legacy). elem is nil when n is not a list.
func (n *schemaNode) listParts() (rep, elem *schemaNode) {
	if n.isLeaf() {
		if n.repeated() {
			return n, n
		}
		return nil, nil
	}
	if !n.isList() || len(n.children) != 1 || !n.children[0].repeated() {
		return nil, nil
	}
	r := n.children[0]
	if r.isLeaf() {
		return r, r // 2-level: group (LIST) { repeated binary element }
	}
	if len(r.children) == 1 && r.name != "array" && r.name != n.name+"_tuple" {
		return r, r.children[0] // standard 3-level
	}
	return r, r // legacy list of structs: the repeated group is the element
}

// ---- Plans: how a requested column of one file is decoded ----

type planShape int

const (
	shapeScalar planShape = iota
	shapeList
	shapeStruct
)

// columnPlan decodes one column (or struct field) of one file from the values of its leaves.
type columnPlan struct {
	shape    planShape
	kind     valueKind // scalar, list element
	slot     int       // scalar, list: index of the leaf among the reader's leaves
	nullDef  int32     // the value is null when the first value's definition level is below nullDef
	emptyDef int32     // list: the list is empty when the definition level is below emptyDef
	fullDef  int32     // scalar, list element: the value is present (not null) at this definition level
	names    []string
	fields   []*columnPlan
}

// leafSlot is a leaf column a reader reads.
type leafSlot struct {
	leaf     int
	kind     valueKind
	unsigned bool
	maxDef   int
	repeated bool // the leaf has a repeated ancestor (or is repeated)
	path     string
}

// compilePlan builds the plan of node n, appending the leaves it reads to slots. It returns why n cannot be
// decoded when it cannot.
func compilePlan(n *schemaNode, slots *[]leafSlot) (*columnPlan, string) {
	if n.parent != nil && n.parent.rep > 0 {
		return nil, "a field inside a repeated group (read the enclosing list column)"
	}
	addSlot := func(leaf *schemaNode) (int, string) {
		k, unsigned := leafKindOf(leaf.elem)
		if k == kindUnsupported {
			return 0, "type " + leaf.describe()
		}
		*slots = append(*slots, leafSlot{leaf: leaf.leaf, kind: k, unsigned: unsigned, maxDef: leaf.def, repeated: leaf.rep > 0, path: leaf.pathString()})
		return len(*slots) - 1, ""
	}
	if rep, elem := n.listParts(); elem != nil {
		if !elem.isLeaf() || elem.rep != rep.rep {
			return nil, "only lists of scalars are supported"
		}
		slot, bad := addSlot(elem)
		if bad != "" {
			return nil, "list element " + bad
		}
		return &columnPlan{shape: shapeList, kind: (*slots)[slot].kind, slot: slot, nullDef: int32(rep.def - 1), emptyDef: int32(rep.def), fullDef: int32(elem.def)}, ""
	}
	if n.isLeaf() {
		slot, bad := addSlot(n)
		if bad != "" {
			return nil, bad
		}
		return &columnPlan{shape: shapeScalar, kind: (*slots)[slot].kind, slot: slot, nullDef: int32(n.def), fullDef: int32(n.def)}, ""
	}
	switch {
	case n.isMap():
		return nil, "MAP columns are not supported"
	case n.isList():
		return nil, "malformed LIST group"
	case n.repeated():
		return nil, "repeated groups without a LIST annotation are not supported"
	case len(n.children) == 0:
		return nil, "empty group"
	}
	p := &columnPlan{shape: shapeStruct, nullDef: int32(n.def)}
	for _, c := range n.children {
		cp, bad := compilePlan(c, slots)
		if bad != "" {
			return nil, "field " + strconv.Quote(c.name) + ": " + bad
		}
		p.names = append(p.names, c.name)
		p.fields = append(p.fields, cp)
	}
	return p, ""
}

// firstSlot returns the slot whose first value tells whether a struct is null.
func (p *columnPlan) firstSlot() int {
	for p.shape == shapeStruct {
		p = p.fields[0]
	}
	return p.slot
}

func (n *schemaNode) pathString() string {
	var parts []string
	for c := n; c != nil && c.parent != nil; c = c.parent {
		parts = append(parts, c.name)
	}
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

// wantType is the type a typed reader expects.
type wantType struct {
	shape planShape
	kind  valueKind
	desc  string
}

var (
	wantString     = wantType{shapeScalar, kindString, "STRING (BYTE_ARRAY)"}
	wantInt        = wantType{shapeScalar, kindInt, "INT64 or INT32"}
	wantStringList = wantType{shapeList, kindString, "LIST<STRING (BYTE_ARRAY)>"}
	wantIntList    = wantType{shapeList, kindInt, "LIST<INT64 or INT32>"}
)

// plan resolves column in file m and checks it against want (nil: any supported type).
func (m *fileMeta) plan(column string, want *wantType, slots *[]leafSlot) (*columnPlan, error) {
	n := m.root.lookup(column)
	if n == nil {
		return nil, fmt.Errorf("hfparquet: %s: no column %q (columns: %s)", m.path, column, quoteList(m.root.childNames()))
	}
	mark := len(*slots)
	p, bad := compilePlan(n, slots)
	if bad != "" {
		*slots = (*slots)[:mark]
		if want != nil {
			return nil, fmt.Errorf("hfparquet: %s: column %q is %s, want %s", m.path, column, n.describe(), want.desc)
		}
		return nil, fmt.Errorf("hfparquet: %s: column %q is %s: not supported: %s (supported: string, integer, boolean, float, binary, lists of these, structs of these)",
			m.path, column, n.describe(), bad)
	}
	if want != nil && (p.shape != want.shape || p.kind != want.kind) {
		*slots = (*slots)[:mark]
		return nil, fmt.Errorf("hfparquet: %s: column %q is %s, want %s", m.path, column, n.describe(), want.desc)
	}
	return p, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
