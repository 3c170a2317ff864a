package plot

import (
	"image"
	"image/color"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// face is the font of all chart text: a 7x13 bitmap font (printable ASCII).
var face = basicfont.Face7x13

// Font metrics of face, in pixels.
const (
	lineHeight = 13 // height of a text line
	ascent     = 11 // baseline offset from the top of a line
	descent    = 2  // extent below the baseline
)

// textWidth returns the width of s in pixels.
func textWidth(s string) int {
	return font.MeasureString(face, s).Ceil()
}

// fitText shortens s, ending it with "..", so that it is at most maxWidth pixels wide.
func fitText(s string, maxWidth int) string {
	if textWidth(s) <= maxWidth {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && textWidth(string(r)+"..") > maxWidth {
		r = r[:len(r)-1]
	}
	if len(r) == 0 {
		return ""
	}
	return string(r) + ".."
}

// drawText draws s with its left end at x and its baseline at y.
func drawText(img *image.RGBA, x, y int, s string, col color.RGBA) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(col), Face: face, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// drawTextBold draws s like drawText, twice with a 1 px horizontal offset.
func drawTextBold(img *image.RGBA, x, y int, s string, col color.RGBA) {
	drawText(img, x, y, s, col)
	drawText(img, x+1, y, s, col)
}

// drawTextUp draws s rotated 90° counter-clockwise (reading bottom to top) in the box
// whose top-left corner is (x, y): lineHeight pixels wide and textWidth(s) pixels tall.
func drawTextUp(img *image.RGBA, x, y int, s string, col color.RGBA) {
	w := textWidth(s)
	if w == 0 {
		return
	}
	tmp := image.NewRGBA(image.Rect(0, 0, w, lineHeight))
	drawText(tmp, 0, ascent, s, col)
	c := canvas{img: img, clip: img.Rect}
	for ty := 0; ty < lineHeight; ty++ {
		for tx := 0; tx < w; tx++ {
			if px := tmp.RGBAAt(tx, ty); px.A >= 0x80 {
				c.set(x+ty, y+w-1-tx, col)
			}
		}
	}
}
