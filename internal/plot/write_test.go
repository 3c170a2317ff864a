package plot

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decodeFile decodes the PNG file at path.
func decodeFile(t *testing.T, path string) image.Image {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("png.Decode(%s): %v", path, err)
	}
	return img
}

// onlyFiles fails unless dir holds exactly the named files (no temporary leftovers).
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

func smallChart(w, h int) *Chart {
	return &Chart{Title: "loss", Width: w, Height: h, Series: []Series{{Name: "train", X: []float64{0, 1, 2}, Y: []float64{3, 2, 1.5}}}}
}

func TestWritePNG(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "loss.png")
	if err := smallChart(300, 200).WritePNG(path); err != nil {
		t.Fatal(err)
	}
	img := decodeFile(t, path)
	if img.Bounds() != image.Rect(0, 0, 300, 200) {
		t.Errorf("decoded bounds %v, want 300x200", img.Bounds())
	}
	onlyFiles(t, dir, "loss.png")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	// The rendered pixels are what was written.
	want, _ := smallChart(300, 200).Render()
	if c := img.At(150, 100); c != want.At(150, 100) {
		t.Errorf("pixel (150, 100) is %v, want %v", c, want.At(150, 100))
	}

	// Overwriting replaces the file.
	if err := smallChart(400, 250).WritePNG(path); err != nil {
		t.Fatal(err)
	}
	if b := decodeFile(t, path).Bounds(); b != image.Rect(0, 0, 400, 250) {
		t.Errorf("after overwrite: bounds %v, want 400x250", b)
	}
	onlyFiles(t, dir, "loss.png")
}

func TestWritePNGErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "loss.png")
	if err := smallChart(300, 200).WritePNG(path); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)

	// A chart that fails to render leaves the existing file alone.
	bad := &Chart{Series: []Series{{Name: "x", X: []float64{1}, Y: nil}}}
	if err := bad.WritePNG(path); err == nil {
		t.Error("WritePNG of an invalid chart succeeded")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("failed WritePNG changed the existing file")
	}
	// A missing directory is an error, not a panic.
	if err := smallChart(300, 200).WritePNG(filepath.Join(dir, "missing", "x.png")); err == nil {
		t.Error("WritePNG into a missing directory succeeded")
	}
	// Renaming over a directory fails; the temporary file is cleaned up.
	if err := os.Mkdir(filepath.Join(dir, "sub.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := smallChart(300, 200).WritePNG(filepath.Join(dir, "sub.png")); err == nil {
		t.Error("WritePNG over a directory succeeded")
	}
	onlyFiles(t, dir, "loss.png", "sub.png")
}

func TestWriteGridPNG(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		cols   int
		charts []*Chart
		w, h   int
	}{
		{2, []*Chart{smallChart(300, 200), smallChart(300, 200), smallChart(300, 200)}, 600, 400},
		{5, []*Chart{smallChart(300, 200), smallChart(300, 200)}, 600, 200},
		{1, []*Chart{smallChart(300, 200), smallChart(250, 300)}, 300, 600},
		{3, []*Chart{{}}, DefaultWidth, DefaultHeight},
	} {
		path := filepath.Join(dir, "grid.png")
		if err := WriteGridPNG(path, tc.cols, tc.charts...); err != nil {
			t.Fatalf("cols=%d, %d charts: %v", tc.cols, len(tc.charts), err)
		}
		if b := decodeFile(t, path).Bounds(); b != image.Rect(0, 0, tc.w, tc.h) {
			t.Errorf("cols=%d, %d charts: bounds %v, want %dx%d", tc.cols, len(tc.charts), b, tc.w, tc.h)
		}
	}
	onlyFiles(t, dir, "grid.png")

	for _, tc := range []struct {
		name   string
		cols   int
		charts []*Chart
		want   string
	}{
		{"cols 0", 0, []*Chart{smallChart(300, 200)}, "cols=0"},
		{"cols -1", -1, []*Chart{smallChart(300, 200)}, "cols=-1"},
		{"no charts", 2, nil, "no charts"},
		{"nil chart", 2, []*Chart{smallChart(300, 200), nil}, "chart 1"},
		{"bad chart", 2, []*Chart{{Width: 10}}, "too small"},
	} {
		path := filepath.Join(dir, "bad.png")
		err := WriteGridPNG(path, tc.cols, tc.charts...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
		if _, statErr := os.Stat(path); statErr == nil {
			t.Errorf("%s: file written despite the error", tc.name)
		}
	}
	onlyFiles(t, dir, "grid.png")
}
