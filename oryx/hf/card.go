package hf

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/safefile"
	"github.com/oryx-go/oryx/oryx"
)

// training is what the model card says of the run a checkpoint came from, read from its run directory
// (run.json, the trainer state of the newest checkpoint); the zero value for a checkpoint written outside a
// training run (`oryx init`, `oryx import`).
type training struct {
	Recorded   bool
	Name       string
	Data       string
	Step       int
	TokensSeen int64
	SeqLen     int
	Batch      int
	Steps      int
	BlockLen   int
	AttnProb   float64
	ModeTrain  string
	LR         float64
	LRSchedule string
}

// readTraining reads the run record of ckptDir and the trainer state of its newest checkpoint, best effort:
// anything missing stays zero (the card says "not recorded").
func readTraining(ckptDir string) training {
	var tr training
	data, err := safefile.ReadFile(filepath.Join(ckptDir, rundir.RunFile))
	if err == nil {
		var r struct {
			Name string `json:"name"`
			Data struct {
				Spec string `json:"spec"`
			} `json:"data"`
			Train struct {
				SeqLen        int     `json:"seq_len"`
				Batch         int     `json:"batch"`
				Steps         int     `json:"steps"`
				BlockLen      int     `json:"block_len"`
				AttentionProb float64 `json:"attention_prob"`
				ModeTraining  string  `json:"mode_training"`
				LR            float64 `json:"lr"`
				LRSchedule    string  `json:"lr_schedule"`
			} `json:"train"`
		}
		if json.Unmarshal(data, &r) == nil && r.Data.Spec != "" {
			tr = training{Recorded: true, Name: r.Name, Data: r.Data.Spec, SeqLen: r.Train.SeqLen, Batch: r.Train.Batch,
				Steps: r.Train.Steps, BlockLen: r.Train.BlockLen, AttnProb: r.Train.AttentionProb,
				ModeTrain: r.Train.ModeTraining, LR: r.Train.LR, LRSchedule: r.Train.LRSchedule}
		}
	}
	if names, err := oryx.ListCheckpoints(ckptDir); err == nil && len(names) > 0 {
		if step, ok := rundir.CheckpointStep(names[len(names)-1]); ok {
			tr.Step = step
			tr.TokensSeen = rundir.TokensSeen(ckptDir, int64(step))
		}
	}
	return tr
}

// modelCard is the export's README.md: a Hugging Face model card (YAML front matter, then Markdown) that says
// what the model is, what it was trained on, how to choose each token's readout, how to load it with and
// without transformers, and what equals what.
func modelCard(c oryx.Config, dtype string, et exportTokenizer, tr training) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	params := oryx.CountParams(c)
	p("---\nlibrary_name: transformers\npipeline_tag: text-generation\ntags:\n- oryx\n- %s\n- custom_code\n---\n\n", modelTypes[c.Variant])
	p("# Oryx %s, %s parameters\n\n", c.Variant, humanCount(params.Total))
	p("An export of a checkpoint of Oryx in Go (the Go module `github.com/oryx-go/oryx`) (`oryx export`): the weights ")
	p("(`%s`, %s, the checkpoint's bytes unchanged), `%s` (every architectural choice as a key, and the exact ", WeightsFile, dtype, ConfigFile)
	p("Go configuration under `oryx_config`) and `%s`, the PyTorch reference implementation of the model.\n\n", ModelingFile)
	p("## The model\n\n| | |\n|---|---|\n")
	p("| variant | `%s` (%s) |\n", c.Variant, variantWords(c.Variant))
	p("| parameters | %d |\n", params.Total)
	p("| layers, d_model, heads | %d, %d, %d (key dim %d, value dim %d per head) |\n", c.Layers, c.DModel, c.Heads, c.KeyDim, c.ValueDim)
	p("| MLP | SwiGLU, width %d |\n", c.MLPHidden)
	p("| vocabulary | %d |\n", c.Vocab)
	p("| position encoding | %s |\n", map[bool]string{true: fmt.Sprintf("RoPE (base %g) on attention only", c.RoPEBase), false: "none"}[c.RoPE && c.Variant.HasAttention()])
	p("| tied embeddings | %v |\n", c.TiedEmbeddings)
	p("| weights | %s |\n\n", dtype)

	p("## Tokenizer\n\n")
	switch {
	case et.JSON != nil:
		p("`%s` (the run's tokenizer `%s`, %d ids) with `%s` and `%s`: `AutoTokenizer.from_pretrained` loads it as a ",
			TokenizerFile, et.Name, et.VocabSize, TokenizerConfigFile, SpecialTokensFile)
		p("`PreTrainedTokenizerFast`. It adds no BOS or EOS token (as the Go tokenizer, which the model was trained ")
		p("with). End of text is `%s` (id %d), the padding token `%s` (id %d); `%s` and `%s` carry the ids, so ",
			et.EOSText, et.IDs.EOS, et.PadText, et.IDs.Pad, ConfigFile, GenerationConfigFile)
		p("`generate()` stops at end of text.\n\n")
		if et.Name == "bytes" {
			p("The byte tokenizer: ids 0–255 are the bytes of the text's UTF-8 encoding, 256 is `<|endoftext|>`, ")
			p("257 `<|pad|>`, each special token's text split out wherever it appears.\n\n")
		}
	case et.Note != "":
		p("None exported: %s.\n\n", et.Note)
	}

	p("## Training\n\n")
	if tr.Recorded {
		p("| | |\n|---|---|\n")
		if tr.Name != "" {
			p("| run | `%s` |\n", tr.Name)
		}
		p("| data | `%s` |\n", tr.Data)
		if tr.TokensSeen > 0 {
			p("| tokens | %d (%s), %d steps of %d sequences of %d tokens |\n", tr.TokensSeen, humanCount(tr.TokensSeen), tr.Step, tr.Batch, tr.SeqLen)
		} else {
			p("| steps | %d of %d sequences of %d tokens |\n", tr.Step, tr.Batch, tr.SeqLen)
		}
		if tr.LR > 0 {
			p("| learning rate | %g, %s after warm-up |\n", tr.LR, tr.LRSchedule)
		}
		if c.Variant.IsMultiMixer() {
			mt := tr.ModeTrain
			if mt == "" {
				mt = "block-random"
			}
			p("| readouts | %s: blocks of %d tokens, each attention with probability %g, else linear |\n", mt, tr.BlockLen, tr.AttnProb)
		}
		p("\n")
	} else {
		p("Not recorded: the checkpoint was written outside a training run (`oryx init`, `oryx import`, or a run ")
		p("directory without its `run.json`).\n\n")
	}

	p("## Readouts: each token's mode\n\n")
	switch {
	case c.Variant.IsMultiMixer():
		p("Every token writes its key and value to both memories (the KV cache and the linear state) and is read ")
		p("by one of them, the same in every layer: mode 1 attention, 0 linear (default: `%s`). In transformers pass ",
			NewConfig(c, dtype).DefaultMode)
		p("`modes` to `forward` or `generate` (`[B, N]` or `[N]`, one per position fed, or a single 0/1). The Go ")
		p("commands (`oryx generate --schedule`, `evals`) take a schedule spec: `attention`, `linear`, ")
		p("`block[:LEN[:P]]` (random blocks), `sequence[:P]`, `linear-until:P`, `attention-last:N`, ")
		p("`prefill-attention`, ranges such as `A:0-9,L:10-99,A:100-`, and attention budgets.\n\n")
	case c.Variant.HasAttention():
		p("One readout, attention: `modes` is accepted only as all 1.\n\n")
	default:
		p("One readout, the linear recurrence: `modes` is accepted only as all 0.\n\n")
	}

	p("## Loading\n\n```python\nfrom transformers import AutoModelForCausalLM, AutoTokenizer, pipeline\n\n")
	p("model = AutoModelForCausalLM.from_pretrained(\"PATH_OR_REPO_ID\", trust_remote_code=True)\n")
	if et.JSON != nil {
		p("tok = AutoTokenizer.from_pretrained(\"PATH_OR_REPO_ID\")\n")
		p("ids = tok(\"Once upon a time\", return_tensors=\"pt\").input_ids\n")
		p("out = model.generate(ids, max_new_tokens=32)          # greedy; stops at %s\n", et.EOSText)
		p("print(tok.decode(out[0]))\n")
		p("pipeline(\"text-generation\", model=\"PATH_OR_REPO_ID\", trust_remote_code=True)(\"Once upon a time\")\n")
	} else {
		p("out = model.generate(input_ids, max_new_tokens=32)\n")
	}
	p("```\n\nWithout transformers (torch only): `from modeling_oryx import OryxLM; OryxLM.from_export(DIR)`, or ")
	p("`python3 %s DIR --ids 1,2,3`. Back into Go: `oryx import --from DIR --out CHECKPOINT_DIR`.\n\n", ModelingFile)

	p("## What equals what\n\n")
	p("- The weights are the checkpoint's bytes; `oryx import` reads this folder back into a checkpoint bit for bit ")
	p("(also after transformers' `save_pretrained`), and refuses a `%s` that is not exactly what `oryx export` ", ConfigFile)
	p("writes for its `oryx_config`.\n")
	p("- `%s` computes the Go model: the project's tests compare its logits with the Go model's in float64 ", ModelingFile)
	p("(to rounding) and float32, and its greedy, sampled and beam-search `generate()` with the Go decoding engine.\n")
	if et.JSON != nil {
		p("- `AutoTokenizer` gives the Go tokenizer's ids for any valid UTF-8 text, and decodes them back to the ")
		p("same text (the project's tests compare the two on a corpus).\n")
	}
	return b.String()
}

func variantWords(v oryx.Variant) string {
	return map[oryx.Variant]string{
		oryx.Transformer: "softmax attention only",
		oryx.Mamba2:      "the Mamba-2 recurrence only",
		oryx.GDN:         "the Gated DeltaNet recurrence only",
		oryx.OryxTM:      "attention and Mamba-2 over shared keys and values, a readout chosen per token",
		oryx.OryxTG:      "attention and Gated DeltaNet over shared keys and values, a readout chosen per token",
	}[v]
}

// humanCount writes n with a K/M/B suffix (1.2M).
func humanCount(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.3gB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.3gM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.3gK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
