package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/oryx/hf"
)

// exportCmd writes a checkpoint as Hugging Face-style safetensors (oryx/hf): model.safetensors with
// HF/fla-style names and config.json.
func exportCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ckpt := fs.String("checkpoint", "", "checkpoint directory (config.json + checkpoint files; the newest is exported)")
	format := fs.String("format", "safetensors", "output format: safetensors (model.safetensors + HF-style config.json)")
	out := fs.String("out", "", "output directory (created if needed)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: oryx export --checkpoint DIR --format safetensors --out DIR\n\n"+
			"Writes model.safetensors (Hugging Face / fla-style names, the mapping is in `go doc ./oryx/hf`) and an\n"+
			"HF-style config.json; `oryx import` reads it back bit for bit.")
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
	if err := hf.Export(*ckpt, *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %s to %s and %s\n", *ckpt, filepath.Join(*out, hf.WeightsFile), filepath.Join(*out, hf.ConfigFile))
	return nil
}

// importCmd reads an export directory back into a checkpoint.
func importCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("from", "", "export directory (model.safetensors + config.json written by `oryx export`)")
	out := fs.String("out", "", "checkpoint directory to write (must not hold checkpoints)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: oryx import --from DIR --out CHECKPOINT_DIR\n\n"+
			"Reads an `oryx export --format safetensors` directory into a checkpoint that generate, evals and\n"+
			"training read.")
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
	if err := hf.Import(*in, *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %s into the checkpoint %s\n", *in, *out)
	return nil
}

// usageErr is a command-line mistake of a subcommand (exit status 2), pointing at its -h.
func usageErr(fs *flag.FlagSet, format string, args ...any) error {
	return cli.Usagef("%s: %s (run \"oryx %s -h\")", fs.Name(), fmt.Sprintf(format, args...), fs.Name())
}
