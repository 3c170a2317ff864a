// Package figure draws the project's PNG figures with gonum.org/v1/plot: training curves, the study's
// accuracy-against-size panels and mode-switch curves. It adds to gonum only what every figure here needs
// in the same way: one colour-blind-safe palette, markers, a legend beside (never over) the data, gaps at
// NaN points, exact ticks at the measured values of categorical axes (pair counts, prompt lengths), log₂
// axes, reference lines (a chance level, a switch position), compact tick labels (400k, 1.2M), several
// panels in one file, and atomic writes.
package figure

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/human"
)

// Scale is an axis scale.
type Scale int

const (
	// Linear is the default scale.
	Linear Scale = iota
	// Log2 is a base-2 log scale with ticks at powers of two (or at Axis.Ticks), for sizes that double.
	Log2
	// Log10 is a base-10 log scale with ticks at powers of ten (or at Axis.Ticks).
	Log10
)

// Axis describes one axis of a panel.
type Axis struct {
	Label string
	Scale Scale
	// Ticks, when set, puts labelled ticks exactly at these values and nowhere else: the axis of a
	// categorical quantity (the pair counts or prompt lengths that were measured).
	Ticks []float64
	// Min and Max, when non-nil, fix that end of the range.
	Min, Max *float64
}

// Dash styles of a line.
type Dash int

const (
	Solid Dash = iota
	Dashed
	Dotted
)

// Line is one series. Points with a NaN or infinite coordinate (or a non-positive one on a log axis) are
// gaps: the line is broken there.
type Line struct {
	Name  string // legend entry; empty leaves the line out of the legend
	X, Y  []float64
	Color int  // index into the palette (cycles)
	Dash  Dash // line style
	// Marker draws a glyph at every point: 0 none, else one of the palette's shapes (cycles from 1).
	Marker int
	// Faint draws a thin, half-transparent line: raw data under a smoothed curve.
	Faint bool
	// Width in points; 0 means 1.5.
	Width float64
	// YErr, when set, draws error bars of ±YErr[i] at each point (a standard error); NaN means none.
	YErr []float64
}

// Ref is a reference line across the panel: horizontal at Y (a chance level) or vertical at X (a switch).
type Ref struct {
	At    float64
	Label string
}

// Panel is one chart.
type Panel struct {
	Title  string
	X, Y   Axis
	Lines  []Line
	HRefs  []Ref // horizontal reference lines (grey, dashed, labelled in the legend)
	VRefs  []Ref // vertical reference lines
	NoGrid bool
	// LegendInside draws the legend in the data area's top-right corner, on white, instead of beside the
	// panel: for curves that leave that corner empty (a falling loss), so the panel keeps its full width.
	LegendInside bool
	// Dodge shifts the lines of a categorical axis slightly apart (a few percent of the spacing of the
	// categories, the same for every point of a line) so that equal values — several schedules at 0 or 1 —
	// stay visible side by side instead of hiding under each other. Ticks stay at the true values.
	Dodge   bool
	Comment string // a short line under the title (what a smoothed line is, how many samples...)
}

// Palette is Okabe and Ito's colour-blind-safe palette, in the order series take it.
var Palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{86, 180, 233, 255},  // sky blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{240, 228, 66, 255},  // yellow
	color.RGBA{0, 0, 0, 255},       // black
}

// shapes are the markers, hollow first so that coinciding points of several series stay visible.
var shapes = []draw.GlyphDrawer{draw.RingGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{},
	draw.PlusGlyph{}, draw.CircleGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{}}

var refColor = color.RGBA{110, 110, 110, 255}

// Size of one panel and the resolution of the PNG.
const (
	PanelWidth  = 6.4 * vg.Inch
	PanelHeight = 4.2 * vg.Inch
	DPI         = 110
)

// Figure is several panels in one image, with an optional title above them all.
type Figure struct {
	Title  string
	Cols   int // panels per row (at least 1)
	Panels []*Panel
	// ShareY gives every panel the same Y range (the union of their data), so that values can be
	// compared across panels; a panel's fixed Min/Max still wins.
	ShareY bool
}

// WritePNG draws the panels into one PNG file at path, cols panels per row, atomically. Each panel gets
// PanelWidth × PanelHeight, its legend on its right (or inside, see Panel.LegendInside).
func WritePNG(path string, cols int, panels ...*Panel) error {
	return Figure{Cols: cols, Panels: panels}.WritePNG(path)
}

// WritePNG draws the figure into one PNG file at path, atomically.
func (f Figure) WritePNG(path string) error {
	cols, panels := f.Cols, f.Panels
	if cols < 1 || len(panels) == 0 {
		return fmt.Errorf("figure: %s: need at least one panel and one column (got %d panels, %d columns)", path, len(panels), cols)
	}
	cols = min(cols, len(panels))
	rows := (len(panels) + cols - 1) / cols
	var titleH vg.Length
	var titleStyle text.Style
	if f.Title != "" {
		titleStyle = plot.New().Title.TextStyle
		sans(&titleStyle.Font, 15)
		titleStyle.XAlign, titleStyle.YAlign = draw.XCenter, draw.YTop
		titleH = titleStyle.Rectangle(f.Title).Size().Y + vg.Points(8)
	}
	img := vgimg.NewWith(vgimg.UseWH(vg.Length(cols)*PanelWidth, vg.Length(rows)*PanelHeight+titleH), vgimg.UseDPI(DPI))
	dc := draw.New(img)
	if f.Title != "" {
		dc.FillText(titleStyle, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Points(4)}, f.Title)
		dc.Max.Y -= titleH
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(6),
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
	built := make([]*plot.Plot, len(panels))
	legends := make([]*plot.Legend, len(panels))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, pn := range panels {
		p, legend, err := pn.build()
		if err != nil {
			return fmt.Errorf("figure: %s: panel %d (%q): %w", filepath.Base(path), i, pn.Title, err)
		}
		built[i], legends[i] = p, legend
		lo, hi = math.Min(lo, p.Y.Min), math.Max(hi, p.Y.Max)
	}
	for i, pn := range panels {
		p, legend := built[i], legends[i]
		if f.ShareY {
			if pn.Y.Min == nil {
				p.Y.Min = lo
			}
			if pn.Y.Max == nil {
				p.Y.Max = hi
			}
		}
		c := tiles.At(dc, i%cols, i/cols)
		if legend != nil && pn.LegendInside {
			p.Draw(c)
			dc := p.DataCanvas(c)
			r := legend.Rectangle(dc)
			w, h := r.Max.X-r.Min.X+vg.Points(10), r.Max.Y-r.Min.Y+vg.Points(6)
			box := vg.Rectangle{Min: vg.Point{X: dc.Max.X - w, Y: dc.Max.Y - h}, Max: dc.Max}
			dc.SetColor(color.White)
			dc.Fill(box.Path())
			lc := dc
			lc.Rectangle = vg.Rectangle{Min: vg.Point{X: box.Min.X + vg.Points(5), Y: box.Min.Y}, Max: vg.Point{X: box.Max.X, Y: box.Max.Y - vg.Points(3)}}
			legend.Draw(lc)
			continue
		}
		if legend != nil {
			r := legend.Rectangle(c)
			w := r.Max.X - r.Min.X + vg.Points(8)
			lc := c
			lc.Min.X = c.Max.X - w
			c.Max.X -= w
			// Align the legend's top with the data area's top (below the title).
			lc.Max.Y = p.DataCanvas(c).Max.Y
			legend.Draw(lc)
		}
		p.Draw(c)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	})
}

// build makes the gonum plot of a panel and its legend (nil when no line is named).
func (pn *Panel) build() (*plot.Plot, *plot.Legend, error) {
	p := plot.New()
	p.Title.Text = pn.Title
	if pn.Comment != "" {
		p.Title.Text += "\n" + pn.Comment
	}
	sans(&p.Title.TextStyle.Font, 13)
	p.X.Label.Text, p.Y.Label.Text = pn.X.Label, pn.Y.Label
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		sans(&a.Label.TextStyle.Font, 11)
		sans(&a.Tick.Label.Font, 10)
	}
	if !pn.NoGrid {
		g := plotter.NewGrid()
		g.Vertical.Color = color.Gray{225}
		g.Horizontal.Color = color.Gray{225}
		p.Add(g)
	}
	legend := plot.NewLegend()
	sans(&legend.TextStyle.Font, 10)
	legend.Top, legend.Left = true, true
	legend.ThumbnailWidth = vg.Points(26)
	named := 0

	var xs, ys []float64 // the valid data, for the ranges
	for i, l := range pn.Lines {
		if len(l.X) != len(l.Y) {
			return nil, nil, fmt.Errorf("line %d (%q): %d X values but %d Y values", i, l.Name, len(l.X), len(l.Y))
		}
		if l.YErr != nil && len(l.YErr) != len(l.Y) {
			return nil, nil, fmt.Errorf("line %d (%q): %d error bars for %d points", i, l.Name, len(l.YErr), len(l.Y))
		}
		if pn.Dodge && len(pn.Lines) > 1 {
			l.X = dodge(l.X, pn.X.Scale != Linear, pn.X.Ticks, i, len(pn.Lines))
		}
		col := Palette[l.Color%len(Palette)]
		if l.Faint {
			r, g, b, _ := col.RGBA()
			col = color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 90}
		}
		width := vg.Points(1.5)
		if l.Width > 0 {
			width = vg.Points(l.Width)
		}
		if l.Faint && l.Width == 0 {
			width = vg.Points(0.8)
		}
		var thumbs []plot.Thumbnailer
		if l.YErr != nil {
			if err := addErrorBars(p, l, col); err != nil {
				return nil, nil, err
			}
		}
		for _, seg := range segments(l.X, l.Y, pn.X.Scale != Linear, pn.Y.Scale != Linear) {
			for _, pt := range seg {
				xs, ys = append(xs, pt.X), append(ys, pt.Y)
			}
			line, err := plotter.NewLine(seg)
			if err != nil {
				return nil, nil, fmt.Errorf("line %q: %w", l.Name, err)
			}
			line.Color, line.Width, line.Dashes = col, width, dashes(l.Dash)
			p.Add(line)
			if thumbs == nil {
				thumbs = append(thumbs, line)
			}
			if l.Marker > 0 {
				sc, err := plotter.NewScatter(seg)
				if err != nil {
					return nil, nil, fmt.Errorf("line %q: %w", l.Name, err)
				}
				sc.Color, sc.Shape, sc.Radius = col, shapes[(l.Marker-1)%len(shapes)], vg.Points(3.5)
				p.Add(sc)
				if len(thumbs) == 1 {
					thumbs = append(thumbs, sc)
				}
			}
		}
		if l.Name != "" && thumbs != nil {
			legend.Add(l.Name, thumbs...)
			named++
		}
	}
	if err := setRange(&p.X, pn.X, xs, refValues(pn.VRefs)); err != nil {
		return nil, nil, fmt.Errorf("x axis: %w", err)
	}
	if err := setRange(&p.Y, pn.Y, ys, refValues(pn.HRefs)); err != nil {
		return nil, nil, fmt.Errorf("y axis: %w", err)
	}
	for _, r := range pn.HRefs {
		if l := refLine(r.At, false); l != nil {
			p.Add(l)
			if r.Label != "" {
				legend.Add(r.Label, l)
				named++
			}
		}
	}
	for _, r := range pn.VRefs {
		if l := refLine(r.At, true); l != nil {
			p.Add(l)
			if r.Label != "" {
				legend.Add(r.Label, l)
				named++
			}
		}
	}
	if named == 0 {
		return p, nil, nil
	}
	return p, &legend, nil
}

// dodge shifts line i of n by up to ±6 % of the smallest gap between ticks (a ratio on a log axis).
func dodge(x []float64, log bool, ticks []float64, i, n int) []float64 {
	gap := math.Inf(1)
	for k := 1; k < len(ticks); k++ {
		d := ticks[k] - ticks[k-1]
		if log {
			d = math.Log(ticks[k] / ticks[k-1])
		}
		if d > 0 {
			gap = math.Min(gap, d)
		}
	}
	if math.IsInf(gap, 1) {
		if len(ticks) != 1 {
			return x
		}
		// One category (the study's single needle length): the axis spans a factor 4 (log) or 1 (linear)
		// around it (setRange); a gap of half that keeps the lines as far apart as between two categories.
		gap = 0.5
		if log {
			gap = math.Log(2)
		}
	}
	off := gap * 0.12 * (float64(i)/float64(n-1) - 0.5)
	out := make([]float64, len(x))
	for k, v := range x {
		if log {
			out[k] = v * math.Exp(off)
		} else {
			out[k] = v + off
		}
	}
	return out
}

// errBars is a series with symmetric Y errors, for plotter.NewYErrorBars.
type errBars struct {
	plotter.XYs
	plotter.YErrors
}

// addErrorBars draws ±YErr bars at the valid points of l.
func addErrorBars(p *plot.Plot, l Line, col color.Color) error {
	var eb errBars
	for k := range l.X {
		e := l.YErr[k]
		if !valid(l.X[k], false) || !valid(l.Y[k], false) || !valid(e, false) || e <= 0 {
			continue
		}
		eb.XYs = append(eb.XYs, plotter.XY{X: l.X[k], Y: l.Y[k]})
		eb.YErrors = append(eb.YErrors, struct{ Low, High float64 }{e, e})
	}
	if len(eb.XYs) == 0 {
		return nil
	}
	bars, err := plotter.NewYErrorBars(eb)
	if err != nil {
		return fmt.Errorf("line %q: error bars: %w", l.Name, err)
	}
	bars.Color, bars.Width, bars.CapWidth = col, vg.Points(1), vg.Points(5)
	p.Add(bars)
	return nil
}

// sans sets a text style's font to Liberation Sans (gonum's default is the serif face) of the given size.
func sans(f *font.Font, size float64) {
	f.Typeface, f.Variant, f.Size = "Liberation", "Sans", vg.Points(size)
}

func refValues(rs []Ref) []float64 {
	var v []float64
	for _, r := range rs {
		v = append(v, r.At)
	}
	return v
}

// refLine is a reference line at `at`, vertical or horizontal. It spans the axes' range as drawn, read at
// draw time: a shared Y range (Figure.ShareY) is set after the panel is built, and a line fixed to the
// panel's own range would stop short of the shared one.
func refLine(at float64, vertical bool) *ref {
	l, err := plotter.NewLine(plotter.XYs{{X: at, Y: at}, {X: at, Y: at}})
	if err != nil {
		return nil
	}
	l.Color, l.Width, l.Dashes = refColor, vg.Points(1.2), []vg.Length{vg.Points(6), vg.Points(3)}
	return &ref{line: l, at: at, vertical: vertical}
}

// ref draws a reference line (refLine). It has no data range, so it never widens the axes.
type ref struct {
	line     *plotter.Line
	at       float64
	vertical bool
}

func (r *ref) Plot(c draw.Canvas, p *plot.Plot) {
	if r.vertical {
		r.line.XYs = plotter.XYs{{X: r.at, Y: p.Y.Min}, {X: r.at, Y: p.Y.Max}}
	} else {
		r.line.XYs = plotter.XYs{{X: p.X.Min, Y: r.at}, {X: p.X.Max, Y: r.at}}
	}
	r.line.Plot(c, p)
}

func (r *ref) Thumbnail(c *draw.Canvas) { r.line.Thumbnail(c) }

func dashes(d Dash) []vg.Length {
	switch d {
	case Dashed:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case Dotted:
		return []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	}
	return nil
}

// segments splits a series at its invalid points.
func segments(x, y []float64, logX, logY bool) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range x {
		if valid(x[i], logX) && valid(y[i], logY) {
			cur = append(cur, plotter.XY{X: x[i], Y: y[i]})
			continue
		}
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func valid(v float64, log bool) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!log || v > 0)
}

// setRange sets an axis' range (data and reference values, padded by 4 % on a linear axis unless fixed),
// its scale and its ticks.
func setRange(a *plot.Axis, spec Axis, data, refs []float64) error {
	log := spec.Scale != Linear
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range append(append(append([]float64{}, data...), refs...), spec.Ticks...) {
		if valid(v, log) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi { // no data: a unit range
		lo, hi = 0, 1
		if log {
			lo, hi = 1, 2
		}
	}
	if len(spec.Ticks) == 1 && valid(spec.Ticks[0], log) {
		// One category: the same span around it as for a single point, whatever the lines' dodge (dodge).
		t := spec.Ticks[0]
		if log {
			lo, hi = math.Min(lo, t/2), math.Max(hi, t*2)
		} else {
			lo, hi = math.Min(lo, t-0.5), math.Max(hi, t+0.5)
		}
	}
	if lo == hi {
		if log {
			lo, hi = lo/2, hi*2
		} else {
			lo, hi = lo-0.5, hi+0.5
		}
	}
	if log { // a quarter of a step beyond the outer points, so markers are not cut by the frame
		f := math.Pow(hi/lo, 0.04)
		lo, hi = lo/f, hi*f
	} else {
		pad := 0.04 * (hi - lo)
		lo, hi = lo-pad, hi+pad
	}
	if spec.Min != nil {
		if log && *spec.Min <= 0 {
			return fmt.Errorf("minimum %v on a log axis", *spec.Min)
		}
		lo = *spec.Min
	}
	if spec.Max != nil {
		hi = *spec.Max
	}
	if !(lo < hi) {
		return fmt.Errorf("empty range [%v, %v]", lo, hi)
	}
	a.Min, a.Max = lo, hi
	if log {
		a.Scale = plot.LogScale{}
	}
	switch {
	case spec.Ticks != nil:
		var ts plot.ConstantTicks
		for _, t := range spec.Ticks {
			ts = append(ts, plot.Tick{Value: t, Label: Compact(t)})
		}
		a.Tick.Marker = ts
	case spec.Scale == Log2:
		a.Tick.Marker = powerTicks{2}
	case spec.Scale == Log10:
		a.Tick.Marker = powerTicks{10}
	default:
		a.Tick.Marker = compactTicks{}
	}
	return nil
}

// compactTicks are linear ticks at a round step (1, 2, 2.5 or 5 × 10^k) giving 4 to 8 labels, all
// labelled compactly, with unlabelled minor ticks halfway.
type compactTicks struct{}

func (compactTicks) Ticks(lo, hi float64) []plot.Tick {
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ts []plot.Tick
	for i := math.Ceil(lo / step * 2); i/2*step <= hi*(1+1e-12)+1e-300; i++ {
		v := i / 2 * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		if int64(i)%2 == 0 {
			ts = append(ts, plot.Tick{Value: v, Label: Compact(v)})
		} else {
			ts = append(ts, plot.Tick{Value: v})
		}
	}
	return ts
}

// powerTicks puts labelled ticks at the powers of base in the range (every other one when there are more
// than 10); for base 10 over less than two decades it uses 1, 2, 5 × 10^k instead, so a log axis over a
// narrow range still has three or more labels.
type powerTicks struct{ base float64 }

func (t powerTicks) Ticks(lo, hi float64) []plot.Tick {
	var vals []float64
	mults := []float64{1}
	if t.base == 10 && hi/lo < 100 {
		mults = []float64{1, 2, 5}
	}
	for e := math.Floor(math.Log(lo)/math.Log(t.base)) - 1; ; e++ {
		p := math.Pow(t.base, e)
		if p > hi*(1+1e-9) {
			break
		}
		for _, m := range mults {
			if v := m * p; v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				vals = append(vals, v)
			}
		}
	}
	if len(vals) < 2 { // less than one step of the base inside the range
		return compactTicks{}.Ticks(lo, hi)
	}
	step := 1 + len(vals)/11
	var ts []plot.Tick
	for i, v := range vals {
		lab := ""
		if i%step == 0 {
			lab = Compact(v)
		}
		ts = append(ts, plot.Tick{Value: v, Label: lab})
	}
	return ts
}

// Compact formats a tick value briefly: 0.0003, 0.5, 12, 1024, 400k, 1.2M, 3B.
func Compact(v float64) string {
	av := math.Abs(v)
	if av < 1e4 && v == math.Trunc(v) { // sizes such as 1024 or 8192 tokens, exactly
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if av >= 1e3 {
		return human.Count(v) // the project's count format: 400k, 1.25M, 3B
	}
	if av >= 1e-4 || v == 0 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'e', 1, 64)
}

// CentredMean is the mean over a window of up to w points centred on each point, skipping NaNs; near the
// ends the window shrinks symmetrically (the first point is its own mean), and a point whose window holds
// no number is NaN. Unlike a trailing mean it does not lag a falling curve, so a smoothed training loss
// can be read against validation points at the same x.
func CentredMean(y []float64, w int) []float64 {
	out := make([]float64, len(y))
	for i := range y {
		h := min((w-1)/2, i, len(y)-1-i)
		var s float64
		var n int
		for j := i - h; j <= i+h; j++ {
			if !math.IsNaN(y[j]) {
				s += y[j]
				n++
			}
		}
		if n == 0 {
			out[i] = math.NaN()
		} else {
			out[i] = s / float64(n)
		}
	}
	return out
}
