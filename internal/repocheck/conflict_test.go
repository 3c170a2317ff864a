package repocheck

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// conflictMarkers returns "line N: ..." for each line of text that opens or closes a merge conflict (seven
// '<' or '>' and a space at the start of a line): a conflict committed unresolved leaves both sides of it,
// and the markers, in the file.
func conflictMarkers(text string) []string {
	open, closing := strings.Repeat("<", 7)+" ", strings.Repeat(">", 7)+" "
	var out []string
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, open) || strings.HasPrefix(line, closing) {
			out = append(out, fmt.Sprintf("line %d: %s", i+1, line[:min(len(line), 40)]))
		}
	}
	return out
}

// TestConflictMarkers pins the rule on examples.
func TestConflictMarkers(t *testing.T) {
	lt, gt := strings.Repeat("<", 7), strings.Repeat(">", 7)
	for _, c := range []struct {
		text string
		bad  int
	}{
		{lt + " HEAD\nours\n=======\ntheirs\n" + gt + " main\n", 2},
		{"Title\n=======\n\na << b, c >> d, " + lt + " mid-line\n", 0},
	} {
		if got := conflictMarkers(c.text); len(got) != c.bad {
			t.Errorf("%q: %d markers %q, want %d", c.text, len(got), got, c.bad)
		}
	}
}

// TestNoConflictMarkers fails, naming file and line, on every committed text file (third_party/ aside,
// binary files skipped) that holds a merge conflict's markers.
func TestNoConflictMarkers(t *testing.T) {
	notVendored := func(rel string) bool { return !strings.HasPrefix(rel, "third_party/") }
	forEachFile(t, notVendored, 100, func(rel string, data []byte) {
		if bytes.IndexByte(data, 0) >= 0 {
			return // binary
		}
		for _, m := range conflictMarkers(string(data)) {
			t.Errorf("%s: %s: an unresolved merge conflict", rel, m)
		}
	})
}
