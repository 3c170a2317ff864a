package recall

import (
	"regexp"
	"strings"

	"github.com/oryx-go/oryx/evals/harness"
)

// The prompts of the JRT fork's based_* tasks (doc_to_text), each returning the prompt and the byte
// offset where its question suffix starts (the mixed-mode split point, see the [choice] of each).

// swdeSummary is where SWDE's text is cut: the key:value listing after it is dropped.
const swdeSummary = "Summary of information above..."

// cutSummary is SWDE's `while text.find(S) >= 0: text = text.split(S)[0]`: the text before the first
// occurrence.
func cutSummary(text string) string {
	if i := strings.Index(text, swdeSummary); i >= 0 {
		return text[:i]
	}
	return text
}

// stripSuffixFold is `while text.lower().endswith(suffix.lower()): text = text[:-len(suffix)]`.
// [choice] An empty suffix is not stripped (Python would loop forever).
func stripSuffixFold(text, suffix string) string {
	if suffix == "" {
		return text
	}
	ls := strings.ToLower(suffix)
	for strings.HasSuffix(strings.ToLower(text), ls) && text != "" {
		text = harness.PyDropLastRunes(text, harness.PyLen(suffix))
	}
	return text
}

// SWDEPrompt is based_swde's doc_to_text: text cut at "Summary of information above...", trailing
// key+":" stripped repeatedly (case-insensitive), then
// text.strip("\n").strip().strip("\n").strip().strip(".") + ". " + Key + ":" with Key the key's first
// letter upper-cased. [choice] The question suffix is " Key:".
func SWDEPrompt(text, key string) (prompt string, suffix int) {
	text = stripSuffixFold(cutSummary(text), key+":")
	out := strings.Trim(harness.PyStrip(strings.Trim(harness.PyStrip(strings.Trim(text, "\n")), "\n")), ".") + "."
	return out + " " + harness.PyUpperFirst(key) + ":", len(out)
}

// SWDETwicePrompt is based_swde_twice: "Information about {Key}. " + body + "\n" + body + " " + Key + ":",
// body = text.strip("\n").strip(".").strip().strip("\n").strip() ending in ".". The suffix is the final
// " Key:".
func SWDETwicePrompt(text, key string) (prompt string, suffix int) {
	text = stripSuffixFold(cutSummary(text), key+":")
	q := harness.PyUpperFirst(key) + ":"
	out := harness.PyStrip(strings.Trim(harness.PyStrip(strings.Trim(strings.Trim(text, "\n"), ".")), "\n"))
	if !strings.HasSuffix(out, ".") {
		out += "."
	}
	p := "Information about " + strings.Trim(q, ":") + ". " + out + "\n" + out
	return p + " " + q, len(p)
}

// FDAPrompt is based_fda's doc_to_text: trailing key+":" stripped repeatedly (case-insensitive), then
// text.strip("\n").strip("."), "." appended unless it already ends with one, then " " + Key + ":".
// [choice] The question suffix is " Key:".
func FDAPrompt(text, key string) (prompt string, suffix int) {
	out := fdaBody(text, key)
	return out + " " + harness.PyUpperFirst(key) + ":", len(out)
}

// FDATwicePrompt is based_fda_twice: "Information about {Key}. " + body + "\n" + body + " " + Key + ":".
func FDATwicePrompt(text, key string) (prompt string, suffix int) {
	out := fdaBody(text, key)
	q := harness.PyUpperFirst(key) + ":"
	p := "Information about " + strings.Trim(q, ":") + ". " + out + "\n" + out
	return p + " " + q, len(p)
}

func fdaBody(text, key string) string {
	out := strings.Trim(strings.Trim(stripSuffixFold(text, key+":"), "\n"), ".")
	if !strings.HasSuffix(out, ".") {
		out += "."
	}
	return out
}

// SQuADPrompt is based_squad's doc_to_text: text.strip(), already a completion prompt ("... The capital
// of France is"). [choice] The question suffix is the prompt's last sentence: it starts after the last
// ". ", "? ", "! " or "\n"; with none of them, nothing of the prompt is in attention (only the generated
// tokens).
func SQuADPrompt(text string) (prompt string, suffix int) {
	p := harness.PyStrip(text)
	return p, lastSentence(p)
}

// SQuADTwicePrompt is based_squad_twice: question + " " + context.split("Question:")[0] + "\n" +
// text.strip(); the suffix is its last sentence, as for SQuADPrompt.
func SQuADTwicePrompt(text, context, question string) (prompt string, suffix int) {
	before, _, _ := strings.Cut(context, "Question:")
	p := question + " " + before + "\n" + harness.PyStrip(text)
	return p, lastSentence(p)
}

func lastSentence(p string) int {
	at := -1
	for _, sep := range []string{". ", "? ", "! ", "\n"} {
		if i := strings.LastIndex(p, sep); i >= 0 && i+len(sep) > at {
			at = i + len(sep)
		}
	}
	if at < 0 {
		return len(p)
	}
	return at
}

var tqaTags = regexp.MustCompile(`\[PAR\]|\[DOC\]|\[TLE\]`)

// qaContext is the context of TriviaQA/NQ/DROP with the question stripped from its end: repeatedly and
// case-insensitively (TriviaQA, DROP, and every _twice variant), or once and case-sensitively (NQ).
// [choice] An empty question strips nothing (Python would loop forever, or empty NQ's context).
func qaContext(context, question string, once bool) string {
	if !once {
		return stripSuffixFold(context, question)
	}
	if question != "" && strings.HasSuffix(context, question) {
		context = context[:len(context)-len(question)]
	}
	return context
}

// QAPrompt is the doc_to_text of based_triviaqa (tags true: "[PAR]", "[DOC]", "[TLE]" removed from the
// stripped context), based_nq_* (nq true: the question is stripped from the end once, case-sensitively)
// and based_drop: context.strip().strip(".") + ". " + question.strip(), the question first stripped from
// the end of the context. [choice] The question suffix is ". question".
func QAPrompt(context, question string, tags, nq bool) (prompt string, suffix int) {
	context = harness.PyStrip(context)
	if tags {
		context = tqaTags.ReplaceAllString(context, "")
	}
	q := harness.PyStrip(question)
	context = qaContext(context, q, nq)
	body := strings.Trim(harness.PyStrip(context), ".")
	return body + ". " + q, len(body)
}

// QATwicePrompt is the _twice doc_to_text of TriviaQA (prefix orig_question as is), NQ and DROP (prefix
// orig_question.strip(":")): prefix + " " + c + "\n" + c + " " + question, with
// c = context.strip().strip(".").strip() + "."; the suffix is the final " question".
func QATwicePrompt(context, question, origQuestion string, tags bool) (prompt string, suffix int) {
	context = harness.PyStrip(context)
	prefix := strings.Trim(origQuestion, ":")
	if tags {
		context = tqaTags.ReplaceAllString(context, "")
		prefix = origQuestion
	}
	q := harness.PyStrip(question)
	context = qaContext(context, q, false)
	c := harness.PyStrip(strings.Trim(harness.PyStrip(context), ".")) + "."
	p := prefix + " " + c + "\n" + c
	return p + " " + q, len(p)
}
