package plot

import (
	"image"
	"image/color"
	"math"
	"strings"
	"testing"
)

// countColor counts the pixels of r (within img) that have exactly colour col.
func countColor(img *image.RGBA, r image.Rectangle, col color.RGBA) int {
	r = r.Intersect(img.Rect)
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) == col {
				n++
			}
		}
	}
	return n
}

// render renders c, failing the test on error, and returns the image and its layout.
func render(t *testing.T, c *Chart) (*image.RGBA, layout) {
	t.Helper()
	img, err := c.Render()
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return img, c.layout()
}

// ramp returns xs = 0..n-1 and ys = f(x).
func ramp(n int, f func(x float64) float64) (xs, ys []float64) {
	for i := range n {
		xs = append(xs, float64(i))
		ys = append(ys, f(float64(i)))
	}
	return xs, ys
}

// columns returns the pixel columns of the plot area between data x values a and b.
func columns(l layout, a, b float64) image.Rectangle {
	return image.Rect(int(math.Ceil(l.x.pixel(a))), l.plot.Min.Y, int(math.Floor(l.x.pixel(b)))+1, l.plot.Max.Y)
}

func ptr(v float64) *float64 { return &v }

func TestRenderSize(t *testing.T) {
	xs, ys := ramp(10, func(x float64) float64 { return x * x })
	for _, tc := range []struct{ w, h, wantW, wantH int }{
		{0, 0, DefaultWidth, DefaultHeight},
		{300, 0, 300, DefaultHeight},
		{MinWidth, MinHeight, MinWidth, MinHeight},
		{1234, 567, 1234, 567},
	} {
		c := &Chart{Title: "t", XLabel: "x", YLabel: "y", Width: tc.w, Height: tc.h, Series: []Series{{Name: "s", X: xs, Y: ys}}}
		img, l := render(t, c)
		if got := img.Bounds(); got != image.Rect(0, 0, tc.wantW, tc.wantH) {
			t.Errorf("size %dx%d: bounds %v, want %dx%d", tc.w, tc.h, got, tc.wantW, tc.wantH)
		}
		if l.plot.Dx() < 50 || l.plot.Dy() < 50 || !l.plot.In(img.Bounds()) {
			t.Errorf("size %dx%d: unreasonable plot area %v", tc.w, tc.h, l.plot)
		}
	}
}

func TestPalette(t *testing.T) {
	if len(palette) < 8 {
		t.Fatalf("palette has %d colours, want ≥ 8", len(palette))
	}
	furniture := []color.RGBA{colBackground, colText, colAxis, colGrid, colMarker, colNote, colLegendEdge}
	seen := map[color.RGBA]bool{}
	for _, c := range furniture {
		seen[c] = true
	}
	for i, c := range palette {
		if seen[c] {
			t.Errorf("palette[%d] = %v is not distinct", i, c)
		}
		seen[c] = true
		if seriesColor(i+len(palette)) != c {
			t.Errorf("seriesColor does not cycle at %d", i)
		}
	}
}

func TestSeriesColoursInPlotArea(t *testing.T) {
	var series []Series
	for k := range 12 {
		xs, ys := ramp(50, func(x float64) float64 { return float64(k) + math.Sin(x/5) })
		series = append(series, Series{Name: "s", X: xs, Y: ys, Dashed: k%2 == 1})
	}
	img, l := render(t, &Chart{Series: series})
	for k := range series {
		col := seriesColor(k)
		if n := countColor(img, l.plot, col); n < 100 {
			t.Errorf("series %d: %d pixels of its colour %v in the plot area, want ≥ 100", k, n, col)
		}
	}
	// Series are clipped to the plot area; the legend lies inside it too.
	outside := 0
	for _, col := range palette {
		outside += countColor(img, img.Rect, col) - countColor(img, l.plot, col)
	}
	if outside != 0 {
		t.Errorf("%d series pixels outside the plot area", outside)
	}
}

func TestGapsBreakTheLine(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		xs, ys := ramp(101, func(x float64) float64 {
			if x >= 40 && x <= 60 {
				return bad
			}
			return 1 + x/100
		})
		c := &Chart{Series: []Series{{X: xs, Y: ys}}} // unnamed: no legend in the way
		img, l := render(t, c)
		col := seriesColor(0)
		if n := countColor(img, columns(l, 40.5, 59.5), col); n != 0 {
			t.Errorf("gap %v: %d series pixels in the gap", bad, n)
		}
		for _, a := range []float64{10, 80} {
			if n := countColor(img, columns(l, a, a+5), col); n == 0 {
				t.Errorf("gap %v: no series pixels around x=%v", bad, a)
			}
		}
		// Non-finite values do not stretch the range: Y data spans [1, 2].
		if l.y.lo < 0.9 || l.y.hi > 2.1 {
			t.Errorf("gap %v: Y range [%g, %g], want about [1, 2]", bad, l.y.lo, l.y.hi)
		}
	}
}

func TestDashedSeries(t *testing.T) {
	xs, ys := ramp(101, func(float64) float64 { return 1 })
	for _, dashed := range []bool{false, true} {
		img, l := render(t, &Chart{YMin: ptr(0), YMax: ptr(2), Series: []Series{{X: xs, Y: ys, Dashed: dashed}}})
		row := int(math.Round(l.y.pixel(1)))
		r := columns(l, 10, 90)
		on := 0
		for x := r.Min.X; x < r.Max.X; x++ {
			if countColor(img, image.Rect(x, row-1, x+1, row+2), seriesColor(0)) > 0 {
				on++
			}
		}
		frac := float64(on) / float64(r.Dx())
		if !dashed && frac < 0.99 {
			t.Errorf("solid line covers %.2f of its row, want all of it", frac)
		}
		if dashed && (frac < 0.5 || frac > 0.75) {
			t.Errorf("dashed line covers %.2f of its row, want about 8/13", frac)
		}
	}
}

func TestLineThickness(t *testing.T) {
	xs, ys := ramp(101, func(float64) float64 { return 1 })
	img, l := render(t, &Chart{YMin: ptr(0), YMax: ptr(2), Series: []Series{{X: xs, Y: ys}}})
	x := int(l.x.pixel(50))
	if n := countColor(img, image.Rect(x, l.plot.Min.Y, x+1, l.plot.Max.Y), seriesColor(0)); n < 2 {
		t.Errorf("horizontal line is %d px thick, want ≥ 2", n)
	}
	ys2 := []float64{0, 2}
	img, l = render(t, &Chart{YMin: ptr(0), YMax: ptr(2), Series: []Series{{X: []float64{0, 0}, Y: ys2}}})
	y := int(l.y.pixel(1))
	if n := countColor(img, image.Rect(l.plot.Min.X, y, l.plot.Max.X, y+1), seriesColor(0)); n < 2 {
		t.Errorf("vertical line is %d px thick, want ≥ 2", n)
	}
}

func TestOnePointSeriesIsADot(t *testing.T) {
	c := &Chart{Series: []Series{
		{Name: "dot", X: []float64{5}, Y: []float64{7}},
		{X: []float64{1, 9}, Y: []float64{0, 10}},
	}}
	img, l := render(t, c)
	cx, cy := int(l.x.pixel(5)), int(l.y.pixel(7))
	around := image.Rect(cx-5, cy-5, cx+6, cy+6)
	if n := countColor(img, around, seriesColor(0)); n < 25 {
		t.Errorf("dot: %d pixels of its colour at its position, want ≥ 25", n)
	}
	if n := countColor(img, l.plot, seriesColor(0)) - countColor(img, around, seriesColor(0)); n > 60 {
		t.Errorf("dot: %d pixels of its colour elsewhere than the dot and legend sample", n)
	}
}

func TestNoData(t *testing.T) {
	for name, c := range map[string]*Chart{
		"empty":       {},
		"no series":   {Title: "t", VLines: []VLine{{X: 3, Label: "m"}}},
		"all NaN":     {Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{math.NaN(), math.Inf(1)}}}},
		"empty slice": {Series: []Series{{Name: "a"}}},
		"log nonpos":  {LogY: true, Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{0, -1}}}},
		"fixed Y":     {YMin: ptr(-1), Series: []Series{{X: []float64{1}, Y: []float64{math.NaN()}}}},
	} {
		img, l := render(t, c)
		if l.hasData {
			t.Errorf("%s: hasData", name)
		}
		if countColor(img, l.plot, colNote) == 0 {
			t.Errorf("%s: no \"no data\" note", name)
		}
		if len(l.x.ticks) < 2 || len(l.y.ticks) < 2 {
			t.Errorf("%s: ticks %v / %v, want axes with ticks", name, l.x.ticks, l.y.ticks)
		}
	}
}

func TestLogAxes(t *testing.T) {
	var xs, ys []float64
	for i := range 9 {
		xs = append(xs, math.Pow10(i))
		ys = append(ys, 10/math.Pow10(i/2))
	}
	// Non-positive values are skipped on log axes: neither an error nor part of the range.
	xs = append(xs, 0, -5, 50)
	ys = append(ys, 1, 1, -3)
	c := &Chart{LogX: true, LogY: true, Series: []Series{{Name: "s", X: xs, Y: ys}}}
	img, l := render(t, c)
	if l.x.lo <= 0 || l.y.lo <= 0 {
		t.Fatalf("log ranges [%g, %g] x [%g, %g] not positive", l.x.lo, l.x.hi, l.y.lo, l.y.hi)
	}
	if l.x.lo > 1 || l.x.hi < 1e8 || l.x.lo < 0.5 || l.x.hi > 2e8 {
		t.Errorf("X range [%g, %g], want about [1, 1e8]", l.x.lo, l.x.hi)
	}
	if l.y.lo > 1e-3 || l.y.hi < 10 || l.y.lo < 0.5e-3 {
		t.Errorf("Y range [%g, %g], want about [1e-3, 10]", l.y.lo, l.y.hi)
	}
	for _, v := range l.x.ticks {
		if e := math.Log10(v); math.Abs(e-math.Round(e)) > 1e-9 {
			t.Errorf("X tick %g is not a power of ten", v)
		}
	}
	// Log mapping: 1e4 is halfway between 1 and 1e8.
	mid := (l.x.pixel(1) + l.x.pixel(1e8)) / 2
	if d := math.Abs(l.x.pixel(1e4) - mid); d > 0.5 {
		t.Errorf("x=1e4 maps %g px away from the middle of [1, 1e8]", d)
	}
	if n := countColor(img, l.plot, seriesColor(0)); n < 100 {
		t.Errorf("%d series pixels, want ≥ 100", n)
	}

	// A non-positive value on a log axis is a gap, like NaN.
	xs, ys = ramp(101, func(x float64) float64 {
		if x >= 40 && x <= 60 {
			return 0
		}
		return 1 + x
	})
	img, l = render(t, &Chart{LogY: true, Series: []Series{{X: xs, Y: ys}}})
	if n := countColor(img, columns(l, 40.5, 59.5), seriesColor(0)); n != 0 {
		t.Errorf("log gap: %d series pixels in the gap", n)
	}
}

func TestVLines(t *testing.T) {
	xs, ys := ramp(100, func(x float64) float64 { return x })
	c := &Chart{Series: []Series{{X: xs, Y: ys}}, VLines: []VLine{
		{X: 50, Label: "switch"},
		{X: 300, Label: "later"}, // widens the X range
		{X: math.NaN(), Label: "skipped"},
	}}
	img, l := render(t, c)
	if l.x.hi < 300 {
		t.Errorf("X range [%g, %g] does not include the marker at 300", l.x.lo, l.x.hi)
	}
	for _, v := range []float64{50, 300} {
		x := int(math.Round(l.x.pixel(v)))
		if n := countColor(img, image.Rect(x, l.plot.Min.Y, x+1, l.plot.Max.Y), colMarker); n < l.plot.Dy()/3 {
			t.Errorf("marker at %v: %d marker pixels in its column", v, n)
		}
	}
}

func TestFixedYRangeClips(t *testing.T) {
	xs, ys := ramp(100, func(x float64) float64 { return math.Pow(10, x/10) }) // up to 1e9.9
	c := &Chart{YMin: ptr(0), YMax: ptr(2), Series: []Series{{Name: "s", X: xs, Y: ys}}}
	img, l := render(t, c)
	if l.y.lo != 0 || l.y.hi != 2 {
		t.Errorf("Y range [%g, %g], want [0, 2]", l.y.lo, l.y.hi)
	}
	col := seriesColor(0)
	if n := countColor(img, img.Rect, col) - countColor(img, l.plot, col); n != 0 {
		t.Errorf("%d series pixels outside the plot area", n)
	}
	// Only one end fixed: the other stays automatic, even when data lie beyond the fixed end.
	_, l = render(t, &Chart{YMin: ptr(5), Series: []Series{{X: []float64{0, 1}, Y: []float64{1, 2}}}})
	if l.y.lo != 5 || !(l.y.hi > 5) {
		t.Errorf("YMin above the data: range [%g, %g]", l.y.lo, l.y.hi)
	}
	_, l = render(t, &Chart{YMax: ptr(10), Series: []Series{{X: []float64{0, 1}, Y: []float64{1, 2}}}})
	if l.y.hi != 10 || l.y.lo > 1 || l.y.lo < 0.5 {
		t.Errorf("YMax only: range [%g, %g], want about [0.95, 10]", l.y.lo, l.y.hi)
	}
}

func TestLegendAvoidsData(t *testing.T) {
	// A rising diagonal fills the bottom-left and top-right corners: the legend goes top-left.
	xs, ys := ramp(101, func(x float64) float64 { return x })
	img, l := render(t, &Chart{Series: []Series{{Name: "a long series name", X: xs, Y: ys}}})
	mx, my := (l.plot.Min.X+l.plot.Max.X)/2, (l.plot.Min.Y+l.plot.Max.Y)/2
	topLeft := image.Rect(l.plot.Min.X, l.plot.Min.Y, mx, my)
	topRight := image.Rect(mx, l.plot.Min.Y, l.plot.Max.X, my)
	if countColor(img, topLeft, colLegendEdge) == 0 || countColor(img, topRight, colLegendEdge) != 0 {
		t.Errorf("legend not in the top-left corner")
	}
}

func TestOddData(t *testing.T) {
	// None of these may panic or fail.
	for name, s := range map[string][]Series{
		"different lengths": {{Name: "a", X: []float64{1, 2, 3}, Y: []float64{1, 2, 3}}, {Name: "b", X: []float64{1}, Y: []float64{5}}},
		"constant":          {{X: []float64{1, 2, 3}, Y: []float64{4, 4, 4}}},
		"single at zero":    {{X: []float64{0}, Y: []float64{0}}},
		"huge":              {{X: []float64{-math.MaxFloat64, math.MaxFloat64}, Y: []float64{-math.MaxFloat64, math.MaxFloat64}}},
		"tiny":              {{X: []float64{0, 1e-300}, Y: []float64{1e-310, 2e-310}}},
		"offset":            {{X: []float64{1e15, 1e15 + 1}, Y: []float64{1, 1 + 1e-12}}},
		"unsorted":          {{X: []float64{3, 1, 2, 0}, Y: []float64{1, 3, 0, 2}}},
		"many series":       make([]Series, 40),
		"long name":         {{Name: strings.Repeat("very long name ", 30), X: []float64{1, 2}, Y: []float64{1, 2}}},
		"non-ASCII name":    {{Name: "λ=1e-3 — ü", X: []float64{1, 2}, Y: []float64{1, 2}}},
	} {
		for i := range s {
			if s[i].Name == "" && s[i].X == nil {
				s[i] = Series{Name: "n", X: []float64{0, 1}, Y: []float64{float64(i), float64(i + 1)}}
			}
		}
		for _, logs := range [][2]bool{{false, false}, {true, true}} {
			c := &Chart{Title: name, Width: MinWidth, Height: MinHeight, LogX: logs[0], LogY: logs[1], Series: s}
			if _, err := c.Render(); err != nil {
				t.Errorf("%s (log %v): %v", name, logs, err)
			}
		}
	}
}

func TestRenderErrors(t *testing.T) {
	ok := []float64{1, 2}
	for _, tc := range []struct {
		name  string
		c     *Chart
		wants []string
	}{
		{"nil", nil, []string{"nil chart"}},
		{"lengths", &Chart{Series: []Series{{Name: "a", X: ok, Y: ok}, {Name: "loss", X: []float64{1, 2, 3}, Y: ok}}}, []string{`"loss"`, "len(X)=3", "len(Y)=2"}},
		{"narrow", &Chart{Width: MinWidth - 1}, []string{"too small", "199x500"}},
		{"short", &Chart{Height: MinHeight - 1}, []string{"too small"}},
		{"negative", &Chart{Width: -800}, []string{"too small"}},
		{"YMin ≥ YMax", &Chart{YMin: ptr(2), YMax: ptr(2)}, []string{"YMin"}},
		{"NaN YMax", &Chart{YMax: ptr(math.NaN())}, []string{"YMax", "not finite"}},
		{"log YMin", &Chart{LogY: true, YMin: ptr(0)}, []string{"YMin", "positive"}},
	} {
		img, err := tc.c.Render()
		if err == nil || img != nil {
			t.Errorf("%s: Render() = %v, %v; want an error", tc.name, img != nil, err)
			continue
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, w)
			}
		}
	}
}

func TestXTickLabelsFit(t *testing.T) {
	for _, xs := range [][]float64{
		{0, 1},
		{0, 123456789},
		{-1.23e-7, 4.56e-7},
		{1e15, 1e15 + 1}, // 140 px labels: cannot fit twice into the smallest chart
		{1, 1e300},
	} {
		for _, w := range []int{MinWidth, 333, DefaultWidth} {
			if xs[0] == 1e15 && w == MinWidth {
				continue
			}
			for _, logX := range []bool{false, true} {
				c := &Chart{Width: w, LogX: logX, Series: []Series{{X: xs, Y: []float64{1, 2}}}}
				_, l := render(t, c)
				if len(l.x.ticks) < 2 || !labelsFit(&l.x, l.width) {
					t.Errorf("X %v, width %d, log %v: ticks %q do not fit", xs, w, logX, l.x.labels)
				}
			}
		}
	}
}
