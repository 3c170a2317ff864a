package harness

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Python string semantics the lm-eval and JRT task code relies on (docs/evals.md §8). Go's strings and regexp
// differ: Go's regexp \s is ASCII-only, unicode.IsSpace misses U+001C–U+001F, and Go has no
// str.capitalize. Case mappings use Go's simple (one rune to one rune) mappings; Python's full mappings
// differ only for a handful of characters (ß, ŉ, İ, ligatures), which no evaluation text here depends on.

// PyWhitespaceClass is a Go regexp character class matching exactly Python's \s on str patterns
// (Py_UNICODE_ISSPACE): ASCII \t\n\v\f\r, U+001C–U+001F, space, U+0085, U+00A0, U+1680, U+2000–U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000.
const PyWhitespaceClass = `[\t-\r\x1c-\x20\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

// PyIsSpace reports whether r is whitespace for Python's str.isspace, str.strip() and re's \s.
func PyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// PyStrip is Python's s.strip() with no argument.
func PyStrip(s string) string { return strings.TrimFunc(s, PyIsSpace) }

// PyRStrip is Python's s.rstrip() with no argument.
func PyRStrip(s string) string { return strings.TrimRightFunc(s, PyIsSpace) }

// PyLStrip is Python's s.lstrip() with no argument.
func PyLStrip(s string) string { return strings.TrimLeftFunc(s, PyIsSpace) }

// PyCapitalize is Python's s.capitalize(): the first character title-cased, every other character
// lower-cased ("hELLO wORLD" → "Hello world").
func PyCapitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToTitle(r)) + strings.ToLower(s[n:])
}

// PyUpperFirst is Python's s[0].upper() + s[1:] (the JRT tasks' key capitalisation).
func PyUpperFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// PyWordCount is len(re.split(r"\s+", s)) in Python: the number of maximal runs of whitespace plus one, so
// leading and trailing whitespace each add an empty string to the count, and "" counts 1.
func PyWordCount(s string) int {
	n, in := 1, false
	for _, r := range s {
		sp := PyIsSpace(r)
		if sp && !in {
			n++
		}
		in = sp
	}
	return n
}

// PyLen is Python's len(s) for a str: the number of code points (invalid UTF-8 bytes count one each).
func PyLen(s string) int { return utf8.RuneCountInString(s) }

// PyDropLastRunes is s[:-n] in Python for n >= 1 (code points, not bytes); "" when n >= len(s).
func PyDropLastRunes(s string, n int) string {
	for ; n > 0 && s != ""; n-- {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
