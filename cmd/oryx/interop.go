package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/oryx-go/oryx/internal/claim"
	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/hf"
)

// exportCmd writes a checkpoint as Hugging Face-style safetensors (oryx/hf): model.safetensors with
// HF/fla-style names and config.json.
func exportCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ckpt := fs.String("checkpoint", "", "checkpoint directory (config.json + checkpoint files; the newest is exported)")
	format := fs.String("format", "safetensors", "output format: safetensors (model.safetensors + HF-style config.json)")
	out := fs.String("out", "", "output directory (created if needed; an export of its own is replaced)")
	force := fs.Bool("force", false, "write into --out even when it holds another command's output (a run directory, a corpus, ...)")
	tok := fs.String("tokenizer", "", "tokenizer to export (default: the one the training run recorded, else bytes)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: oryx export --checkpoint DIR --format safetensors --out DIR\n\n"+
			"Writes model.safetensors (Hugging Face / fla-style names, the mapping is in `go doc ./oryx/hf`), a\n"+
			"config.json that states every architectural choice, and modeling_oryx.py, the PyTorch reference\n"+
			"(AutoModelForCausalLM.from_pretrained(DIR, trust_remote_code=True) with transformers), the run's\n"+
			"tokenizer as tokenizer.json (AutoTokenizer), generation_config.json and a README.md model card;\n"+
			"`oryx import` reads it back bit for bit.")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErr(fs, "unexpected argument %q", fs.Arg(0))
	case *ckpt == "":
		return usageErr(fs, "--checkpoint is required")
	case *out == "":
		return usageErr(fs, "--out is required")
	case *format != "safetensors":
		return usageErr(fs, "--format %q: the only format is safetensors", *format)
	}
	// An export, never a run directory (`--out` = `--checkpoint` replaced the run's config.json) or another
	// command's output.
	if err := claim.Dir("export: --out", *out, claim.Export, *force); err != nil {
		return err
	}
	info, err := hf.ExportWith(*ckpt, *out, hf.ExportOptions{Tokenizer: *tok})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %s to %s: %s\n", *ckpt, *out, strings.Join(info.Files, ", "))
	if info.TokenizerNote != "" {
		fmt.Fprintf(stderr, "export: %s\n", info.TokenizerNote)
	}
	return nil
}

// importCmd reads an export directory back into a checkpoint.
func importCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("from", "", "export directory (model.safetensors + config.json written by `oryx export`)")
	out := fs.String("out", "", "checkpoint directory to write (must not hold checkpoints)")
	force := fs.Bool("force", false, "write into --out even when it holds another command's output (an export, a corpus, ...)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: oryx import --from DIR --out CHECKPOINT_DIR\n\n"+
			"Reads an `oryx export --format safetensors` directory into a checkpoint that generate, evals and\n"+
			"training read. config.json must be exactly what export writes for its oryx_config; bfloat16 and\n"+
			"float16 weights are converted to float32 (exactly), float32 and float64 kept.")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErr(fs, "unexpected argument %q", fs.Arg(0))
	case *in == "":
		return usageErr(fs, "--from is required")
	case *out == "":
		return usageErr(fs, "--out is required")
	}
	// The one writer of --out (oryx.OpenCheckpointDir: internal/runwriter): a run directory, never the export itself (`--out` =
	// `--from` replaced its config.json) or another command's output, and never a directory a trainer or
	// another import is writing.
	w, err := oryx.OpenCheckpointDir(*out, oryx.CheckpointDirOptions{Flag: "import: --out", Command: "oryx import", Force: *force, Log: stderr})
	if err != nil {
		return err
	}
	defer w.Close()
	info, err := hf.Import(*in, w)
	if err != nil {
		return err
	}
	if info.ConvertedTo != "" {
		fmt.Fprintf(stdout, "converted the %d %s tensors to %s (exactly: every %s value is a %s value); the model runs in %s\n",
			info.Tensors, hf.TorchDTypes[info.DType], info.ConvertedTo, hf.TorchDTypes[info.DType], info.ConvertedTo, info.ConvertedTo)
	}
	fmt.Fprintf(stdout, "imported %s (%s, %s) into the checkpoint %s\n", *in, info.Config.Variant, hf.TorchDTypes[info.DType], *out)
	if info.Tokenizer != "" {
		fmt.Fprintf(stdout, "with its tokenizer (%s): generate and evals use it\n", info.Tokenizer)
	}
	return nil
}

// usageErr is a command-line mistake of a subcommand (exit status 2), pointing at its -h.
func usageErr(fs *flag.FlagSet, format string, args ...any) error {
	return cli.Usagef("%s: %s (run \"oryx %s -h\")", fs.Name(), fmt.Sprintf(format, args...), fs.Name())
}
