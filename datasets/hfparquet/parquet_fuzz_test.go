package hfparquet

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// fuzzSeeds returns a few small valid parquet files (small, so that the fuzzer's minimisation is quick):
// HF-style nullable text, an ARC-like struct holding a list, and integers and lists over two row groups in data
// page v1 with dictionaries.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	dir := tb.TempDir()
	type intsAndLists struct {
		ID   int32    `parquet:"id,optional"`
		Tags []string `parquet:"tags,optional,list"`
	}
	type arcLike struct {
		Choices struct {
			Label []string `parquet:"label,optional,list" parquet-element:",optional"`
		} `parquet:"choices,optional"`
		Ok bool `parquet:"ok"`
	}
	var arc arcLike
	arc.Choices.Label = []string{"A", "B"}
	paths := []string{
		writeTemp(tb, dir, "text.parquet", []tText{{strPtr(" = Robert Boulter = \n")}, {nil}, {strPtr("ok \xff")}}),
		writeTemp(tb, dir, "arc.parquet", []arcLike{arc}),
		writeTemp(tb, dir, "ints.parquet", []intsAndLists{{1, []string{"a", "b"}}, {0, nil}, {5, []string{}}},
			parquet.MaxRowsPerRowGroup(2), parquet.DataPageVersion(1), parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.RLEDictionary)),
	}
	var seeds [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzParquetReader feeds arbitrary bytes to Open and every reader (Rows of each column, Seek, and the
// typed readers): they must return errors (naming the file, starting with "hfparquet:"), never panic, hang or
// exhaust memory. Seeds: fuzzSeeds and testdata/fuzz/FuzzParquetReader.
func FuzzParquetReader(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "fuzz.parquet")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// A hang is a failure too: without this, the fuzzer would only stall (and still pass).
		watchdog := time.AfterFunc(10*time.Second, func() {
			panic(fmt.Sprintf("reading a %d-byte input took more than 10s", len(data)))
		})
		defer watchdog.Stop()
		readAllNoPanic(t, path)
	})
}

// TestParquetWriteFuzzSeeds rewrites testdata/fuzz/FuzzParquetReader from fuzzSeeds when
// DATASETS_WRITE_FUZZ_SEEDS=1, and otherwise checks that the stored seeds are valid files that read without
// error.
func TestParquetWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzParquetReader")
	if os.Getenv("DATASETS_WRITE_FUZZ_SEEDS") == "1" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, b := range fuzzSeeds(t) {
			content := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d", i)), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Skipf("no stored fuzz seeds in %s (write them with DATASETS_WRITE_FUZZ_SEEDS=1): %v", dir, err)
	}
	for _, e := range entries {
		if len(e.Name()) < 5 || e.Name()[:5] != "seed-" {
			continue // a corpus entry the fuzzer added: not necessarily valid
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var lit string
		if _, err := fmt.Sscanf(string(raw), "go test fuzz v1\n[]byte(%q)\n", &lit); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		p := filepath.Join(t.TempDir(), e.Name()+".parquet")
		if err := os.WriteFile(p, []byte(lit), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := readAllNoPanic(t, p); err != nil {
			t.Fatalf("stored seed %s does not read: %v", e.Name(), err)
		}
	}
}
