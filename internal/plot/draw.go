package plot

import (
	"image"
	"image/color"
	"math"
)

// Line styles.
const (
	lineWidth  = 2   // series line thickness, pixels
	dotRadius  = 3.5 // radius of the dot drawn for an isolated point
	dashOn     = 8.0 // dashed series: drawn length, pixels
	dashOff    = 5.0 // dashed series: gap length, pixels
	markerDash = 4   // vertical markers: dash and gap length, pixels
)

// canvas draws opaque pixels onto an image, restricted to a clip rectangle.
type canvas struct {
	img  *image.RGBA
	clip image.Rectangle
}

// withClip returns a canvas on the same image clipped to r (intersected with the image).
func (c canvas) withClip(r image.Rectangle) canvas {
	return canvas{img: c.img, clip: r.Intersect(c.img.Rect)}
}

// set paints one pixel if it lies inside the clip rectangle.
func (c canvas) set(x, y int, col color.RGBA) {
	if x >= c.clip.Min.X && x < c.clip.Max.X && y >= c.clip.Min.Y && y < c.clip.Max.Y {
		c.img.SetRGBA(x, y, col)
	}
}

// fill paints the rectangle r.
func (c canvas) fill(r image.Rectangle, col color.RGBA) {
	r = r.Intersect(c.clip)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c.img.SetRGBA(x, y, col)
		}
	}
}

// hline paints the horizontal pixel run [x0, x1] at row y.
func (c canvas) hline(x0, x1, y int, col color.RGBA) {
	c.fill(image.Rect(min(x0, x1), y, max(x0, x1)+1, y+1), col)
}

// vline paints the vertical pixel run [y0, y1] at column x.
func (c canvas) vline(x, y0, y1 int, col color.RGBA) {
	c.fill(image.Rect(x, min(y0, y1), x+1, max(y0, y1)+1), col)
}

// frame paints the 1 px outline just outside r.
func (c canvas) frame(r image.Rectangle, col color.RGBA) {
	c.hline(r.Min.X-1, r.Max.X, r.Min.Y-1, col)
	c.hline(r.Min.X-1, r.Max.X, r.Max.Y, col)
	c.vline(r.Min.X-1, r.Min.Y-1, r.Max.Y, col)
	c.vline(r.Max.X, r.Min.Y-1, r.Max.Y, col)
}

// stamp paints a size×size square centred on the point (fx, fy).
func (c canvas) stamp(fx, fy float64, size int, col color.RGBA) {
	x0 := int(math.Floor(fx - float64(size)/2 + 0.5))
	y0 := int(math.Floor(fy - float64(size)/2 + 0.5))
	c.fill(image.Rect(x0, y0, x0+size, y0+size), col)
}

// dot paints a filled disc of radius r centred on (fx, fy).
func (c canvas) dot(fx, fy, r float64, col color.RGBA) {
	if math.Abs(fx) > pixelLimit/2 || math.Abs(fy) > pixelLimit/2 {
		return
	}
	for y := int(math.Floor(fy - r)); y <= int(math.Ceil(fy+r)); y++ {
		for x := int(math.Floor(fx - r)); x <= int(math.Ceil(fx+r)); x++ {
			dx, dy := float64(x)+0.5-fx, float64(y)+0.5-fy
			if dx*dx+dy*dy <= r*r {
				c.set(x, y, col)
			}
		}
	}
}

// pen is the style of a polyline; dist carries the dash phase from segment to segment.
type pen struct {
	col    color.RGBA
	width  int
	dashed bool
	dist   float64 // length drawn so far along the polyline, pixels
}

// on reports whether the pen paints at distance d along the polyline.
func (p *pen) on(d float64) bool {
	return !p.dashed || math.Mod(d, dashOn+dashOff) < dashOn
}

// segment draws the segment (x0, y0)–(x1, y1) with the pen: the part inside the clip
// rectangle (plus the pen width) is stepped one pixel at a time, stamping a width×width
// square at each step where the dash pattern is on. The pen's dash phase advances by the
// full segment length, so dashes continue smoothly across segments and clipping.
func (c canvas) segment(x0, y0, x1, y1 float64, p *pen) {
	length := math.Hypot(x1-x0, y1-y0)
	defer func() { p.dist += length }()
	m := float64(p.width + 1)
	r := rectF{float64(c.clip.Min.X) - m, float64(c.clip.Min.Y) - m, float64(c.clip.Max.X) + m, float64(c.clip.Max.Y) + m}
	t0, t1, ok := clipSegment(x0, y0, x1, y1, r)
	if !ok {
		return
	}
	dx, dy := x1-x0, y1-y0
	ax, ay := x0+t0*dx, y0+t0*dy
	bx, by := x0+t1*dx, y0+t1*dy
	steps := int(math.Ceil(math.Max(math.Abs(bx-ax), math.Abs(by-ay))))
	for i := 0; i <= steps; i++ {
		f := 0.0
		if steps > 0 {
			f = float64(i) / float64(steps)
		}
		if p.on(p.dist + (t0+(t1-t0)*f)*length) {
			c.stamp(ax+(bx-ax)*f, ay+(by-ay)*f, p.width, p.col)
		}
	}
}

// rectF is an axis-aligned rectangle in fractional pixel coordinates.
type rectF struct{ x0, y0, x1, y1 float64 }

// clipSegment clips the segment (x0, y0)–(x1, y1) to r (Liang–Barsky), returning the
// parameters t0 ≤ t1 in [0, 1] of the visible part, or ok=false when nothing is visible.
func clipSegment(x0, y0, x1, y1 float64, r rectF) (t0, t1 float64, ok bool) {
	t0, t1 = 0, 1
	dx, dy := x1-x0, y1-y0
	for _, e := range [4][2]float64{
		{-dx, x0 - r.x0},
		{dx, r.x1 - x0},
		{-dy, y0 - r.y0},
		{dy, r.y1 - y0},
	} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return 0, 0, false
			}
			continue
		}
		t := q / p
		if p < 0 {
			if t > t1 {
				return 0, 0, false
			}
			t0 = math.Max(t0, t)
		} else {
			if t < t0 {
				return 0, 0, false
			}
			t1 = math.Min(t1, t)
		}
	}
	return t0, t1, true
}
