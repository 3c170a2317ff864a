package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
)

// infoCmd prints what a model costs without building it: parameters (shared, mixer-specific, tied
// fraction), forward FLOPs per token under mode schedules (dense forward and the gathered evaluation form)
// and the decode state's memory.
//
//	oryx info --preset 130m --variant oryx-tg --seq-len 2048 --schedule attention --schedule attention-last:128
func infoCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	fs.SetOutput(stderr)
	preset := fs.String("preset", "130m", "preset: "+strings.Join(oryx.PresetNames, ", "))
	variant := fs.String("variant", string(oryx.OryxTG), "variant (with --preset)")
	configPath := fs.String("config", "", "JSON config file instead of --preset/--variant")
	seqLen := fs.Int("seq-len", 2048, "sequence length for the FLOP counts")
	fs.IntVar(seqLen, "T", 2048, "deprecated alias of --seq-len")
	var specs multiFlag
	fs.Var(&specs, "schedule", "mode schedule spec (repeatable; default: attention, linear, block, attention-last:128)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("info: unexpected arguments %q", fs.Args())
	}
	if *seqLen <= 0 || *seqLen > guard.MaxSeqLen {
		return cli.Usagef("--seq-len must be in [1, %d], got %d", guard.MaxSeqLen, *seqLen)
	}
	var cfg oryx.Config
	var err error
	if *configPath != "" {
		cfg, err = oryx.LoadConfig(*configPath)
	} else if cfg, err = oryx.Preset(*preset, oryx.Variant(*variant)); err != nil {
		err = cli.Usagef("--preset %q --variant %q: %w", *preset, *variant, err)
	}
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		specs = multiFlag{"attention", "linear", "block", "attention-last:128"}
	}
	report := oryx.CountParams(cfg)
	fmt.Fprintf(stdout, "model: %s, d_model %d, %d layers, %d heads, d_k %d, d_v %d, MLP %d, vocab %d\n",
		cfg.Variant, cfg.DModel, cfg.Layers, cfg.Heads, cfg.KeyDim, cfg.ValueDim, cfg.MLPHidden, cfg.Vocab)
	fmt.Fprintf(stdout, "parameters: %s\n", report)
	// info allocates nothing, so it describes any valid config; but say so when the weights alone could not
	// be held here.
	if weights, ok := guard.Mul(report.Total, 4); !ok || guard.CheckMemory("its float32 weights", weights) != nil {
		fmt.Fprintf(stdout, "note: the float32 weights alone need %s; this machine has %s: init, generate and training "+
			"refuse it here\n", guard.HumanBytes(weights), guard.HumanBytes(guard.HostMemory()))
	}
	perToken, fixed := oryx.StateMemory(cfg, 4)
	fmt.Fprintf(stdout, "decode state (float32, per row): %.1f KiB per token of context + %.1f KiB fixed\n",
		float64(perToken)/1024, float64(fixed)/1024)
	fmt.Fprintf(stdout, "forward GFLOP per token at T = %d:\n", *seqLen)
	for _, spec := range specs {
		parsed, err := schedule.ParseSpec(spec)
		if err != nil {
			return cli.Usagef("--schedule: %w", err)
		}
		sched, err := parsed.Schedule(1, *seqLen, 1)
		if err != nil {
			return cli.Usagef("--schedule: %w", err)
		}
		dense := schedule.ScheduleFLOPs(cfg, sched, 0, false) / float64(*seqLen) / 1e9
		line := fmt.Sprintf("  %-22s attention %5.1f%%   dense %.3f", spec, 100*sched.AttentionFraction(), dense)
		if cfg.Variant.IsMultiMixer() {
			line += fmt.Sprintf("   gathered %.3f", schedule.ScheduleFLOPs(cfg, sched, 0, true)/float64(*seqLen)/1e9)
		}
		fmt.Fprintln(stdout, line)
	}
	return nil
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }
