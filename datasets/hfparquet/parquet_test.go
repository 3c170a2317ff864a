package hfparquet

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// ---- helpers ----

// sharedHF returns the shared Hugging Face parquet directory (shared/data/hf, found by walking up from the
// working directory) or skips the test.
func sharedHF(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "data", "hf")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	t.Skipf("shared HF parquet data not found: no shared/data/hf in %s or above", wd)
	return ""
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// errContains fails unless err is a "hfparquet:" error containing every part.
func errContains(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", parts)
	}
	if !strings.HasPrefix(err.Error(), "hfparquet: ") {
		t.Errorf("error %q does not start with \"hfparquet: \"", err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

func strPtr(s string) *string { return &s }

// tText is an HF text corpus row with a nullable text column.
type tText struct {
	Text *string `parquet:"text,optional"`
}

// tMixed has one column of each supported kind, HF-style nullable.
type tMixed struct {
	Text  *string   `parquet:"text,optional"`
	ID    int64     `parquet:"id"`
	Small int32     `parquet:"small"`
	Flag  bool      `parquet:"flag"`
	Score float64   `parquet:"score"`
	Tags  []string  `parquet:"tags,optional,list"`
	Ids   []int32   `parquet:"ids,list"`
	Blob  []byte    `parquet:"blob"`
	Meta  tMeta     `parquet:"meta,optional"`
	Ptrs  []*string `parquet:"ptrs,list"`
}

type tMeta struct {
	Source string `parquet:"source"`
	Year   int32  `parquet:"year"`
}

// tARC mirrors the ARC layout: choices is a struct of two lists of strings.
type tARC struct {
	ID       string `parquet:"id,optional"`
	Question string `parquet:"question,optional"`
	Choices  struct {
		Text  []string `parquet:"text,optional,list" parquet-element:",optional"`
		Label []string `parquet:"label,optional,list" parquet-element:",optional"`
	} `parquet:"choices,optional"`
	AnswerKey string `parquet:"answerKey,optional"`
}

// mixedRow makes row i of a generated file: some null texts, empty and null lists.
func mixedRow(i int) tMixed {
	r := tMixed{ID: int64(i) * 3, Small: int32(-i), Flag: i%2 == 0, Score: float64(i) / 4,
		Blob: []byte{byte(i), 0xff}, Meta: tMeta{Source: fmt.Sprintf("src%d", i%5), Year: int32(2000 + i%20)}}
	if i%7 != 3 {
		r.Text = strPtr(fmt.Sprintf("doc %d %s", i, strings.Repeat("x", i%11)))
	}
	switch i % 4 {
	case 0:
		r.Tags = nil // null list (optional)
	case 1:
		r.Tags = []string{}
	default:
		for j := range i % 6 {
			r.Tags = append(r.Tags, fmt.Sprintf("t%d.%d", i, j))
		}
	}
	for j := range i % 5 {
		r.Ids = append(r.Ids, int32(i*10+j))
	}
	r.Ptrs = []*string{strPtr("p")}
	return r
}

// writeTemp writes rows to dir/name and returns the path.
func writeTemp[T any](t testing.TB, dir, name string, rows []T, opts ...parquet.WriterOption) string {
	t.Helper()
	p := filepath.Join(dir, name)
	mustOK(t, os.MkdirAll(filepath.Dir(p), 0o755))
	mustOK(t, WriteFile(p, rows, opts...))
	return p
}

// ---- shared HF files ----

var sharedFiles = []struct {
	file string
	rows int64
}{
	{"lambada_openai/test.parquet", 5153},
	{"wikitext/wikitext-2-raw-v1-test.parquet", 4358},
	{"wikitext_document_level/wikitext-2-raw-v1-test.parquet", 62},
	{"piqa/validation.parquet", 1838},
	{"social_iqa/validation.parquet", 1954},
	{"arc_easy/test.parquet", 2376},
	{"arc_challenge/test.parquet", 1172},
	{"winogrande/winogrande_xl-validation.parquet", 1267},
	{"boolq/validation.parquet", 3270},
	{"hellaswag/validation.parquet", 10042},
	{"ruler_essays/essays.parquet", 49},
	{"ruler_words/words.parquet", 7694},
	{"tinyshakespeare/train.parquet", 7222},
}

func TestParquetSharedFiles(t *testing.T) {
	hf := sharedHF(t)
	var total int64
	for _, f := range sharedFiles {
		t.Run(filepath.Dir(f.file), func(t *testing.T) {
			path := filepath.Join(hf, f.file)
			s, err := Open(path)
			mustOK(t, err)
			n, err := s.NumRows()
			mustOK(t, err)
			if n != f.rows {
				t.Fatalf("NumRows = %d, want %d", n, f.rows)
			}
			features, ok, err := s.Metadata(path, FeaturesKey)
			mustOK(t, err)
			if !ok || !strings.Contains(features, `"features"`) {
				t.Errorf("no HF features JSON in the key/value metadata: %q", features)
			}
			// Every row, every column, through the generic reader.
			rows, err := s.Rows()
			mustOK(t, err)
			defer rows.Close()
			cols, err := s.Columns(path)
			mustOK(t, err)
			var count int64
			for {
				row, err := rows.Next()
				if err == io.EOF {
					break
				}
				mustOK(t, err)
				if row.Pos != (Position{0, count}) {
					t.Fatalf("row %d has position %v", count, row.Pos)
				}
				for _, c := range cols {
					if row.Values[c] == nil {
						t.Fatalf("row %d: column %q is null; the README says no value is null", count, c)
					}
				}
				count++
			}
			if count != f.rows {
				t.Fatalf("read %d rows, want %d", count, f.rows)
			}
			if rows.InvalidUTF8() != 0 {
				t.Errorf("InvalidUTF8 = %d", rows.InvalidUTF8())
			}
		})
		total += f.rows
	}
	// The whole directory: 13 files, sorted by path.
	s, err := Open(hf)
	mustOK(t, err)
	files := s.Files()
	if len(files) != len(sharedFiles) || !slices.IsSorted(files) {
		t.Errorf("directory files = %q", files)
	}
	if n, _ := s.NumRows(); n != total {
		t.Errorf("directory NumRows = %d, want %d", n, total)
	}
}

func TestParquetSharedWikitext(t *testing.T) {
	hf := sharedHF(t)
	s, err := Open(filepath.Join(hf, "wikitext", "*.parquet"))
	mustOK(t, err)
	col, err := s.Strings("text")
	mustOK(t, err)
	defer col.Close()
	var got []string
	for {
		v, pos, err := col.Next()
		if err == io.EOF {
			break
		}
		mustOK(t, err)
		if pos.Row != int64(len(got)) {
			t.Fatalf("position %v, want row %d", pos, len(got))
		}
		got = append(got, v)
	}
	if len(got) != 4358 || got[0] != "" || got[1] != " = Robert Boulter = \n" {
		t.Fatalf("got %d rows, row 0 %q, row 1 %q", len(got), got[0], got[1])
	}
	if col.Skipped() != 0 || col.InvalidUTF8() != 0 {
		t.Errorf("Skipped %d InvalidUTF8 %d", col.Skipped(), col.InvalidUTF8())
	}
	if done, total := col.Progress(); done != 4358 || total != 4358 {
		t.Errorf("Progress = %d/%d", done, total)
	}
	mustOK(t, col.Seek(Position{0, 1}))
	if v, pos, err := col.Next(); err != nil || v != " = Robert Boulter = \n" || pos.Row != 1 {
		t.Errorf("after Seek(row 1): %q %v %v", v, pos, err)
	}
	// wikitext_document_level: 62 pages, 1,290,527 UTF-8 bytes.
	s, err = Open(filepath.Join(hf, "wikitext_document_level"))
	mustOK(t, err)
	pages, err := s.Strings("page")
	mustOK(t, err)
	defer pages.Close()
	var n, bytes int
	for {
		v, _, err := pages.Next()
		if err == io.EOF {
			break
		}
		mustOK(t, err)
		n++
		bytes += len(v)
	}
	if n != 62 || bytes != 1290527 {
		t.Errorf("pages = %d, bytes = %d; want 62, 1290527", n, bytes)
	}
}

func TestParquetSharedARC(t *testing.T) {
	hf := sharedHF(t)
	s, err := Open(filepath.Join(hf, "arc_*", "test.parquet"))
	mustOK(t, err)
	if files := s.Files(); len(files) != 2 || !strings.Contains(files[0], "arc_challenge") {
		t.Fatalf("files = %q", files)
	}
	rows, err := s.Rows("id", "question", "choices", "answerKey")
	mustOK(t, err)
	defer rows.Close()
	count := 0
	for {
		row, err := rows.Next()
		if err == io.EOF {
			break
		}
		mustOK(t, err)
		labels, err := row.StrList("choices.label")
		mustOK(t, err)
		texts, err := row.StrList("choices.text")
		mustOK(t, err)
		key, err := row.Str("answerKey")
		mustOK(t, err)
		if !slices.Equal(labels, []string{"A", "B", "C", "D"}) || len(texts) != 4 || !slices.Contains(labels, key) {
			t.Fatalf("%v: labels %q texts %q answerKey %q", row.Pos, labels, texts, key)
		}
		if _, ok := row.Values["choices"].(map[string]any); !ok {
			t.Fatalf("choices is %T", row.Values["choices"])
		}
		count++
	}
	if count != 1172+2376 {
		t.Fatalf("rows = %d", count)
	}
	// A dotted column and the typed list reader agree.
	labels, err := s.StringLists("choices.label")
	mustOK(t, err)
	defer labels.Close()
	mustOK(t, labels.Seek(Position{1, 2375}))
	if v, pos, err := labels.Next(); err != nil || len(v) != 4 || pos != (Position{1, 2375}) {
		t.Fatalf("last ARC-Easy row: %q %v %v", v, pos, err)
	}
	if _, _, err := labels.Next(); err != io.EOF {
		t.Fatalf("after the last row: %v, want io.EOF", err)
	}
}

func TestParquetSharedIntsAndLists(t *testing.T) {
	hf := sharedHF(t)
	boolq := filepath.Join(hf, "boolq", "validation.parquet")
	s, err := Open(boolq)
	mustOK(t, err)
	idx, err := s.Int64s("idx") // INT32 in the file
	mustOK(t, err)
	defer idx.Close()
	for i := int64(0); ; i++ {
		v, _, err := idx.Next()
		if err == io.EOF {
			if i != 3270 {
				t.Fatalf("idx rows = %d", i)
			}
			break
		}
		mustOK(t, err)
		if v != i {
			t.Fatalf("idx row %d = %d", i, v)
		}
	}
	_, err = s.Strings("idx")
	errContains(t, err, boolq, `column "idx" is INT32, want STRING (BYTE_ARRAY)`)
	_, err = s.Int64s("passage")
	errContains(t, err, `column "passage" is STRING (BYTE_ARRAY), want INT64 or INT32`)

	s, err = Open(filepath.Join(hf, "hellaswag", "validation.parquet"))
	mustOK(t, err)
	endings, err := s.StringLists("endings")
	mustOK(t, err)
	defer endings.Close()
	n := 0
	for {
		v, _, err := endings.Next()
		if err == io.EOF {
			break
		}
		mustOK(t, err)
		if len(v) != 4 {
			t.Fatalf("row %d: %d endings", n, len(v))
		}
		n++
	}
	if n != 10042 {
		t.Fatalf("hellaswag rows = %d", n)
	}
	_, err = s.Strings("endings")
	errContains(t, err, `column "endings" is LIST<STRING (BYTE_ARRAY)>, want STRING (BYTE_ARRAY)`)
}

// ---- generated files: values, nulls, UTF-8 ----

func TestParquetRowsAllKinds(t *testing.T) {
	dir := t.TempDir()
	var in []tMixed
	for i := range 50 {
		in = append(in, mixedRow(i))
	}
	path := writeTemp(t, dir, "mixed.parquet", in, parquet.MaxRowsPerRowGroup(8))
	s, err := Open(path)
	mustOK(t, err)
	s = s.WithLogger(nil)
	rows, err := s.Rows()
	mustOK(t, err)
	defer rows.Close()
	for i, want := range in {
		row, err := rows.Next()
		mustOK(t, err)
		if want.Text == nil {
			if row.Values["text"] != nil {
				t.Fatalf("row %d: text %v, want nil", i, row.Values["text"])
			}
			_, err := row.Str("text")
			errContains(t, err, path, fmt.Sprintf("row %d", i), `column "text" is null`)
		} else if v, err := row.Str("text"); err != nil || v != *want.Text {
			t.Fatalf("row %d: text %q %v", i, v, err)
		}
		if v, err := row.Int("id"); err != nil || v != want.ID {
			t.Fatalf("row %d: id %d %v", i, v, err)
		}
		if v, err := row.Int("small"); err != nil || v != int64(want.Small) {
			t.Fatalf("row %d: small %d %v", i, v, err)
		}
		if v, err := row.Bool("flag"); err != nil || v != want.Flag {
			t.Fatalf("row %d: flag %v %v", i, v, err)
		}
		if v, err := row.Float("score"); err != nil || v != want.Score {
			t.Fatalf("row %d: score %v %v", i, v, err)
		}
		if v, ok := row.Values["blob"].([]byte); !ok || !slices.Equal(v, want.Blob) {
			t.Fatalf("row %d: blob %v", i, row.Values["blob"])
		}
		if want.Tags == nil {
			if row.Values["tags"] != nil {
				t.Fatalf("row %d: tags %#v, want nil (null list)", i, row.Values["tags"])
			}
		} else if v, err := row.StrList("tags"); err != nil || v == nil || !slices.Equal(v, want.Tags) {
			t.Fatalf("row %d: tags %#v %v, want %#v", i, v, err, want.Tags)
		}
		wantIDs := make([]int64, len(want.Ids))
		for j, x := range want.Ids {
			wantIDs[j] = int64(x)
		}
		if v, err := row.IntList("ids"); err != nil || !slices.Equal(v, wantIDs) {
			t.Fatalf("row %d: ids %v %v", i, v, err)
		}
		if v, err := row.Str("meta.source"); err != nil || v != want.Meta.Source {
			t.Fatalf("row %d: meta.source %q %v", i, v, err)
		}
		if v, err := row.Int("meta.year"); err != nil || v != int64(want.Meta.Year) {
			t.Fatalf("row %d: meta.year %d %v", i, v, err)
		}
		if _, err := row.Int("text"); want.Text != nil && err == nil {
			t.Fatalf("row %d: Int(text) gave no error", i)
		}
	}
	if _, err := rows.Next(); err != io.EOF {
		t.Fatalf("after the last row: %v", err)
	}
	if _, err := rows.Next(); err != io.EOF {
		t.Fatalf("EOF again: %v", err)
	}
	// Dotted struct field as its own column, and the typed readers.
	ints, err := s.Int64s("meta.year")
	mustOK(t, err)
	defer ints.Close()
	if v, _, err := ints.Next(); err != nil || v != 2000 {
		t.Fatalf("meta.year row 0 = %d %v", v, err)
	}
	lists, err := s.Int64Lists("ids")
	mustOK(t, err)
	defer lists.Close()
	if v, _, err := lists.Next(); err != nil || v == nil || len(v) != 0 {
		t.Fatalf("ids row 0 = %#v %v, want empty non-nil", v, err)
	}
	tags, err := s.StringLists("tags")
	mustOK(t, err)
	defer tags.Close()
	n := 0
	for {
		_, _, err := tags.Next()
		if err == io.EOF {
			break
		}
		mustOK(t, err)
		n++
	}
	nulls := 0
	for _, r := range in {
		if r.Tags == nil { // parquet-go writes a nil slice in an optional list column as null, []string{} as empty
			nulls++
		}
	}
	if n != 50-nulls || tags.Skipped() != int64(nulls) {
		t.Fatalf("tags: %d lists, %d skipped, want %d nulls", n, tags.Skipped(), nulls)
	}
}

func TestParquetNullsAndInvalidUTF8(t *testing.T) {
	dir := t.TempDir()
	in := []tText{{strPtr("a")}, {nil}, {strPtr("ok \xff\xfe end")}, {nil}, {nil}, {strPtr("")}, {strPtr("日本\xe6")}}
	path := writeTemp(t, dir, "t.parquet", in)
	s, err := Open(path)
	mustOK(t, err)
	var logBuf bytes.Buffer
	s = s.WithLogger(slog.New(slog.NewTextHandler(&logBuf, nil)))
	col, err := s.Strings("text")
	mustOK(t, err)
	type got struct {
		v   string
		row int64
	}
	var all []got
	for {
		v, pos, err := col.Next()
		if err == io.EOF {
			break
		}
		mustOK(t, err)
		all = append(all, got{v, pos.Row})
	}
	want := []got{{"a", 0}, {"ok \uFFFD end", 2}, {"", 5}, {"日本\uFFFD", 6}}
	if !slices.Equal(all, want) {
		t.Fatalf("got %+v, want %+v", all, want)
	}
	if col.Skipped() != 3 || col.InvalidUTF8() != 2 {
		t.Fatalf("Skipped %d (want 3), InvalidUTF8 %d (want 2)", col.Skipped(), col.InvalidUTF8())
	}
	if done, total := col.Progress(); done != 7 || total != 7 {
		t.Fatalf("Progress %d/%d", done, total)
	}
	mustOK(t, col.Close())
	for _, want := range []string{"skipping null values", "row=1", "skipped=3", "invalid UTF-8", "row=2", "values=2"} {
		if !strings.Contains(logBuf.String(), want) {
			t.Errorf("log does not contain %q:\n%s", want, logBuf.String())
		}
	}
	if _, _, err := col.Next(); err == nil {
		t.Error("Next after Close: no error")
	}

	// A null element inside a list is an error naming file, row and column.
	type ptrList struct {
		Xs []*string `parquet:"xs,list"`
	}
	path2 := writeTemp(t, dir, "nullelem.parquet", []ptrList{{[]*string{strPtr("a")}}, {[]*string{strPtr("b"), nil}}})
	s2, err := Open(path2)
	mustOK(t, err)
	lc, err := s2.StringLists("xs")
	mustOK(t, err)
	defer lc.Close()
	if v, _, err := lc.Next(); err != nil || !slices.Equal(v, []string{"a"}) {
		t.Fatalf("row 0: %q %v", v, err)
	}
	_, _, err = lc.Next()
	errContains(t, err, path2, "row 1", `column "xs"`, "null element 1")
	_, _, err2 := lc.Next()
	if err2 == nil || err2.Error() != err.Error() {
		t.Fatalf("error is not sticky: %v", err2)
	}
}

func TestParquetARCStructGenerated(t *testing.T) {
	dir := t.TempDir()
	var in []tARC
	for i := range 30 {
		var r tARC
		r.ID = fmt.Sprintf("arc-%04d", i)
		r.Question = fmt.Sprintf("question %d?", i)
		r.Choices.Text = []string{"w", "x", "y", "z"}[:2+i%3]
		r.Choices.Label = []string{"A", "B", "C", "D"}[:2+i%3]
		r.AnswerKey = r.Choices.Label[i%2]
		in = append(in, r)
	}
	path := writeTemp(t, dir, "arc.parquet", in, parquet.MaxRowsPerRowGroup(7))
	s, err := Open(path)
	mustOK(t, err)
	sch, err := s.Schema(path)
	mustOK(t, err)
	if !strings.Contains(sch.String(), "group list") {
		t.Errorf("schema is not the 3-level LIST layout:\n%s", sch)
	}
	rows, err := s.Rows("choices", "answerKey")
	mustOK(t, err)
	defer rows.Close()
	for i, want := range in {
		row, err := rows.Next()
		mustOK(t, err)
		ch := row.Values["choices"].(map[string]any)
		if !slices.Equal(ch["label"].([]string), want.Choices.Label) || !slices.Equal(ch["text"].([]string), want.Choices.Text) {
			t.Fatalf("row %d: choices %v", i, ch)
		}
		if k, _ := row.Str("answerKey"); k != want.AnswerKey {
			t.Fatalf("row %d: answerKey %q", i, k)
		}
	}
	_, err = s.Strings("choices")
	errContains(t, err, path, `column "choices" is struct{text: LIST<STRING (BYTE_ARRAY)>, label: LIST<STRING (BYTE_ARRAY)>}, want STRING (BYTE_ARRAY)`)
	_, err = s.Strings("choices.text")
	errContains(t, err, `column "choices.text" is LIST<STRING (BYTE_ARRAY)>, want STRING (BYTE_ARRAY)`)
}

// ---- schema errors ----

func TestParquetSchemaErrors(t *testing.T) {
	dir := t.TempDir()
	type intText struct {
		Text int64 `parquet:"text"`
	}
	good := writeTemp(t, dir, "a.parquet", []tText{{strPtr("x")}})
	bad := writeTemp(t, dir, "b.parquet", []intText{{1}})
	s, err := Open(filepath.Join(dir, "*.parquet"))
	mustOK(t, err)
	_, err = s.Strings("text")
	if err == nil || err.Error() != fmt.Sprintf(`hfparquet: %s: column "text" is INT64, want STRING (BYTE_ARRAY)`, bad) {
		t.Fatalf("wrong-type error = %v", err)
	}
	_, err = s.Rows("txt")
	errContains(t, err, good, `no column "txt"`, `(columns: "text")`)
	_, err = s.Int64s("text")
	errContains(t, err, good, `column "text" is STRING (BYTE_ARRAY), want INT64 or INT32`)
	if _, err := s.Schema("/nope.parquet"); err == nil {
		t.Error("Schema of a file outside the set: no error")
	}

	// Unsupported shapes: a map, a list of structs, a timestamp.
	type withMap struct {
		M map[string]int64 `parquet:"m"`
	}
	type kv struct {
		K string `parquet:"k"`
	}
	type withListOfStruct struct {
		L []kv `parquet:"l,list"`
	}
	type withTime struct {
		T int64 `parquet:"t,timestamp"`
	}
	for _, c := range []struct {
		path, col, want string
	}{
		{writeTemp(t, dir, "m.parquet", []withMap{{map[string]int64{"a": 1}}}), "m", `column "m" is MAP group: not supported: MAP columns are not supported`},
		{writeTemp(t, dir, "l.parquet", []withListOfStruct{{[]kv{{"a"}}}}), "l", `column "l" is LIST<struct{k: STRING (BYTE_ARRAY)}>: not supported: only lists of scalars are supported`},
		{writeTemp(t, dir, "ts.parquet", []withTime{{5}}), "t", `column "t" is TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS) (INT64): not supported: type TIMESTAMP`},
	} {
		s, err := Open(c.path)
		mustOK(t, err)
		_, err = s.Rows(c.col)
		errContains(t, err, c.path, c.want)
		_, err = s.Int64s(c.col)
		errContains(t, err, c.path, "want INT64 or INT32")
	}
}

// ---- bad files ----

func TestParquetBadFiles(t *testing.T) {
	dir := t.TempDir()
	var in []tMixed
	for i := range 200 {
		in = append(in, mixedRow(i))
	}
	valid := writeTemp(t, dir, "valid.parquet", in, parquet.MaxRowsPerRowGroup(50))
	data, err := os.ReadFile(valid)
	mustOK(t, err)

	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		mustOK(t, os.WriteFile(p, b, 0o644))
		return p
	}
	for _, c := range []struct {
		path string
		want string
	}{
		{write("empty.parquet", nil), "0 bytes is too small"},
		{write("tiny.parquet", []byte("PAR1")), "too small"},
		{write("half.parquet", data[:len(data)/2]), "not a valid parquet file"},
		{write("text.parquet", []byte(strings.Repeat("this is not a parquet file\n", 20))), "not a valid parquet file"},
		{write("nofooter.parquet", append([]byte("PAR1"), data[4:len(data)-8]...)), "not a valid parquet file"},
		{dir + "/missing.parquet", "no such file"},
	} {
		_, err := Open(c.path)
		errContains(t, err, c.path, c.want)
	}
	_, err = Open(filepath.Join(dir, "nomatch-*.parquet"))
	errContains(t, err, `parquet pattern "`+filepath.Join(dir, "nomatch-*.parquet")+`" matches no files`)
	_, err = Open(filepath.Join(dir, "[bad"))
	errContains(t, err, "[bad")
	emptyDir := t.TempDir()
	mustOK(t, os.WriteFile(filepath.Join(emptyDir, "notes.txt"), []byte("x"), 0o644))
	_, err = Open(emptyDir)
	errContains(t, err, emptyDir, "holds no *.parquet files")
	_, err = Open("")
	errContains(t, err, "empty parquet pattern")

	// A directory with one bad file among good ones: the error names the bad file.
	mixed := t.TempDir()
	writeTemp(t, mixed, "a.parquet", in[:10])
	mustOK(t, os.WriteFile(filepath.Join(mixed, "b.parquet"), data[:len(data)/2], 0o644))
	_, err = Open(mixed)
	errContains(t, err, filepath.Join(mixed, "b.parquet"))

	// Corrupt data pages with an intact footer: every reader returns errors (or values), never panics. The
	// middle of the file is data pages; overwrite it in several ways.
	footerLen := int(uint32(data[len(data)-8]) | uint32(data[len(data)-7])<<8 | uint32(data[len(data)-6])<<16 | uint32(data[len(data)-5])<<24)
	dataEnd := len(data) - 8 - footerLen
	rng := rand.New(rand.NewPCG(1, 2))
	errorsSeen := 0
	for k := range 40 {
		b := slices.Clone(data)
		switch k % 4 {
		case 0: // zero a block
			off := 4 + rng.IntN(dataEnd-4-64)
			clear(b[off : off+64])
		case 1: // random bytes in a block
			off := 4 + rng.IntN(dataEnd-4-32)
			for i := range 32 {
				b[off+i] = byte(rng.Uint32())
			}
		case 2: // flip single bytes
			for range 8 {
				b[4+rng.IntN(dataEnd-4)] ^= 0xff
			}
		case 3: // 0xff block (huge varints)
			off := 4 + rng.IntN(dataEnd-4-16)
			for i := range 16 {
				b[off+i] = 0xff
			}
		}
		p := write(fmt.Sprintf("corrupt%02d.parquet", k), b)
		if readAllNoPanic(t, p) != nil {
			errorsSeen++
		}
	}
	if errorsSeen == 0 {
		t.Error("40 corrupted files read without a single error")
	}
}

// readAllNoPanic opens path and reads every column with Rows and the typed readers; it fails the test on a
// panic or on an error that is not a "hfparquet:" error naming the file, and returns the first error.
func readAllNoPanic(t testing.TB, path string) (first error) {
	t.Helper()
	check := func(err error) bool {
		if err == nil || err == io.EOF {
			return false
		}
		if !strings.HasPrefix(err.Error(), "hfparquet: ") || !strings.Contains(err.Error(), path) {
			t.Fatalf("error does not start with \"hfparquet: \" or does not name %s: %v", path, err)
		}
		if first == nil {
			first = err
		}
		return true
	}
	s, err := Open(path)
	if check(err) {
		return first
	}
	s = s.WithLogger(nil)
	cols, _ := s.Columns(path)
	for _, col := range cols {
		rows, err := s.Rows(col)
		if check(err) {
			continue
		}
		for range 5000 {
			if _, err := rows.Next(); err != nil {
				check(err)
				break
			}
		}
		n, _ := s.NumRows()
		if err := rows.Seek(Position{0, n / 2}); err == nil {
			for range 100 {
				if _, err := rows.Next(); err != nil {
					check(err)
					break
				}
			}
		}
		rows.Close()
		for _, open := range []func(string) (interface{ Close() error }, func() error, error){
			func(c string) (interface{ Close() error }, func() error, error) {
				r, err := s.Strings(c)
				if err != nil {
					return nil, nil, err
				}
				return r, func() error { _, _, err := r.Next(); return err }, nil
			},
			func(c string) (interface{ Close() error }, func() error, error) {
				r, err := s.Int64s(c)
				if err != nil {
					return nil, nil, err
				}
				return r, func() error { _, _, err := r.Next(); return err }, nil
			},
			func(c string) (interface{ Close() error }, func() error, error) {
				r, err := s.StringLists(c)
				if err != nil {
					return nil, nil, err
				}
				return r, func() error { _, _, err := r.Next(); return err }, nil
			},
		} {
			r, next, err := open(col)
			if err != nil {
				continue // wrong type: expected for most columns
			}
			for range 5000 {
				if err := next(); err != nil {
					check(err)
					break
				}
			}
			r.Close()
		}
	}
	return first
}

// ---- files, order, positions, seek ----

func TestParquetGlobDirOrderAndPositions(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, from, n int) {
		var rows []tText
		for i := range n {
			rows = append(rows, tText{strPtr(fmt.Sprintf("%s:%d", name, from+i))})
		}
		writeTemp(t, dir, name, rows)
	}
	mk("b.parquet", 0, 3)
	mk("a.parquet", 0, 2)
	mk("sub/c.parquet", 0, 4)
	mk("sub/empty.parquet", 0, 0)
	mk(".hidden/x.parquet", 0, 1)
	mustOK(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o644))

	s, err := Open(dir)
	mustOK(t, err)
	want := []string{filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet"), filepath.Join(dir, "sub/c.parquet"), filepath.Join(dir, "sub/empty.parquet")}
	if !slices.Equal(s.Files(), want) {
		t.Fatalf("Files = %q, want %q", s.Files(), want)
	}
	if !slices.Equal(s.FileRows(), []int64{2, 3, 4, 0}) {
		t.Fatalf("FileRows = %v", s.FileRows())
	}
	col, err := s.Strings("text")
	mustOK(t, err)
	defer col.Close()
	var got []string
	var poss []Position
	for {
		v, pos, err := col.Next()
		if err == io.EOF {
			break
		}
		mustOK(t, err)
		got = append(got, v)
		poss = append(poss, pos)
	}
	wantV := []string{"a.parquet:0", "a.parquet:1", "b.parquet:0", "b.parquet:1", "b.parquet:2", "sub/c.parquet:0", "sub/c.parquet:1", "sub/c.parquet:2", "sub/c.parquet:3"}
	wantP := []Position{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}, {2, 3}}
	if !slices.Equal(got, wantV) || !slices.Equal(poss, wantP) {
		t.Fatalf("got %q at %v", got, poss)
	}
	if p := col.Position(); p != (Position{4, 0}) {
		t.Fatalf("Position at the end = %v", p)
	}

	s, err = Open(filepath.Join(dir, "*.parquet"))
	mustOK(t, err)
	if !slices.Equal(s.Files(), want[:2]) {
		t.Fatalf("glob Files = %q", s.Files())
	}
	s, err = Open(filepath.Join(dir, "sub", "c.parquet"))
	mustOK(t, err)
	if n, _ := s.NumRows(); n != 4 || len(s.Files()) != 1 {
		t.Fatalf("single file: %d rows, files %q", n, s.Files())
	}
	// A glob matching a directory stands for its files.
	s, err = Open(filepath.Join(dir, "su?"))
	mustOK(t, err)
	if !slices.Equal(s.Files(), want[2:]) {
		t.Fatalf("glob of a directory: Files = %q", s.Files())
	}
}

// TestParquetSeekProperty checks that Seek(p) followed by reading equals reading from the start and dropping
// the rows before p, for random positions, over several files with several row groups and many pages each.
func TestParquetSeekProperty(t *testing.T) {
	dir := t.TempDir()
	// Files with several row groups, and several pages per column chunk (rows written one by one with a tiny
	// page buffer), in data page v2 (parquet-go's default), v1 (pyarrow's default) and v1 with dictionaries.
	sizes := []struct {
		rows, group int
		opts        []parquet.WriterOption
	}{
		{97, 7, nil},
		{0, 5, nil},
		{1, 1, nil},
		{150, 13, []parquet.WriterOption{parquet.DataPageVersion(1)}},
		{64, 64, []parquet.WriterOption{parquet.DataPageVersion(1), parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.RLEDictionary)}},
	}
	i0 := 0
	for f, sz := range sizes {
		opts := append([]parquet.WriterOption{parquet.MaxRowsPerRowGroup(int64(sz.group)), parquet.PageBufferSize(64)}, sz.opts...)
		w, err := NewWriter[tMixed](filepath.Join(dir, fmt.Sprintf("part-%02d.parquet", f)), opts...)
		mustOK(t, err)
		for i := range sz.rows {
			mustOK(t, w.Write(mixedRow(i0+i)))
		}
		mustOK(t, w.Close())
		i0 += sz.rows
	}
	s, err := Open(dir)
	mustOK(t, err)
	s = s.WithLogger(nil)
	// The test has teeth only if row groups have several pages.
	maxPages := 0
	func() {
		f, pf, err := openFile(s.Files()[3])
		mustOK(t, err)
		defer f.Close()
		for i, g := range pf.RowGroups() {
			if int(pf.Metadata().RowGroups[i].Ordinal) != i {
				t.Fatalf("row group %d has ordinal %d: the offset index would not be used", i, pf.Metadata().RowGroups[i].Ordinal)
			}
			for _, c := range g.ColumnChunks() {
				oi, err := c.OffsetIndex()
				mustOK(t, err)
				maxPages = max(maxPages, oi.NumPages())
			}
		}
	}()
	if maxPages < 3 {
		t.Fatalf("column chunks have at most %d pages; want several", maxPages)
	}
	for _, useIndex := range []bool{true, false} {
		t.Run(fmt.Sprintf("pageIndex=%v", useIndex), func(t *testing.T) {
			defer func(old bool) { usePageIndex = old }(usePageIndex)
			usePageIndex = useIndex
			seekProperty(t, s, len(sizes), int64(i0))
		})
	}
}

func seekProperty(t *testing.T, s *Set, nFiles int, i0 int64) {
	total, _ := s.NumRows()
	if total != int64(i0) {
		t.Fatalf("NumRows %d, want %d", total, i0)
	}

	type item struct {
		v   string
		pos Position
	}
	readAll := func(next func() (string, Position, error), limit int) []item {
		var out []item
		for len(out) < limit {
			v, pos, err := next()
			if err == io.EOF {
				break
			}
			mustOK(t, err)
			out = append(out, item{v, pos})
		}
		return out
	}
	col, err := s.Strings("text")
	mustOK(t, err)
	defer col.Close()
	rows, err := s.Rows("text", "tags", "ids", "meta")
	mustOK(t, err)
	defer rows.Close()
	rowNext := func() (string, Position, error) {
		r, err := rows.Next()
		if err != nil {
			return "", Position{}, err
		}
		b, err := json.Marshal(r.Values)
		return string(b), r.Pos, err
	}
	fullCol := readAll(col.Next, 1<<30)
	fullRows := readAll(rowNext, 1<<30)
	if int64(len(fullRows)) != i0 || int64(len(fullCol))+col.Skipped() != total {
		t.Fatalf("rows %d, strings %d + skipped %d, want %d", len(fullRows), len(fullCol), col.Skipped(), i0)
	}

	// All positions: every (file, row), the end of every file, and the end of the set.
	var positions []Position
	for f, n := range s.FileRows() {
		for r := int64(0); r <= n; r++ {
			positions = append(positions, Position{f, r})
		}
	}
	positions = append(positions, Position{nFiles, 0})
	suffix := func(full []item, p Position) []item {
		i, _ := slices.BinarySearchFunc(full, p, func(it item, p Position) int {
			if it.pos.File != p.File {
				return it.pos.File - p.File
			}
			return int(it.pos.Row - p.Row)
		})
		return full[i:]
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for k := range 300 {
		p := positions[rng.IntN(len(positions))]
		if k < len(positions) && k%3 == 0 {
			p = positions[k] // plus a sweep of the first positions
		}
		// JSON round trip, as a checkpoint would store it.
		b, _ := json.Marshal(p)
		var q Position
		mustOK(t, json.Unmarshal(b, &q))
		limit := 1 + rng.IntN(20)
		if k%25 == 0 {
			limit = 1 << 30
		}
		for _, c := range []struct {
			name string
			seek func(Position) error
			pos  func() Position
			next func() (string, Position, error)
			full []item
		}{
			{"Strings", col.Seek, col.Position, col.Next, fullCol},
			{"Rows", rows.Seek, rows.Position, rowNext, fullRows},
		} {
			mustOK(t, c.seek(q))
			if c.pos() != q {
				t.Fatalf("%s: Position after Seek(%v) = %v", c.name, q, c.pos())
			}
			want := suffix(c.full, q)
			want = want[:min(limit, len(want))]
			got := readAll(c.next, limit)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: Seek(%v) then %d rows:\n got %v\nwant %v", c.name, q, limit, got, want)
			}
		}
	}
	// Progress after a seek counts every row before the position.
	mustOK(t, rows.Seek(Position{3, 10}))
	if done, tot := rows.Progress(); done != 97+0+1+10 || tot != total {
		t.Fatalf("Progress after Seek = %d/%d", done, tot)
	}
	for _, bad := range []Position{{-1, 0}, {0, -1}, {0, 98}, {5, 1}, {6, 0}} {
		if err := col.Seek(bad); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("Seek(%v) = %v, want an out-of-range error", bad, err)
		}
	}
}

// ---- memory ----

// TestParquetStreamingMemory streams a 200k-row file (~40 MB of text) and checks that the live heap stays far
// below the file's size: row groups are streamed, not loaded.
func TestParquetStreamingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.parquet")
	const nRows, batch = 200_000, 10_000
	w, err := NewWriter[tText](path, parquet.MaxRowsPerRowGroup(25_000))
	mustOK(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	letters := []byte("abcdefghijklmnopqrstuvwxyz ")
	buf := make([]tText, 0, batch)
	var textBytes int64
	for i := range nRows {
		b := make([]byte, 150+rng.IntN(100)) // random text: compresses poorly, like real text after snappy
		for j := range b {
			b[j] = letters[rng.IntN(len(letters))]
		}
		buf = append(buf, tText{strPtr(string(b))})
		textBytes += int64(len(b))
		if len(buf) == batch || i == nRows-1 {
			mustOK(t, w.Write(buf...))
			buf = buf[:0]
		}
	}
	mustOK(t, w.Close())
	buf = nil

	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	s, err := Open(path)
	mustOK(t, err)
	col, err := s.Strings("text")
	mustOK(t, err)
	defer col.Close()
	base := heap()
	var peak uint64
	var n int64
	for {
		v, _, err := col.Next()
		if err == io.EOF {
			break
		}
		mustOK(t, err)
		if len(v) < 150 {
			t.Fatalf("row %d: %d bytes", n, len(v))
		}
		n++
		if n%40_000 == 0 {
			peak = max(peak, heap())
		}
	}
	if n != nRows {
		t.Fatalf("read %d rows", n)
	}
	growth := int64(peak) - int64(base)
	t.Logf("text %d MB, heap growth while streaming %.1f MB", textBytes>>20, float64(growth)/(1<<20))
	if growth > textBytes/4 {
		t.Fatalf("heap grew by %d bytes while streaming %d bytes of text: the file is not streamed", growth, textBytes)
	}
}

// ---- writer ----

func TestParquetWriterAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.parquet")
	mustOK(t, WriteFile(path, []tText{{strPtr("one")}}))

	// A streaming writer leaves the old file in place until Close.
	w, err := NewWriter[tText](path, parquet.KeyValueMetadata(FeaturesKey, `{"info": {"features": {}}}`))
	mustOK(t, err)
	mustOK(t, w.Write(tText{strPtr("two")}, tText{strPtr("three")}))
	mustOK(t, w.Flush())
	mustOK(t, w.Write(tText{nil}))
	s, err := Open(path)
	mustOK(t, err)
	if n, _ := s.NumRows(); n != 1 {
		t.Fatalf("before Close the old file has %d rows", n)
	}
	mustOK(t, w.Close())
	mustOK(t, w.Close()) // idempotent
	if err := w.Write(tText{strPtr("late")}); err == nil {
		t.Fatal("Write after Close: no error")
	}
	s, err = Open(path)
	mustOK(t, err)
	if n, _ := s.NumRows(); n != 3 || len(s.files[0].groupRows) != 2 {
		t.Fatalf("after Close: %d rows, %d row groups", n, len(s.files[0].groupRows))
	}
	if v, ok, _ := s.Metadata(path, FeaturesKey); !ok || !strings.Contains(v, "features") {
		t.Fatalf("metadata %q %v", v, ok)
	}

	// Abort leaves the previous file and no temporary file.
	w, err = NewWriter[tText](path)
	mustOK(t, err)
	mustOK(t, w.Write(tText{strPtr("x")}))
	mustOK(t, w.Abort())
	s, err = Open(path)
	mustOK(t, err)
	if n, _ := s.NumRows(); n != 3 {
		t.Fatalf("after Abort: %d rows", n)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("directory holds %q, want only out.parquet", names)
	}
	// Writing into a missing directory is an error naming the path.
	err = WriteFile(filepath.Join(dir, "no", "such", "x.parquet"), []tText{{strPtr("x")}})
	errContains(t, err, filepath.Join(dir, "no", "such", "x.parquet"))
	// An unsupported row type is an error, not a panic.
	err = WriteFile(filepath.Join(dir, "chan.parquet"), []struct{ C chan int }{{}})
	if err == nil {
		t.Fatal("writing a chan field: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "chan.parquet")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("failed write left a file: %v", err)
	}
}

// ---- sizes that parquet-go would trust ----

// TestParquetCorruptSizes checks the inputs on which parquet-go v0.32.0 itself would spin or allocate without
// bound: they must be quick errors.
func TestParquetCorruptSizes(t *testing.T) {
	dir := t.TempDir()
	rows := []tText{{strPtr(strings.Repeat("hello world ", 20))}, {strPtr("b")}}
	readErr := func(path string) error {
		s, err := Open(path)
		if err != nil {
			return err
		}
		col, err := s.Strings("text")
		mustOK(t, err)
		defer col.Close()
		for {
			if _, _, err := col.Next(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}
	// dataStart returns the offset of the first data page's compressed bytes (data page v1, one column).
	dataStart := func(path string) (data []byte, off int) {
		f, pf, err := openFile(path)
		mustOK(t, err)
		defer f.Close()
		data, err = os.ReadFile(path)
		mustOK(t, err)
		po := int(pf.Metadata().RowGroups[0].Columns[0].MetaData.DataPageOffset)
		n, err := thriftCheck(data[po:])
		mustOK(t, err)
		return data, po + n
	}

	// LZ4_RAW: parquet-go's decoder doubles its buffer forever on corrupt data, so it is refused.
	lz4 := writeTemp(t, dir, "lz4.parquet", rows, parquet.Compression(&parquet.Lz4Raw))
	errContains(t, readErr(lz4), lz4, `column "text"`, "LZ4_RAW compression is not supported")

	// A SNAPPY block announcing 4 GiB.
	snappy := writeTemp(t, dir, "snappy.parquet", rows, parquet.DataPageVersion(1))
	mustOK(t, readErr(snappy))
	data, off := dataStart(snappy)
	copy(data[off:], []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	bad := filepath.Join(dir, "snappy-bad.parquet")
	mustOK(t, os.WriteFile(bad, data, 0o644))
	errContains(t, readErr(bad), bad, "compressed data announces 4294967295 bytes")

	// A ZSTD frame announcing 2^60 bytes.
	zstd := writeTemp(t, dir, "zstd.parquet", rows, parquet.DataPageVersion(1), parquet.Compression(&parquet.Zstd))
	mustOK(t, readErr(zstd))
	data, off = dataStart(zstd)
	if string(data[off:off+4]) != "\x28\xb5\x2f\xfd" {
		t.Fatalf("no zstd frame at the page data: % x", data[off:off+8])
	}
	copy(data[off+4:], []byte{0xc0, 0x58, 0, 0, 0, 0, 0, 0, 0, 0x10}) // FCS flag 3 (8 bytes), window descriptor
	bad = filepath.Join(dir, "zstd-bad.parquet")
	mustOK(t, os.WriteFile(bad, data, 0o644))
	errContains(t, readErr(bad), bad, "compressed data announces")

	// A footer holding a list of 2^31-1 doubles (parquet-go's thrift decoder would skip it for minutes).
	footer := []byte{0x09, 0xc8, 0x01, 0xf7, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00} // type list, long form (delta 0), field 100 (zigzag 200): list<double>
	var file []byte
	file = append(file, "PAR1"...)
	file = append(file, footer...)
	file = append(file, byte(len(footer)), 0, 0, 0)
	file = append(file, "PAR1"...)
	bad = filepath.Join(dir, "footer-list.parquet")
	mustOK(t, os.WriteFile(bad, file, 0o644))
	_, err := Open(bad)
	errContains(t, err, bad, "corrupt footer")

	// A footer length beyond the file.
	data, err = os.ReadFile(snappy)
	mustOK(t, err)
	copy(data[len(data)-8:], []byte{0xf0, 0xff, 0xff, 0x7f})
	bad = filepath.Join(dir, "footer-len.parquet")
	mustOK(t, os.WriteFile(bad, data, 0o644))
	_, err = Open(bad)
	errContains(t, err, bad, "footer length 2147483632 exceeds the file size")
}

func TestParquetThriftCheck(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		n    int
		fail bool
	}{
		{[]byte{0x00}, 1, false},                         // empty struct
		{[]byte{0x15, 0x04, 0x00}, 3, false},             // field 1 i32 = 2
		{[]byte{0x11, 0x12, 0x00}, 3, false},             // bools in the header
		{[]byte{0x19, 0x25, 0x02, 0x04, 0x00}, 5, false}, // list<i32>{1, 2}
		{[]byte{0x19, 0x35, 0x02, 0x04, 0x00}, 0, true},  // list of 3 with 2 elements
		{[]byte{0x18, 0x05, 'a', 'b'}, 0, true},          // binary longer than the input
		{[]byte{0x1c, 0x1c, 0x1c}, 0, true},              // unterminated structs
		{[]byte{0x1f}, 0, true},                          // unknown type 15
		{[]byte{0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0, true}, // varint too long
		{[]byte{0x1b, 0x01, 0x55, 0x02, 0x04, 0x00}, 6, false},                                    // map<i32,i32>{1: 2}
		{append(bytes.Repeat([]byte{0x1c}, 70), 0x00), 0, true},                                   // nested too deep
	} {
		n, err := thriftCheck(c.in)
		if (err != nil) != c.fail || (!c.fail && n != c.n) {
			t.Errorf("thriftCheck(% x) = %d, %v; want %d, fail %v", c.in, n, err, c.n, c.fail)
		}
	}
}

// TestParquetOverlappingRowGroups: a footer listing a row group twice (or a row group whose column chunk
// overlaps another's) is refused by Open, naming the file: before, the rows were counted and read twice
// (piqa scored as 3,676 documents of 1,838).
func TestParquetOverlappingRowGroups(t *testing.T) {
	dir := t.TempDir()
	rows := []tText{{strPtr("a")}, {strPtr("b")}, {strPtr("c")}}
	good := writeTemp(t, dir, "good.parquet", rows)
	s, err := Open(good)
	mustOK(t, err)
	n, err := s.NumRows()
	mustOK(t, err)
	if n != 3 {
		t.Fatalf("good file: %d rows, want 3", n)
	}
	// rewrite writes the file with its footer's row groups edited.
	rewrite := func(name string, edit func(md *format.FileMetaData)) string {
		data, err := os.ReadFile(good)
		mustOK(t, err)
		fl := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
		var md format.FileMetaData
		mustOK(t, thrift.Unmarshal(new(thrift.CompactProtocol), data[len(data)-8-fl:len(data)-8], &md))
		edit(&md)
		footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
		mustOK(t, err)
		out := append(slices.Clone(data[:len(data)-8-fl]), footer...)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
		out = append(out, "PAR1"...)
		p := filepath.Join(dir, name)
		mustOK(t, os.WriteFile(p, out, 0o644))
		return p
	}
	twice := rewrite("twice.parquet", func(md *format.FileMetaData) {
		md.RowGroups = append(md.RowGroups, md.RowGroups[0])
		md.NumRows *= 2
	})
	_, err = Open(twice)
	errContains(t, err, twice, "row groups 0 and 1 overlap", "listed twice")

	overlap := rewrite("overlap.parquet", func(md *format.FileMetaData) {
		g := md.RowGroups[0]
		g.Columns = slices.Clone(g.Columns)
		c := &g.Columns[0].MetaData
		c.DataPageOffset++
		c.DictionaryPageOffset = 0
		c.TotalCompressedSize--
		md.RowGroups = append(md.RowGroups, g)
		md.NumRows *= 2
	})
	_, err = Open(overlap)
	errContains(t, err, overlap, "row groups 0 and 1 overlap")

	// The unchanged footer, re-encoded, still opens (the rewrite itself is not what is refused).
	same := rewrite("same.parquet", func(*format.FileMetaData) {})
	_, err = Open(same)
	mustOK(t, err)
}
