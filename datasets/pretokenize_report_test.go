package datasets

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestPretokenizeBar: `oryx tokenize`'s terminal bar redraws at most every 200 ms and ends its line; the numbers are
// human-readable.
func TestPretokenizeBar(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	b := NewPretokenizeBar(&buf, true, func() time.Time { return now })
	p := PretokenizeProgress{Rows: 450, TotalRows: 1000, Documents: 1_200_000, Tokens: 31_000_000, Elapsed: 100 * time.Second}
	b.Update(p)
	assert.Equal(t, "\r[#########           ]  45% 1.2M docs 310k tok/s ETA 2m2s\033[K", buf.String())
	now = now.Add(100 * time.Millisecond)
	b.Update(p)
	assert.Equal(t, 1, strings.Count(buf.String(), "\r"), "no redraw within 200 ms")
	now = now.Add(150 * time.Millisecond)
	p.Rows = 1000
	b.Update(p)
	assert.Equal(t, 2, strings.Count(buf.String(), "\r"))
	b.Finish()
	assert.True(t, strings.HasSuffix(buf.String(), "\r[####################] 100% 1.2M docs 310k tok/s in 1m40s\033[K\n"), buf.String())

	// Not a terminal: one line per 10% step.
	buf.Reset()
	b = NewPretokenizeBar(&buf, false, time.Now)
	for rows := int64(0); rows <= 1000; rows += 25 {
		b.Update(PretokenizeProgress{Rows: rows, TotalRows: 1000, Elapsed: time.Second})
	}
	b.Finish()
	assert.Equal(t, 10, strings.Count(buf.String(), "\n"), buf.String())
	assert.NotContains(t, buf.String(), "[")

	assert.Equal(t, "1m20s", formatDuration(80400*time.Millisecond))
}
