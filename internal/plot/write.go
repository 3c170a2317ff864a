package plot

import (
	"bufio"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
)

// WritePNG renders the chart and writes it to path as a PNG file, atomically: the image is
// written to a temporary file in the same directory, synced, and renamed over path, so a
// reader never sees a partial file. The file gets mode 0644. The directory must exist.
func (c *Chart) WritePNG(path string) error {
	img, err := c.Render()
	if err != nil {
		return err
	}
	return writePNGAtomic(path, img)
}

// WriteGridPNG renders the charts and writes them side by side into one PNG file at path
// (atomically, like Chart.WritePNG): row by row, cols charts per row (fewer when there are
// fewer charts), in cells as large as the largest chart; a smaller chart sits in the
// top-left corner of its cell on a white background. Typical use: a "loss per mode" panel
// next to a "learning rate" panel. It fails when cols < 1, no chart is given, or a chart
// fails to render.
func WriteGridPNG(path string, cols int, charts ...*Chart) error {
	if cols < 1 {
		return fmt.Errorf("plot: WriteGridPNG %q: cols=%d, must be at least 1", path, cols)
	}
	if len(charts) == 0 {
		return fmt.Errorf("plot: WriteGridPNG %q: no charts", path)
	}
	imgs := make([]*image.RGBA, len(charts))
	cellW, cellH := 0, 0
	for i, c := range charts {
		img, err := c.Render()
		if err != nil {
			return fmt.Errorf("plot: WriteGridPNG %q: chart %d: %w", path, i, err)
		}
		imgs[i] = img
		cellW, cellH = max(cellW, img.Rect.Dx()), max(cellH, img.Rect.Dy())
	}
	cols = min(cols, len(charts))
	rows := (len(charts) + cols - 1) / cols
	grid := image.NewRGBA(image.Rect(0, 0, cols*cellW, rows*cellH))
	draw.Draw(grid, grid.Rect, image.NewUniform(colBackground), image.Point{}, draw.Src)
	for i, img := range imgs {
		at := image.Pt((i%cols)*cellW, (i/cols)*cellH)
		draw.Draw(grid, img.Rect.Add(at), img, image.Point{}, draw.Src)
	}
	return writePNGAtomic(path, grid)
}

// writePNGAtomic encodes img as PNG into a temporary file next to path and renames it
// over path; on any failure the temporary file is removed and path is left untouched.
func writePNGAtomic(path string, img image.Image) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("plot: writing %q: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
			err = fmt.Errorf("plot: writing %q: %w", path, err)
		}
	}()
	w := bufio.NewWriter(f)
	if err = png.Encode(w, img); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
