package tokenizers

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the pieces of Hugging Face byte-level BPE that are not BPE itself: the GPT-2 pre-tokenizer
// (written by hand, because Go's regexp has no lookahead), the GPT-2 byte↔unicode alphabet, the UTF-8
// sanitising policy shared by the tokenizers, and a small leftmost-longest string matcher used to split
// added tokens out of the text.

// Character classes of the GPT-2 pre-tokenizer regex.
const (
	pretokLetter = iota // \p{L}
	pretokNumber        // \p{N}
	pretokSpace         // \s (Unicode White_Space, as Oniguruma and Go's unicode.IsSpace define it)
	pretokOther         // [^\s\p{L}\p{N}]
)

// pretokASCIIClass is the class of each ASCII byte.
var pretokASCIIClass = func() (t [utf8.RuneSelf]uint8) {
	for b := 0; b < utf8.RuneSelf; b++ {
		t[b] = pretokClassOf(rune(b))
	}
	return t
}()

func pretokClassOf(r rune) uint8 {
	switch {
	case unicode.IsLetter(r):
		return pretokLetter
	case unicode.IsNumber(r):
		return pretokNumber
	case unicode.IsSpace(r):
		return pretokSpace
	default:
		return pretokOther
	}
}

// pretokRune decodes the rune at s[i:] and returns its class and byte length. Invalid UTF-8 bytes (which the
// tokenizers never pass, see tokSanitizeUTF8) count as one-byte "other" characters.
func pretokRune(s string, i int) (class uint8, size int) {
	if b := s[i]; b < utf8.RuneSelf {
		return pretokASCIIClass[b], 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return pretokClassOf(r), size
}

// pretokContraction returns the length of the GPT-2 contraction ('s 't 're 've 'm 'll 'd, lower case
// only) at s[i:], or 0. s[i] must be an apostrophe.
func pretokContraction(s string, i int) int {
	if i+1 >= len(s) {
		return 0
	}
	switch s[i+1] {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2] == 'e' {
			return 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2] == 'l' {
			return 3
		}
	}
	return 0
}

// pretokNext returns the end of the pre-token that starts at s[i:] (i < len(s)), following the GPT-2 regex
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// with the regex semantics: alternatives are tried in order at position i, quantifiers are greedy, and
// \s+(?!\S) backtracks so that a whitespace run followed by a non-space keeps its last character for the
// next pre-token (so that " word" stays together).
func pretokNext(s string, i int) int {
	n := len(s)
	c0, sz0 := pretokRune(s, i)
	if s[i] == '\'' {
		if k := pretokContraction(s, i); k > 0 {
			return i + k
		}
	}
	start := i // start of the run of one class
	class := c0
	if s[i] == ' ' && i+1 < n {
		c1, sz1 := pretokRune(s, i+1)
		if c1 != pretokSpace {
			class = c1
			start = i + 1
			sz0 = sz1
		}
	}
	if class != pretokSpace {
		// ` ?\p{L}+`, ` ?\p{N}+` or ` ?[^\s\p{L}\p{N}]+`: a greedy run of one class.
		j := start + sz0
		for j < n {
			c, sz := pretokRune(s, j)
			if c != class {
				break
			}
			j += sz
		}
		return j
	}
	// Whitespace run starting at i.
	j, last := i, i
	for j < n {
		c, sz := pretokRune(s, j)
		if c != pretokSpace {
			break
		}
		last = j
		j += sz
	}
	if j == n || last == i {
		// `\s+(?!\S)` matches the whole run at the end of the text; a single whitespace character followed
		// by a non-space falls through to `\s+`.
		return j
	}
	// `\s+(?!\S)` backtracks by one character: the last whitespace character starts the next pre-token.
	return last
}

// tokSanitizeUTF8 is the policy of the text tokenizers (BPE, SentencePiece) for invalid UTF-8 input: every
// byte that is not part of a valid UTF-8 encoding is replaced by U+FFFD, one replacement per byte, exactly as
// Go's `for range` over a string reads it. Valid input is returned unchanged without copying.
func tokSanitizeUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		b.WriteRune(r) // an invalid byte is read as utf8.RuneError (U+FFFD)
	}
	return b.String()
}

// byteLevelAlphabet returns GPT-2's bytes_to_unicode table: the printable byte values map to themselves and
// the others to U+0100 onwards, so that every byte is a visible character in the vocabulary file.
func byteLevelAlphabet() (byteToRune [256]rune, runeToByte map[rune]byte) {
	runeToByte = make(map[rune]byte, 256)
	printable := func(b int) bool {
		return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
	}
	n := 0
	for b := 0; b < 256; b++ {
		r := rune(b)
		if !printable(b) {
			r = rune(256 + n)
			n++
		}
		byteToRune[b] = r
		runeToByte[r] = byte(b)
	}
	return byteToRune, runeToByte
}

// tokMatcher finds added tokens in text with the semantics of the Aho-Corasick "leftmost-longest" matcher that
// Hugging Face tokenizers uses: scanning left to right, the first position where any pattern matches wins,
// and at that position the longest pattern. It is a byte trie; patterns are few and short.
type tokMatcher struct {
	nodes []tokTrieNode
	first [256]bool // bytes that start some pattern
}

type tokTrieNode struct {
	next    map[byte]int32
	pattern int32 // index of the pattern ending here, or -1
}

func newTokMatcher(patterns []string) *tokMatcher {
	m := &tokMatcher{nodes: []tokTrieNode{{pattern: -1}}}
	for p, s := range patterns {
		if s == "" {
			continue
		}
		m.first[s[0]] = true
		cur := int32(0)
		for i := 0; i < len(s); i++ {
			nx, ok := m.nodes[cur].next[s[i]]
			if !ok {
				if m.nodes[cur].next == nil {
					m.nodes[cur].next = make(map[byte]int32)
				}
				nx = int32(len(m.nodes))
				m.nodes = append(m.nodes, tokTrieNode{pattern: -1})
				m.nodes[cur].next[s[i]] = nx
			}
			cur = nx
		}
		if m.nodes[cur].pattern < 0 { // the first of duplicate patterns wins
			m.nodes[cur].pattern = int32(p)
		}
	}
	return m
}

// empty reports whether the matcher has no patterns.
func (m *tokMatcher) empty() bool { return m == nil || len(m.nodes) == 1 }

// longestAt returns the end of the longest pattern that starts at s[i:] and its index, or pattern -1.
func (m *tokMatcher) longestAt(s string, i int) (end, pattern int) {
	if i >= len(s) || !m.first[s[i]] {
		return i, -1
	}
	cur, best, bestEnd := int32(0), int32(-1), i
	for j := i; j < len(s); j++ {
		nx, ok := m.nodes[cur].next[s[j]]
		if !ok {
			break
		}
		cur = nx
		if p := m.nodes[cur].pattern; p >= 0 {
			best, bestEnd = p, j+1
		}
	}
	return bestEnd, int(best)
}

// find returns the leftmost-longest match in s at or after from: its start, end and pattern index, or
// pattern -1 if there is none.
func (m *tokMatcher) find(s string, from int) (start, end, pattern int) {
	for i := from; i < len(s); i++ {
		if !m.first[s[i]] {
			continue
		}
		if end, p := m.longestAt(s, i); p >= 0 {
			return i, end, p
		}
	}
	return len(s), len(s), -1
}
