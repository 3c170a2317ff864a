package plot

import (
	"image"
	"math"
)

// Layout constants, in pixels.
const (
	margin      = 10 // outer margin of the image
	tickLength  = 5  // length of tick marks, outside the frame
	tickGap     = 3  // gap between a tick mark and its label
	labelGap    = 6  // gap between tick labels and an axis label
	titleGap    = 8  // gap between the title and the plot
	rightMargin = 20 // right margin (room for the last X tick label)
	yTickSpace  = 40 // minimum vertical room per Y tick
	xTickSpace  = 50 // minimum horizontal room per X tick (before label fitting)
	xLabelSpace = 12 // minimum horizontal space between neighbouring X tick labels
	maxTicks    = 10 // most ticks on an axis
)

// layout is the geometry of a rendered chart: the image size, the plot area and the axes.
type layout struct {
	width, height int
	plot          image.Rectangle // the data area, inside the frame
	x, y          axis
	hasData       bool // at least one valid point exists
}

// dataExtents returns the extents of the valid points (both coordinates valid on their
// axes) and of the valid vertical markers (X only), and whether any valid point exists.
func (c *Chart) dataExtents() (ex, ey extent, hasData bool) {
	for _, s := range c.Series {
		for i := range s.X {
			x, y := s.X[i], s.Y[i]
			if validValue(x, c.LogX) && validValue(y, c.LogY) {
				ex.add(x)
				ey.add(y)
				hasData = true
			}
		}
	}
	for _, v := range c.VLines {
		if validValue(v.X, c.LogX) {
			ex.add(v.X)
		}
	}
	return ex, ey, hasData
}

// layout computes the chart geometry: ranges, margins (sized to the tick labels) and ticks.
// The chart must have been validated.
func (c *Chart) layout() layout {
	w, h := c.size()
	ex, ey, hasData := c.dataExtents()
	l := layout{width: w, height: h, hasData: hasData}
	l.x.log, l.y.log = c.LogX, c.LogY
	l.x.lo, l.x.hi = resolveRange(ex, c.LogX, padX, nil, nil)
	l.y.lo, l.y.hi = resolveRange(ey, c.LogY, padY, c.YMin, c.YMax)

	top := margin + 4
	if c.Title != "" {
		top = margin + lineHeight + titleGap
	}
	bottom := margin + tickLength + tickGap + lineHeight
	if c.XLabel != "" {
		bottom += labelGap + lineHeight
	}
	plotH := max(h-top-bottom, 1)

	// Y ticks depend only on the plot height; prefer at least 3 ticks.
	budget := min(max(plotH/yTickSpace, 3), maxTicks)
	l.y.ticks = axisTicks(&l.y, budget)
	for len(l.y.ticks) < 3 && budget < maxTicks {
		budget++
		l.y.ticks = axisTicks(&l.y, budget)
	}
	l.y.labels = axisLabels(&l.y)
	labelW := 0
	for _, s := range l.y.labels {
		labelW = max(labelW, textWidth(s))
	}

	left := margin + labelW + tickGap + tickLength
	if c.YLabel != "" {
		left += lineHeight + labelGap
	}
	left = min(left, w/2)
	plotW := max(w-left-rightMargin, 1)
	l.plot = image.Rect(left, top, left+plotW, top+plotH)
	l.x.p0, l.x.p1 = float64(l.plot.Min.X), float64(l.plot.Max.X-1)
	l.y.p0, l.y.p1 = float64(l.plot.Max.Y-1), float64(l.plot.Min.Y)

	// X ticks: at least 2 ticks whose labels do not collide, with the largest budget
	// allowing xTickSpace pixels per tick; when that budget gives no such ticks, the
	// sparsest that do; when none do, the sparsest result with 2 or more ticks.
	preferred := max(plotW/xTickSpace, 2)
	var chosen, fitting, fallback axis
	for budget := maxTicks; budget >= 2; budget-- {
		a := l.x
		a.ticks = axisTicks(&a, budget)
		a.labels = axisLabels(&a)
		if len(a.ticks) >= 2 || fallback.ticks == nil {
			fallback = a
		}
		if len(a.ticks) >= 2 && labelsFit(&a, w) {
			fitting = a
			if budget <= preferred {
				chosen = a
				break
			}
		}
	}
	switch {
	case chosen.ticks != nil:
		l.x = chosen
	case fitting.ticks != nil:
		l.x = fitting
	default:
		l.x = fallback
	}
	return l
}

// axisTicks returns up to budget ticks for the axis range.
func axisTicks(a *axis, budget int) []float64 {
	if a.log {
		return logTicks(a.lo, a.hi, budget)
	}
	return niceTicks(a.lo, a.hi, budget)
}

// axisLabels formats the axis' ticks: consistently for a linear axis, one by one for a
// log axis (whose ticks span several orders of magnitude).
func axisLabels(a *axis) []string {
	if !a.log {
		return formatTicks(a.ticks, tickStep(a.ticks))
	}
	labels := make([]string, len(a.ticks))
	for i, t := range a.ticks {
		labels[i] = formatNumber(t)
	}
	return labels
}

// xLabelLeft returns the left end of an X tick label of width w centred on the pixel
// column x, shifted as needed to stay inside an image of the given width.
func xLabelLeft(x, w, width int) int {
	return min(max(x-w/2, 0), width-w)
}

// labelsFit reports whether the X tick labels, placed as drawn (see xLabelLeft), keep at
// least xLabelSpace pixels between neighbours in an image of the given width.
func labelsFit(a *axis, width int) bool {
	prevRight := math.MinInt
	for i, t := range a.ticks {
		w := textWidth(a.labels[i])
		left := xLabelLeft(int(math.Round(a.pixel(t))), w, width)
		if i > 0 && left < prevRight+xLabelSpace {
			return false
		}
		prevRight = left + w
	}
	return true
}
