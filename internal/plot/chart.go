package plot

import (
	"errors"
	"fmt"
	"image"
	"math"
)

// Chart size limits, in pixels.
const (
	// DefaultWidth is the width used when Chart.Width is 0.
	DefaultWidth = 800
	// DefaultHeight is the height used when Chart.Height is 0.
	DefaultHeight = 500
	// MinWidth is the smallest accepted chart width.
	MinWidth = 200
	// MinHeight is the smallest accepted chart height.
	MinHeight = 150
)

// Series is one line of a chart: the points (X[i], Y[i]), joined in order.
type Series struct {
	// Name is shown in the legend; series with an empty name are left out of it.
	Name string
	// X and Y are the point coordinates; they must have the same length. A point with a
	// NaN or ±Inf coordinate (or a non-positive one on a log axis) is a gap in the line.
	X, Y []float64
	// Dashed draws the line dashed instead of solid (same colour cycle).
	Dashed bool
}

// VLine is a vertical marker line across the plot area at X, e.g. the step at which a
// training schedule switches phase. Markers widen the automatic X range to include them;
// a marker whose X is not finite (or not positive on a log X axis) is skipped.
type VLine struct {
	// X is the marker position, in data units.
	X float64
	// Label, when not empty, is written next to the top of the marker.
	Label string
}

// Chart describes a line chart. The zero value (plus data) is a usable 800x500 chart with
// linear axes and automatic ranges. Rendering does not modify the Chart.
type Chart struct {
	// Title is drawn centred above the plot; XLabel below it and YLabel (rotated) left of it.
	Title, XLabel, YLabel string
	// LogX and LogY select log10 axes. Non-positive values cannot be shown on a log axis:
	// such points are skipped silently (they break the line like NaN) and do not count
	// towards the range.
	LogX, LogY bool
	// Width and Height are the image size in pixels; 0 means DefaultWidth / DefaultHeight.
	// Sizes below MinWidth x MinHeight are rejected.
	Width, Height int
	// Series are the lines, coloured in order from a fixed palette of 10 colours (cycling).
	Series []Series
	// VLines are vertical markers, drawn dashed in dark grey behind the series.
	VLines []VLine
	// YMin and YMax, when non-nil, fix the corresponding end of the Y range (no padding);
	// the other end stays automatic. Lines leaving a fixed range are clipped at the frame.
	YMin, YMax *float64
}

// size returns the image size, applying the defaults.
func (c *Chart) size() (w, h int) {
	w, h = c.Width, c.Height
	if w == 0 {
		w = DefaultWidth
	}
	if h == 0 {
		h = DefaultHeight
	}
	return w, h
}

// validate checks the structural requirements that rendering relies on.
func (c *Chart) validate() error {
	if c == nil {
		return errors.New("plot: nil chart")
	}
	if w, h := c.size(); w < MinWidth || h < MinHeight {
		return fmt.Errorf("plot: chart %q: size %dx%d is too small (minimum %dx%d)", c.Title, w, h, MinWidth, MinHeight)
	}
	for i, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plot: chart %q: series %d %q: len(X)=%d != len(Y)=%d", c.Title, i, s.Name, len(s.X), len(s.Y))
		}
	}
	for _, b := range []struct {
		name string
		v    *float64
	}{{"YMin", c.YMin}, {"YMax", c.YMax}} {
		if b.v == nil {
			continue
		}
		if math.IsNaN(*b.v) || math.IsInf(*b.v, 0) {
			return fmt.Errorf("plot: chart %q: %s=%v is not finite", c.Title, b.name, *b.v)
		}
		if c.LogY && *b.v <= 0 {
			return fmt.Errorf("plot: chart %q: %s=%v is not positive, as a log Y axis requires", c.Title, b.name, *b.v)
		}
	}
	if c.YMin != nil && c.YMax != nil && !(*c.YMin < *c.YMax) {
		return fmt.Errorf("plot: chart %q: YMin=%v must be below YMax=%v", c.Title, *c.YMin, *c.YMax)
	}
	return nil
}

// Render draws the chart and returns the image (Width x Height, origin at 0,0).
// It returns an error, never panics, for the structural problems listed in the package
// documentation; data problems (NaN, Inf, non-positive values on log axes, no data at all)
// are handled in the drawing.
func (c *Chart) Render() (*image.RGBA, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	l := c.layout()
	img := image.NewRGBA(image.Rect(0, 0, l.width, l.height))
	c.draw(img, l)
	return img, nil
}
