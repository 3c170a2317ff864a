package plot

import (
	"image"
	"image/color"
	"math"
)

// draw paints the whole chart onto img (of the layout's size), back to front: background,
// title, grid, markers, series, frame, ticks, axis labels, marker labels, legend.
func (c *Chart) draw(img *image.RGBA, l layout) {
	full := canvas{img: img, clip: img.Rect}
	full.fill(img.Rect, colBackground)
	plot := full.withClip(l.plot)
	p := l.plot

	if c.Title != "" {
		t := fitText(c.Title, l.width-2*margin)
		drawTextBold(img, (l.width-textWidth(t))/2, margin+ascent, t, colText)
	}

	// Grid.
	for _, t := range l.x.ticks {
		plot.vline(int(math.Round(l.x.pixel(t))), p.Min.Y, p.Max.Y-1, colGrid)
	}
	for _, t := range l.y.ticks {
		plot.hline(p.Min.X, p.Max.X-1, int(math.Round(l.y.pixel(t))), colGrid)
	}
	if !l.hasData {
		s := fitText("no data", p.Dx())
		drawText(img, p.Min.X+(p.Dx()-textWidth(s))/2, p.Min.Y+p.Dy()/2+ascent/2, s, colNote)
	}

	// Vertical markers (lines now, labels after the series so they stay readable).
	type markerLabel struct {
		x    int
		text string
	}
	var markerLabels []markerLabel
	for _, v := range c.VLines {
		if !l.x.valid(v.X) {
			continue
		}
		x := int(math.Round(l.x.pixel(v.X)))
		if x < p.Min.X || x >= p.Max.X {
			continue
		}
		for y := p.Min.Y; y < p.Max.Y; y++ {
			if (y-p.Min.Y)/markerDash%2 == 0 {
				plot.set(x, y, colMarker)
			}
		}
		if v.Label != "" {
			markerLabels = append(markerLabels, markerLabel{x, v.Label})
		}
	}

	for i, s := range c.Series {
		c.drawSeries(plot, l, s, seriesColor(i))
	}

	full.frame(p, colAxis)

	// X ticks and labels, kept inside the image horizontally.
	for i, t := range l.x.ticks {
		x := int(math.Round(l.x.pixel(t)))
		full.vline(x, p.Max.Y+1, p.Max.Y+tickLength, colAxis)
		s := l.x.labels[i]
		drawText(img, xLabelLeft(x, textWidth(s), l.width), p.Max.Y+tickLength+tickGap+ascent, s, colText)
	}
	// Y ticks and labels, right-aligned against the tick marks.
	for i, t := range l.y.ticks {
		y := int(math.Round(l.y.pixel(t)))
		full.hline(p.Min.X-1-tickLength, p.Min.X-2, y, colAxis)
		s := l.y.labels[i]
		drawText(img, p.Min.X-1-tickLength-tickGap-textWidth(s), y+ascent/2-1, s, colText)
	}

	if c.XLabel != "" {
		s := fitText(c.XLabel, l.width-2*margin)
		x := min(max(p.Min.X+(p.Dx()-textWidth(s))/2, margin), l.width-margin-textWidth(s))
		drawText(img, x, l.height-margin-descent, s, colText)
	}
	if c.YLabel != "" {
		s := fitText(c.YLabel, p.Dy())
		drawTextUp(img, margin, p.Min.Y+(p.Dy()-textWidth(s))/2, s, colText)
	}

	// Marker labels on a white box, staggered over three rows so neighbours do not collide.
	for i, m := range markerLabels {
		s := fitText(m.text, p.Dx()/2)
		w := textWidth(s)
		x := m.x + 4
		if x+w > p.Max.X-2 {
			x = m.x - 4 - w
		}
		y := p.Min.Y + 3 + (i%3)*(lineHeight+2)
		plot.fill(image.Rect(x-1, y, x+w+1, y+lineHeight), colBackground)
		drawText(img, x, y+ascent, s, colMarker)
	}

	c.drawLegend(full, l)
}

// drawSeries draws one series on the plot canvas: each run of consecutive valid points as
// a polyline, a run of a single point as a dot.
func (c *Chart) drawSeries(plot canvas, l layout, s Series, col color.RGBA) {
	pn := pen{col: col, width: lineWidth, dashed: s.Dashed}
	var run [][2]float64
	flush := func() {
		switch len(run) {
		case 0:
		case 1:
			plot.dot(run[0][0], run[0][1], dotRadius, col)
		default:
			for i := 1; i < len(run); i++ {
				plot.segment(run[i-1][0], run[i-1][1], run[i][0], run[i][1], &pn)
			}
		}
		run = run[:0]
	}
	for i := range s.X {
		x, y := s.X[i], s.Y[i]
		if !l.x.valid(x) || !l.y.valid(y) {
			flush()
			continue
		}
		run = append(run, [2]float64{l.x.pixel(x), l.y.pixel(y)})
	}
	flush()
}
