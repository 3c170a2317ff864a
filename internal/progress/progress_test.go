package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time              { return c.t }
func (c *clock) advance(d time.Duration)     { c.t = c.t.Add(d) }
func text(s string) func() string            { return func() string { return s } }
func counted(n *int, s string) func() string { return func() string { *n++; return s } }

// TestTerminal: one line redrawn in place at most every Interval (the first update and forced ones always),
// messages above it, Finish ends the line.
func TestTerminal(t *testing.T) {
	var b bytes.Buffer
	c := &clock{time.Unix(0, 0)}
	r := New(&b, Options{Mode: Terminal, Now: c.now})
	require.True(t, r.Terminal())
	calls := 0
	r.Update(1, 10, false, counted(&calls, "a"))
	c.advance(100 * time.Millisecond)
	r.Update(2, 10, false, counted(&calls, "b")) // within 200 ms: not drawn, not even rendered
	require.Equal(t, "\ra\033[K", b.String())
	require.Equal(t, 1, calls)
	c.advance(100 * time.Millisecond)
	r.Update(3, 10, false, text("c"))
	r.Message("note %d", 7)
	r.Update(4, 10, false, text("d")) // the bar comes back at once after a message
	r.Update(10, 10, true, text("e"))
	r.Finish()
	require.Equal(t, "\ra\033[K\rc\033[K\r\033[Knote 7\n\rd\033[K\re\033[K\n", b.String())
	b.Reset()
	r.Finish() // nothing drawn: nothing to end
	r.Message("plain")
	require.Equal(t, "plain\n", b.String())
}

// TestLog: whole lines only, by time (the first update included) or by LogSteps steps, never "\r".
func TestLog(t *testing.T) {
	var b bytes.Buffer
	c := &clock{time.Unix(0, 0)}
	r := New(&b, Options{Mode: Log, Now: c.now, LogInterval: 10 * time.Second})
	require.False(t, r.Terminal())
	for i := 1; i <= 30; i++ {
		r.Update(float64(i), 30, i == 30, text("x"))
		c.advance(time.Second)
	}
	require.Equal(t, "x\nx\nx\nx\n", b.String(), "steps 1, 11, 21 by time, 30 forced")

	b.Reset()
	r = New(&b, Options{Now: c.now, LogInterval: -1, LogSteps: 10}) // Auto on a buffer: not a terminal
	for rows := 0; rows <= 1000; rows += 25 {
		r.Update(float64(rows), 1000, false, text("y"))
	}
	r.Finish()
	require.Equal(t, 10, strings.Count(b.String(), "\n"), "one line per 10 %%, none at 0 %%")
	require.NotContains(t, b.String(), "\r")
	r.Message("m")
	require.True(t, strings.HasSuffix(b.String(), "y\nm\n"))
}

func TestBarAndRemaining(t *testing.T) {
	require.Equal(t, "#########...........", Bar(0.45, 20, "#", "."))
	require.Equal(t, "####", Bar(1.5, 4, "#", "."))
	require.Equal(t, "....", Bar(-1, 4, "#", "."))
	require.Equal(t, 30*time.Second, Remaining(10*time.Second, 1, 3))
	require.Equal(t, time.Duration(0), Remaining(10*time.Second, 0, 3))
	require.False(t, IsTerminal(&bytes.Buffer{}))
}
