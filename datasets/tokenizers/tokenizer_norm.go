package tokenizers

import (
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tokCGJ is U+034F COMBINING GRAPHEME JOINER, which golang.org/x/text/unicode/norm inserts after 30
// consecutive non-starters (the Stream-Safe Text Format, UAX #15 §13).
const tokCGJ = "\u034f"

// tokNormalize returns s in normalisation form f exactly as UAX #15 defines it, as Hugging Face tokenizers
// (the Rust unicode-normalization crate) computes it. golang.org/x/text's norm differs in one case: a run of
// more than 30 non-starters (rare outside "Zalgo" text) gets CGJs inserted and is ordered and composed in
// chunks. When norm's output holds a CGJ, the result is recomputed by tokNormalizeSlow, which has no such
// limit. s must be valid UTF-8.
func tokNormalize(f norm.Form, s string) string {
	out := f.String(s)
	if !strings.Contains(out, tokCGJ) {
		return out
	}
	return tokNormalizeSlow(f, s)
}

// tokNormalizeSlow is the textbook algorithm: full decomposition rune by rune (norm on one rune never reaches
// the stream-safe limit), canonical ordering of every run of non-starters, then canonical composition for
// the composed forms, with the pairwise composition looked up through norm.NFC on two runes.
func tokNormalizeSlow(f norm.Form, s string) string {
	decomp, compose := norm.NFD, false
	switch f {
	case norm.NFC:
		compose = true
	case norm.NFKC:
		decomp, compose = norm.NFKD, true
	case norm.NFKD:
		decomp = norm.NFKD
	}
	rs := make([]rune, 0, len(s))
	var buf [utf8.UTFMax]byte
	for _, r := range s {
		if r < utf8.RuneSelf {
			rs = append(rs, r)
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		for _, d := range decomp.String(string(buf[:n])) {
			rs = append(rs, d)
		}
	}
	ccc := make([]uint8, len(rs))
	for i, r := range rs {
		if r >= utf8.RuneSelf {
			n := utf8.EncodeRune(buf[:], r)
			ccc[i] = norm.NFD.Properties(buf[:n]).CCC()
		}
	}
	// Canonical ordering: a stable sort of each run of non-starters by combining class.
	for i := 0; i < len(rs); {
		if ccc[i] == 0 {
			i++
			continue
		}
		j := i
		for j < len(rs) && ccc[j] != 0 {
			j++
		}
		sort.Stable(tokCCCRun{rs[i:j], ccc[i:j]})
		i = j
	}
	if !compose {
		return string(rs)
	}
	// Canonical composition.
	out := rs[:0]
	outCCC := ccc[:0]
	starter := -1
	for i, r := range rs {
		c := ccc[i]
		if starter >= 0 {
			last := len(out) - 1
			blocked := last != starter && (outCCC[last] == 0 || outCCC[last] >= c)
			if !blocked {
				if p, ok := tokCompose(out[starter], r); ok {
					out[starter] = p
					continue
				}
			}
		}
		if c == 0 {
			starter = len(out)
		}
		out = append(out, r)
		outCCC = append(outCCC, c)
	}
	return string(out)
}

// tokCompose returns the primary composite of a starter and the character c, if there is one.
func tokCompose(starter, c rune) (rune, bool) {
	composed := norm.NFC.String(string([]rune{starter, c}))
	r, n := utf8.DecodeRuneInString(composed)
	if n == len(composed) && r != utf8.RuneError {
		return r, true
	}
	return 0, false
}

type tokCCCRun struct {
	rs  []rune
	ccc []uint8
}

func (t tokCCCRun) Len() int           { return len(t.rs) }
func (t tokCCCRun) Less(i, j int) bool { return t.ccc[i] < t.ccc[j] }
func (t tokCCCRun) Swap(i, j int) {
	t.rs[i], t.rs[j] = t.rs[j], t.rs[i]
	t.ccc[i], t.ccc[j] = t.ccc[j], t.ccc[i]
}
