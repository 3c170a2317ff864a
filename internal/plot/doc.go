// Package plot writes simple PNG line charts: training loss curves, learning-rate schedules,
// per-position evaluation losses and the like.
//
// It is deliberately small and self-contained: pure Go, the standard image packages and the
// 7x13 bitmap font of golang.org/x/image/font/basicfont (printable ASCII only; other runes
// render as a replacement glyph). A [Chart] holds any number of [Series] (drawn as 2 px
// lines in a fixed, cycling colour palette, optionally dashed), optional vertical markers
// ([VLine]), a title, axis labels and linear or log10 axes. [Chart.Render] returns the image,
// [Chart.WritePNG] writes it atomically, and [WriteGridPNG] lays several charts out side by
// side in one file.
//
// Data handling, in brief:
//   - A point whose X or Y is NaN or ±Inf is missing: it breaks the line (a gap) and is not
//     used to compute the axis ranges. On a log axis a non-positive value is treated the same
//     way (silently skipped as a gap, not reported as an error).
//   - Points are joined in the order given; X need not be sorted and series may have
//     different lengths. A point with no valid neighbour (e.g. a one-point series) is drawn
//     as a dot.
//   - A chart without any valid point still renders (empty axes and a "no data" note).
//
// Rendering never panics on bad data; structural problems (len(X) != len(Y), a size below
// [MinWidth]x[MinHeight], an invalid fixed Y range, cols < 1) are returned as errors.
package plot
