package lmeval

import "github.com/oryx-go/oryx/evals/harness"

// configs are lm-evaluation-harness 0.4.13's task YAMLs of the tasks here (lm_eval/tasks/{wikitext,
// lambada, piqa, hellaswag, winogrande, arc, siqa, super_glue/boolq}), the fields in their order, with
// include: resolved: the results file's "configs" (harness.RegisterConfig).
var configs = map[string]harness.Doc{
	WikiText: {{Key: "task", Value: WikiText}, {Key: "dataset_path", Value: "EleutherAI/wikitext_document_level"},
		{Key: "dataset_name", Value: "wikitext-2-raw-v1"}, {Key: "output_type", Value: "loglikelihood_rolling"},
		{Key: "training_split", Value: "train"}, {Key: "validation_split", Value: "validation"}, {Key: "test_split", Value: "test"},
		{Key: "doc_to_text", Value: ""}, {Key: "doc_to_target", Value: "!function preprocess_wikitext.wikitext_detokenizer"},
		{Key: "process_results", Value: "!function preprocess_wikitext.process_results"},
		{Key: "should_decontaminate", Value: true}, {Key: "doc_to_decontamination_query", Value: "{{page}}"}},
	Lambada: {{Key: "tag", Value: []string{"lambada"}}, {Key: "task", Value: Lambada},
		{Key: "dataset_path", Value: "EleutherAI/lambada_openai"}, {Key: "dataset_name", Value: "default"},
		{Key: "output_type", Value: "loglikelihood"}, {Key: "test_split", Value: "test"},
		{Key: "doc_to_text", Value: "{{text.split(' ')[:-1]|join(' ')}}"}, {Key: "doc_to_target", Value: "{{' '+text.split(' ')[-1]}}"},
		{Key: "should_decontaminate", Value: true}, {Key: "doc_to_decontamination_query", Value: "{{text}}"}},
	PIQA: {{Key: "task", Value: PIQA}, {Key: "dataset_path", Value: "baber/piqa"}, {Key: "dataset_name", Value: nil},
		{Key: "output_type", Value: "multiple_choice"}, {Key: "training_split", Value: "train"},
		{Key: "validation_split", Value: "validation"}, {Key: "test_split", Value: nil},
		{Key: "doc_to_text", Value: "Question: {{goal}}\nAnswer:"}, {Key: "doc_to_target", Value: "label"},
		{Key: "doc_to_choice", Value: "{{[sol1, sol2]}}"}, {Key: "should_decontaminate", Value: true},
		{Key: "doc_to_decontamination_query", Value: "goal"}},
	HellaSwag: {{Key: "tag", Value: []string{"multiple_choice"}}, {Key: "task", Value: HellaSwag},
		{Key: "dataset_path", Value: "Rowan/hellaswag"}, {Key: "dataset_name", Value: nil},
		{Key: "output_type", Value: "multiple_choice"}, {Key: "training_split", Value: "train"},
		{Key: "validation_split", Value: "validation"}, {Key: "test_split", Value: nil},
		{Key: "process_docs", Value: "!function utils.process_docs"}, {Key: "doc_to_text", Value: "{{query}}"},
		{Key: "doc_to_target", Value: "{{label}}"}, {Key: "doc_to_choice", Value: "choices"}},
	WinoGrande: {{Key: "task", Value: WinoGrande}, {Key: "dataset_path", Value: "allenai/winogrande"},
		{Key: "dataset_name", Value: "winogrande_xl"}, {Key: "output_type", Value: "multiple_choice"},
		{Key: "training_split", Value: "train"}, {Key: "validation_split", Value: "validation"},
		{Key: "doc_to_text", Value: "!function preprocess_winogrande.doc_to_text"},
		{Key: "doc_to_target", Value: "!function preprocess_winogrande.doc_to_target"},
		{Key: "doc_to_choice", Value: "!function preprocess_winogrande.doc_to_choice"},
		{Key: "should_decontaminate", Value: true}, {Key: "doc_to_decontamination_query", Value: "sentence"}},
	ARCEasy:      arcConfig(ARCEasy, "ARC-Easy"),
	ARCChallenge: arcConfig(ARCChallenge, "ARC-Challenge"),
	SocialIQA: {{Key: "task", Value: SocialIQA}, {Key: "dataset_path", Value: "lighteval/siqa"}, {Key: "dataset_name", Value: nil},
		{Key: "output_type", Value: "multiple_choice"}, {Key: "training_split", Value: "train"},
		{Key: "validation_split", Value: "validation"}, {Key: "doc_to_text", Value: "Q: {{context}} {{question}}\nA:"},
		{Key: "target_delimiter", Value: " "}, {Key: "doc_to_choice", Value: "{{[answerA, answerB, answerC]}}"},
		{Key: "doc_to_target", Value: "{{ (label|int) - 1 }}"}},
	BoolQ: {{Key: "tag", Value: []string{"super-glue-lm-eval-v1"}}, {Key: "task", Value: BoolQ},
		{Key: "dataset_path", Value: "aps/super_glue"}, {Key: "dataset_name", Value: "boolq"},
		{Key: "output_type", Value: "multiple_choice"}, {Key: "training_split", Value: "train"},
		{Key: "validation_split", Value: "validation"}, {Key: "doc_to_text", Value: "{{passage}}\nQuestion: {{question}}?\nAnswer:"},
		{Key: "doc_to_target", Value: "label"}, {Key: "doc_to_choice", Value: []string{"no", "yes"}},
		{Key: "should_decontaminate", Value: true}, {Key: "doc_to_decontamination_query", Value: "passage"}},
}

func arcConfig(name, dataset string) harness.Doc {
	return harness.Doc{{Key: "tag", Value: []string{"ai2_arc"}}, {Key: "task", Value: name},
		{Key: "dataset_path", Value: "allenai/ai2_arc"}, {Key: "dataset_name", Value: dataset},
		{Key: "output_type", Value: "multiple_choice"}, {Key: "training_split", Value: "train"},
		{Key: "validation_split", Value: "validation"}, {Key: "test_split", Value: "test"},
		{Key: "doc_to_text", Value: "Question: {{question}}\nAnswer:"}, {Key: "doc_to_target", Value: "{{choices.label.index(answerKey)}}"},
		{Key: "doc_to_choice", Value: "{{choices.text}}"}, {Key: "should_decontaminate", Value: true},
		{Key: "doc_to_decontamination_query", Value: "Question: {{question}}\nAnswer:"}}
}
