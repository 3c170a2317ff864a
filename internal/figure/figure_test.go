package figure

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestCompact(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.0003: "0.0003", 0.5: "0.5", 12: "12", 1024: "1024",
		8192: "8192", 400000: "400k", 1.25e6: "1.25M", 3e9: "3B", 2.5e-5: "2.5e-05", -1500.5: "-1.5k"} {
		if got := Compact(v); got != want {
			t.Errorf("Compact(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestCentredMean(t *testing.T) {
	nan := math.NaN()
	got := CentredMean([]float64{1, 2, 3, 4, nan, 6}, 3)
	want := []float64{1, 2, 3, 3.5, 5, 6} // ends: window of 1; the NaN is skipped, its window mean kept
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("CentredMean = %v, want %v", got, want)
		}
	}
	if !math.IsNaN(CentredMean([]float64{nan}, 5)[0]) {
		t.Error("a window of NaNs should give NaN")
	}
}

func TestTicks(t *testing.T) {
	var got []string
	for _, tk := range (powerTicks{2}).Ticks(3, 70) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := []string{"4", "8", "16", "32", "64"}; !equal(got, want) {
		t.Errorf("log2 ticks over [3, 70]: %v, want %v", got, want)
	}
	got = nil
	for _, tk := range (powerTicks{10}).Ticks(0.3, 3) {
		got = append(got, tk.Label)
	}
	if want := []string{"0.5", "1", "2"}; !equal(got, want) {
		t.Errorf("log10 ticks over [0.3, 3]: %v, want %v", got, want)
	}
	got = nil
	for _, tk := range (compactTicks{}).Ticks(0, 1.2e6) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := []string{"0", "200k", "400k", "600k", "800k", "1M", "1.2M"}; !equal(got, want) {
		t.Errorf("linear ticks over [0, 1.2M]: %v, want %v", got, want)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestWritePNG(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.png")
	nan := math.NaN()
	p := &Panel{Title: "t", X: Axis{Label: "x", Scale: Log2, Ticks: []float64{4, 8, 16}}, Y: Axis{Label: "y"},
		Lines: []Line{{Name: "a", X: []float64{4, 8, 16}, Y: []float64{1, nan, 0.5}, Marker: 1, YErr: []float64{0.1, 0.1, nan}},
			{Name: "b", X: []float64{4, 8, 16}, Y: []float64{1, 1, 1}, Dash: Dashed}},
		HRefs: []Ref{{At: 0.1, Label: "chance"}}, Dodge: true}
	empty := &Panel{Title: "no data"}
	if err := (Figure{Title: "fig", Cols: 2, Panels: []*Panel{p, empty}, ShareY: true}).WritePNG(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	wantW := int(math.Round(float64(2*PanelWidth) / 72 * DPI))
	if img.Bounds().Dx() != wantW {
		t.Errorf("width %d, want %d (two panels)", img.Bounds().Dx(), wantW)
	}

	bad := &Panel{Lines: []Line{{X: []float64{1, 2}, Y: []float64{1}}}}
	if err := WritePNG(path, 1, bad); err == nil {
		t.Error("a line with 2 X and 1 Y values was accepted")
	}
	if err := WritePNG(path, 0, p); err == nil {
		t.Error("0 columns accepted")
	}
	neg := -1.0
	if err := WritePNG(path, 1, &Panel{Y: Axis{Scale: Log10, Min: &neg}}); err == nil {
		t.Error("a negative minimum on a log axis was accepted")
	}
}

// TestDodge checks the shift of lines on a categorical axis: ±6 % of the smallest gap between ticks (a
// ratio on a log axis), and for a single category half the axis' span around it, so that three schedules
// at one needle length stay apart.
func TestDodge(t *testing.T) {
	for _, c := range []struct {
		x, ticks []float64
		log      bool
		i, n     int
		want     []float64
	}{
		{[]float64{4, 8}, []float64{4, 8, 16}, true, 0, 3, []float64{4 * math.Pow(2, -0.06), 8 * math.Pow(2, -0.06)}},
		{[]float64{4, 8}, []float64{4, 8, 16}, true, 1, 3, []float64{4, 8}},
		{[]float64{10, 30}, []float64{10, 20, 30}, false, 2, 3, []float64{10.6, 30.6}},
		{[]float64{122}, []float64{122}, true, 2, 3, []float64{122 * math.Pow(2, 0.06)}},
		{[]float64{122}, []float64{122}, false, 0, 2, []float64{122 - 0.03}},
		{[]float64{1, 2}, nil, false, 0, 2, []float64{1, 2}}, // no categories: no shift
	} {
		got := dodge(c.x, c.log, c.ticks, c.i, c.n)
		for k := range c.want {
			if math.Abs(got[k]-c.want[k]) > 1e-9*math.Abs(c.want[k]) {
				t.Errorf("dodge(%v, log %v, ticks %v, %d of %d) = %v, want %v", c.x, c.log, c.ticks, c.i, c.n, got, c.want)
				break
			}
		}
	}
}
