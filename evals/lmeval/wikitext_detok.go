package lmeval

import (
	"regexp"
	"strings"

	"github.com/oryx-go/oryx/evals/harness"
)

// The bracket squeezes of lm-eval's wikitext_detokenizer, with Python's Unicode \s spelled out
// (harness.PyWhitespaceClass) since Go's \s is ASCII-only. Negated classes match newlines in both.
var (
	wtSlashQuote = regexp.MustCompile(`/' [0-9]/`)
	wtSqueezes   = []struct {
		re   *regexp.Regexp
		repl string
	}{
		{regexp.MustCompile(`\(` + harness.PyWhitespaceClass + `*([^)]*?)` + harness.PyWhitespaceClass + `*\)`), "(${1})"},
		{regexp.MustCompile(`\[` + harness.PyWhitespaceClass + `*([^\]]*?)` + harness.PyWhitespaceClass + `*\]`), "[${1}]"},
		{regexp.MustCompile(`\{` + harness.PyWhitespaceClass + `*([^}]*?)` + harness.PyWhitespaceClass + `*\}`), "{${1}}"},
		{regexp.MustCompile(`"` + harness.PyWhitespaceClass + `*([^"]*?)` + harness.PyWhitespaceClass + `*"`), `"${1}"`},
		{regexp.MustCompile(`'` + harness.PyWhitespaceClass + `*([^']*?)` + harness.PyWhitespaceClass + `*'`), "'${1}'"},
	}
)

// WikiTextDetokenize is lm-eval's wikitext_detokenizer (docs/evals.md §3), applied in this order:
//
//  1. "s '" → "s'"; then re.sub(r"/' [0-9]/", r"/'[0-9]/"), whose pattern has literal slashes (effectively
//     a no-op on WikiText, kept for exactness);
//  2. " @-@ " → "-", " @,@ " → ",", " @.@ " → ".";
//  3. " : " → ": ", " ; " → "; ", " . " → ". ", " ! " → "! ", " ? " → "? ", " , " → ", ";
//  4. the bracket squeezes \(\s*([^\)]*?)\s*\) → (\1), and the same for [], {}, "…" and '…';
//  5. "= = = =" → "====", "= = =" → "===", "= =" → "==";
//  6. " ° " → "°", " \n" → "\n", "\n " → "\n", " N " → " 1 ", " 's" → "'s".
//
// Each replacement is a separate left-to-right pass over the whole string, as Python's str.replace.
func WikiTextDetokenize(s string) string {
	s = strings.ReplaceAll(s, "s '", "s'")
	s = wtSlashQuote.ReplaceAllLiteralString(s, "/'[0-9]/")
	for _, p := range [][2]string{
		{" @-@ ", "-"}, {" @,@ ", ","}, {" @.@ ", "."},
		{" : ", ": "}, {" ; ", "; "}, {" . ", ". "}, {" ! ", "! "}, {" ? ", "? "}, {" , ", ", "},
	} {
		s = strings.ReplaceAll(s, p[0], p[1])
	}
	for _, q := range wtSqueezes {
		s = q.re.ReplaceAllString(s, q.repl)
	}
	for _, p := range [][2]string{
		{"= = = =", "===="}, {"= = =", "==="}, {"= =", "=="},
		{" \u00b0 ", "\u00b0"}, {" \n", "\n"}, {"\n ", "\n"}, {" N ", " 1 "}, {" 's", "'s"},
	} {
		s = strings.ReplaceAll(s, p[0], p[1])
	}
	return s
}
