// Package lmevaltest holds the Hugging Face column layouts of the LM tasks' datasets (the columns, their
// types and their order, as in the parquet files of the Hugging Face Hub), for tests that write fixture
// parquet files with hfparquet.WriteFile: the task tests of evals/lmeval and the lm-eval interop tests of
// evals/evalrun.
package lmevaltest

type (
	// PIQA is a row of baber/piqa.
	PIQA struct {
		Goal  string `parquet:"goal"`
		Sol1  string `parquet:"sol1"`
		Sol2  string `parquet:"sol2"`
		Label int64  `parquet:"label"`
	}
	// HellaSwag is a row of Rowan/hellaswag (its text and label columns).
	HellaSwag struct {
		Ind           int32    `parquet:"ind"`
		ActivityLabel string   `parquet:"activity_label"`
		CtxA          string   `parquet:"ctx_a"`
		CtxB          string   `parquet:"ctx_b"`
		Ctx           string   `parquet:"ctx"`
		Endings       []string `parquet:"endings,list"`
		Label         string   `parquet:"label"`
	}
	// WinoGrande is a row of allenai/winogrande.
	WinoGrande struct {
		Sentence string `parquet:"sentence"`
		Option1  string `parquet:"option1"`
		Option2  string `parquet:"option2"`
		Answer   string `parquet:"answer"`
	}
	// ARCChoices is ARC's choices struct.
	ARCChoices struct {
		Text  []string `parquet:"text,list"`
		Label []string `parquet:"label,list"`
	}
	// ARC is a row of allenai/ai2_arc.
	ARC struct {
		ID        string     `parquet:"id"`
		Question  string     `parquet:"question"`
		Choices   ARCChoices `parquet:"choices"`
		AnswerKey string     `parquet:"answerKey"`
	}
	// SocialIQA is a row of lighteval/siqa.
	SocialIQA struct {
		Context  string `parquet:"context"`
		Question string `parquet:"question"`
		AnswerA  string `parquet:"answerA"`
		AnswerB  string `parquet:"answerB"`
		AnswerC  string `parquet:"answerC"`
		Label    string `parquet:"label"`
	}
	// BoolQ is a row of aps/super_glue's boolq.
	BoolQ struct {
		Question string `parquet:"question"`
		Passage  string `parquet:"passage"`
		Idx      int32  `parquet:"idx"`
		Label    int64  `parquet:"label"`
	}
	// Text is a row of EleutherAI/lambada_openai.
	Text struct {
		Text string `parquet:"text"`
	}
	// Page is a row of EleutherAI/wikitext_document_level.
	Page struct {
		Page string `parquet:"page"`
	}
)
