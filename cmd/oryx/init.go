package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/oryx"
)

// initCmd implements `oryx init`: write a checkpoint with random weights (before training exists, or as a
// baseline) and print its parameter report.
func initCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	preset := fs.String("preset", "tiny", "architecture preset: "+strings.Join(oryx.PresetNames, ", "))
	variant := fs.String("variant", string(oryx.OryxTG), fmt.Sprintf("model variant: one of %v", oryx.Variants))
	configPath := fs.String("config", "", "JSON config file (instead of --preset and --variant)")
	out := fs.String("out", "", "checkpoint directory to write (required; must not hold checkpoints yet)")
	vocab := fs.Int("vocab", 0, "vocabulary size with --preset (0: the preset's, except tiny: 320, the byte tokenizer's 258 ids padded to a multiple of 64, as the tiny recipes use)")
	seed := fs.Int64("seed", 1, "random seed of the initial weights (0 = non-deterministic)")
	force := fs.Bool("force", false, "write into --out even when it holds another command's output (an export, a corpus, ...)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: oryx init --out DIR [--preset NAME --variant NAME | --config FILE] [--seed N]\n\n"+
			"Writes a checkpoint with random weights (config.json + GoMLX checkpoint files) and prints its parameters.\n\n")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("init: unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return cli.Usagef("init: --out DIR is required")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var cfg oryx.Config
	var err error
	source := ""
	if *configPath != "" {
		if set["preset"] || set["variant"] {
			return cli.Usagef("init: --config cannot be combined with --preset or --variant")
		}
		if cfg, err = oryx.LoadConfig(*configPath); err != nil {
			return fmt.Errorf("init: --config: %w", err)
		}
		source = "config " + *configPath
	} else {
		if cfg, err = oryx.Preset(*preset, oryx.Variant(*variant)); err != nil {
			return cli.Usagef("init: --preset %q --variant %q: %w", *preset, *variant, err)
		}
		source = "preset " + *preset
		switch {
		case *vocab < 0:
			return cli.Usagef("init: --vocab %d: must be ≥ 1 (0: the preset's)", *vocab)
		case *vocab > 0:
			cfg.Vocab = *vocab
		case *preset == "tiny":
			cfg.Vocab = 320 // the default tokenizer (bytes, 258 ids) must fit: evals and generate refuse a smaller vocabulary
		}
		if err := cfg.Validate(); err != nil {
			return cli.Usagef("init: --vocab: %w", err)
		}
	}
	if err := oryx.CheckWeightsMemory("init: writing", cfg); err != nil {
		return err
	}
	// The one writer of --out (oryx.OpenCheckpointDir: internal/runwriter): a run directory, never another command's output (an
	// export's config.json would be replaced); a second `oryx init` (or a training run) on it is refused; what
	// killed saves left there is removed.
	w, err := oryx.OpenCheckpointDir(*out, oryx.CheckpointDirOptions{Flag: "init: --out", Command: "oryx init", Force: *force, Log: stderr})
	if err != nil {
		return err
	}
	defer w.Close()
	if err := oryx.InitCheckpointIn(w, cfg, *seed); err != nil {
		return err
	}
	// Read it back: the report counts the weights actually stored.
	_, ctx, err := oryx.LoadCheckpoint(*out, &cfg)
	if err != nil {
		return fmt.Errorf("init: reading back the new checkpoint: %w", err)
	}
	r := oryx.ReportFromContext(ctx)
	fmt.Fprintf(stdout, "wrote %s: %s, %s (vocab %d, d_model %d, %d layers, %d heads), random weights, seed %d\n",
		*out, cfg.Variant, source, cfg.Vocab, cfg.DModel, cfg.Layers, cfg.Heads, *seed)
	fmt.Fprintf(stdout, "parameters: %s\n", r)
	fmt.Fprintf(stdout, "tied fraction (shared / total): %s\n", r.TiedFractionString())
	return nil
}
