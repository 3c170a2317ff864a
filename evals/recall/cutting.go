package recall

import (
	"regexp"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/evals/harness"
)

// Cutter is the JRT fork's answer-centred context cutting (Task.truncate_context with cutting_context on),
// in the model's tokenizer.
type Cutter struct {
	Tok tokenizers.Tokenizer
	// BOS is the id the tokenizer adds by default (HF add_special_tokens=True: Llama-2's <s>), or -1 when it
	// adds none (GPT-NeoX, GPT-2). See BOSFor.
	BOS int
	// ContextLength and AnswerLength give the window: desired = ContextLength - AnswerLength tokens
	// (2048 - 50 = 1998 in the GDN setup).
	ContextLength, AnswerLength int
}

// BOSFor returns the Cutter.BOS of a model: [choice] the model's prefix token when it differs from the
// tokenizer's EOS (a tokenizer with a distinct BOS, which HF tokenizers of that kind add by default:
// Llama-2), else -1 (NeoX and GPT-2, whose BOS is EOS and is not added).
func BOSFor(m harness.Model) int {
	if p := m.PrefixToken(); p != m.Tokenizer().EOS() {
		return p
	}
	return -1
}

// CutDoc is what the cutting reads of a document.
type CutDoc struct {
	// Text is doc[context_key] ("text").
	Text string
	// Answers are doc[k] for each answer key in order (["key", "value"], or ["value"] for SQuAD), the first
	// element when the column is a list. [choice] An empty list gives "" (Python raises IndexError), which
	// drops the document. No answer key at all means answer position 0.
	Answers []string
	// AltAnswers are doc["alt_answers"] when the column exists (HasAlt).
	AltAnswers []string
	HasAlt     bool
	// TokPos is doc["tok_pos"] when the column exists (HasTokPos; NQ).
	TokPos    int
	HasTokPos bool
}

// Cut returns the cut text, or keep = false when the document is dropped. The steps, as the fork does them:
//
//  1. desired = ContextLength - AnswerLength; context = text.strip(); doc_tokens = enc(context) with the
//     default special tokens (BOS when BOS >= 0).
//  2. answer_pos = the smallest case-insensitive first-occurrence position of the answers in context, -1
//     if none is found; an answer that is empty or of length <= 1 drops the document (checked in key
//     order, as the loop returns). If none is found and alt_answers exist, the first alt answer found gives
//     the position. With no answer key, answer_pos = 0.
//  3. answer_tok_pos = len(enc(context[:answer_pos])) (with BOS); with answer_pos = -1 this is Python's
//     context[:-1], the whole document but its last character, so the window sits at the end. If
//     answer_pos = -1, tok_pos exists and answer_tok_pos > desired, answer_tok_pos = tok_pos.
//  4. start = max(0, answer_tok_pos - desired//2); end = min(len(doc_tokens), answer_tok_pos + (desired -
//     (answer_tok_pos - start))).
//  5. text = decode(doc_tokens[start:end]) without special tokens (BOS and EOS ids are skipped).
//
// [choice] Where a window edge splits a multi-byte character between byte-level tokens, the decoded text
// keeps the partial bytes (the datasets tokenizers' Decode) where HF's decode writes U+FFFD.
func (c Cutter) Cut(d CutDoc) (text string, keep bool) {
	desired := c.ContextLength - c.AnswerLength
	context := harness.PyStrip(d.Text)
	docTokens := c.encode(context)
	answerPos := -1
	for _, a := range d.Answers {
		if harness.PyLen(a) <= 1 {
			return "", false
		}
		if p := findFold(context, a); p >= 0 && (answerPos == -1 || p < answerPos) {
			answerPos = p
		}
	}
	if answerPos < 0 && d.HasAlt {
		for _, a := range d.AltAnswers {
			if p := findFold(context, a); p >= 0 && (answerPos == -1 || p < answerPos) {
				answerPos = p
			}
			if answerPos >= 0 {
				break
			}
		}
	}
	if len(d.Answers) == 0 {
		answerPos = 0
	}
	var short string
	if answerPos < 0 {
		short = harness.PyDropLastRunes(context, 1)
	} else {
		short = context[:answerPos]
	}
	shortToks := c.encode(short)
	answerTokPos := len(shortToks)
	if answerPos == -1 && d.HasTokPos && len(shortToks) > desired {
		answerTokPos = d.TokPos
	}
	start := max(0, answerTokPos-desired/2)
	end := min(len(docTokens), answerTokPos+(desired-(answerTokPos-start)))
	if start >= end || start >= len(docTokens) {
		return "", true
	}
	window := make([]int, 0, end-start)
	for _, id := range docTokens[start:end] {
		if id == c.BOS || id == c.Tok.EOS() {
			continue
		}
		window = append(window, id)
	}
	return c.Tok.Decode(window), true
}

func (c Cutter) encode(s string) []int {
	ids := c.Tok.Encode(s)
	if c.BOS >= 0 {
		ids = append([]int{c.BOS}, ids...)
	}
	return ids
}

// findFold is re.compile(re.escape(s), re.IGNORECASE).search(text).start(), or -1 (a byte offset; byte
// and code-point offsets order the same way, and context[:p] is the same string either way).
func findFold(text, s string) int {
	loc := regexp.MustCompile("(?i)" + regexp.QuoteMeta(s)).FindStringIndex(text)
	if loc == nil {
		return -1
	}
	return loc[0]
}
