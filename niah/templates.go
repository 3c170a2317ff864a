package niah

import "strings"

// RULER's niah templates (scripts/data/synthetic/constants.py and niah.py), verbatim. Python's str.format
// placeholders are kept; formatPrompt substitutes them in one pass, as str.format does (a "{query}" inside the
// context is not substituted).
const (
	// NeedleTemplate is one needle. The type stays plural ("numbers", "uuids") even in single-needle tasks.
	NeedleTemplate = "One of the special magic {type_needle_v} for {key} is: {value}."

	// PromptTemplate is the task template for a base model (RULER's "base" model template is the task
	// template itself, no chat wrapping).
	PromptTemplate = "Some special magic {type_needle_v} are hidden within the following text. Make sure to " +
		"memorize it. I will quiz you about the {type_needle_v} afterwards.\n{context}\nWhat are all the special " +
		"magic {type_needle_v} for {query} mentioned in the provided text?"

	// AnswerPrefix follows PromptTemplate: the model input is template + answer prefix, with no trailing
	// space. It begins with a space.
	AnswerPrefix = " The special magic {type_needle_v} for {query} mentioned in the provided text are"

	// NoiseSentence is the noise haystack's repeated piece (RULER "noise", lm-eval "repeat").
	NoiseSentence = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
)

// singular applies RULER's rewrite of the template when exactly one value is asked for
// (num_needle_q · num_needle_v == 1): "Some"→"A", "are all"→"is", "are"→"is", "answers"→"answer", in that
// order, on the whole template (answer prefix included), before the context is put in.
func singular(template string) string {
	template = strings.ReplaceAll(template, "Some", "A")
	template = strings.ReplaceAll(template, "are all", "is")
	template = strings.ReplaceAll(template, "are", "is")
	return strings.ReplaceAll(template, "answers", "answer")
}

// promptParts is a formatted prompt split where the question begins.
type promptParts struct {
	head     string // instruction + context + "\n": read in linear mode under the paper's mixed schedule
	question string // "What is ... text? The special magic ... text is": read in attention mode
}

func (p promptParts) String() string { return p.head + p.question }

// formatPrompt returns the model input of a task: (singularised) PromptTemplate + AnswerPrefix with
// type_needle_v, context and query substituted. valueType is plural ("numbers"); with one asked value the
// template is singularised and the type loses its final "s" ("number"), as RULER does.
func formatPrompt(valueType, context, query string, askedValues int) promptParts {
	template := PromptTemplate + AnswerPrefix
	if askedValues == 1 {
		template = singular(template)
		valueType = valueType[:len(valueType)-1]
	}
	// The context is substituted last and alone, so nothing inside it is ever taken for a placeholder.
	r := strings.NewReplacer("{type_needle_v}", valueType, "{query}", query)
	head, question, _ := strings.Cut(template, "{context}\n")
	return promptParts{head: r.Replace(head) + context + "\n", question: r.Replace(question)}
}

// formatNeedle returns NeedleTemplate with the plural value type, key and value.
func formatNeedle(valueType, key, value string) string {
	return strings.NewReplacer("{type_needle_v}", valueType, "{key}", key, "{value}", value).Replace(NeedleTemplate)
}

// queryText joins the asked keys as RULER does: "a", or "a, b, and c".
func queryText(keys []string) string {
	if len(keys) == 1 {
		return keys[0]
	}
	return strings.Join(keys[:len(keys)-1], ", ") + ", and " + keys[len(keys)-1]
}
