package plot

import (
	"fmt"
	"image"
	"image/color"
)

// Legend geometry, in pixels.
const (
	legendInset   = 8  // distance between the legend box and the plot frame
	legendPad     = 6  // padding inside the legend box
	legendSample  = 24 // length of the line sample in front of each name
	legendRowH    = 16 // height of one legend row
	legendTextGap = 6  // gap between the line sample and the name
)

// legendEntry is one row of the legend.
type legendEntry struct {
	name   string
	col    color.RGBA
	dashed bool
	dot    bool // the series is a single point: show a dot instead of a line sample
	more   bool // a "+N more" row, without a line sample
}

// drawLegend draws a box listing the named series with their colour and line style, in
// the corner of the plot area that covers the fewest already drawn pixels (series, dots,
// markers); ties go to top-right, top-left, bottom-right, bottom-left in that order.
// Charts without named series get no legend; rows that do not fit are summarised.
func (c *Chart) drawLegend(full canvas, l layout) {
	var entries []legendEntry
	for i, s := range c.Series {
		if s.Name != "" {
			entries = append(entries, legendEntry{name: s.Name, col: seriesColor(i), dashed: s.Dashed,
				dot: c.validPoints(s) == 1})
		}
	}
	if len(entries) == 0 {
		return
	}
	p := l.plot
	maxRows := (p.Dy() - 2*legendInset - 2*legendPad) / legendRowH
	if maxRows < 1 {
		return
	}
	if len(entries) > maxRows {
		n := len(entries) - (maxRows - 1)
		entries = append(entries[:maxRows-1], legendEntry{name: fmt.Sprintf("+%d more", n), more: true})
	}
	maxText := p.Dx() - 2*legendInset - 2*legendPad - legendSample - legendTextGap
	if maxText < 3*face.Advance {
		return
	}
	textW := 0
	for i := range entries {
		entries[i].name = fitText(entries[i].name, maxText)
		textW = max(textW, textWidth(entries[i].name))
	}
	bw := 2*legendPad + legendSample + legendTextGap + textW
	bh := 2*legendPad + len(entries)*legendRowH - (legendRowH - lineHeight)

	corners := []image.Point{
		{p.Max.X - legendInset - bw, p.Min.Y + legendInset}, // top-right
		{p.Min.X + legendInset, p.Min.Y + legendInset},      // top-left
		{p.Max.X - legendInset - bw, p.Max.Y - legendInset - bh},
		{p.Min.X + legendInset, p.Max.Y - legendInset - bh},
	}
	best, bestInk := image.Rectangle{}, -1
	for _, o := range corners {
		r := image.Rect(o.X, o.Y, o.X+bw, o.Y+bh)
		if ink := inkCount(full.img, r); bestInk < 0 || ink < bestInk {
			best, bestInk = r, ink
		}
	}

	box := full.withClip(p)
	box.fill(best, colBackground)
	box.frame(best.Inset(1), colLegendEdge)
	for i, e := range entries {
		top := best.Min.Y + legendPad + i*legendRowH
		x := best.Min.X + legendPad
		switch {
		case e.more:
		case e.dot:
			box.dot(float64(x+legendSample/2), float64(top+lineHeight/2), dotRadius, e.col)
		default:
			pn := pen{col: e.col, width: lineWidth, dashed: e.dashed}
			mid := float64(top + lineHeight/2)
			box.segment(float64(x+1), mid, float64(x+legendSample-2), mid, &pn)
		}
		drawText(full.img, x+legendSample+legendTextGap, top+ascent, e.name, colText)
	}
}

// validPoints returns how many points of s can be placed on the chart's axes.
func (c *Chart) validPoints(s Series) int {
	n := 0
	for i := range s.X {
		if validValue(s.X[i], c.LogX) && validValue(s.Y[i], c.LogY) {
			n++
		}
	}
	return n
}

// inkCount counts the pixels of r that are neither background nor grid.
func inkCount(img *image.RGBA, r image.Rectangle) int {
	r = r.Intersect(img.Rect)
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := img.RGBAAt(x, y); c != colBackground && c != colGrid {
				n++
			}
		}
	}
	return n
}
