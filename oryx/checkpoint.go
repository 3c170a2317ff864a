package oryx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"

	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/internal/runwriter"
)

// Checkpoint directory layout:
//
//	DIR/config.json                       the architecture (Config, written by SaveConfig)
//	DIR/checkpoint-nNNNNNNN-<time>-<tag>.json   GoMLX metadata: context params and the variable index
//	DIR/checkpoint-nNNNNNNN-<time>-<tag>.bin    GoMLX variable data (gzip)
//
// <time> is YYYYMMDD-HHMMSS and <tag> is "initial" or "step-SSSSSSSS" (the optimizer's global step), as
// GoMLX's checkpoints package names them; NNNNNNN is a counter that grows with every save, so the names sort
// oldest first and the newest checkpoint is the last one. A checkpoint holds every variable of the context:
// the model's parameters plus, when present, the optimizer state (Adam moments, global_step) and the RNG
// state, so that training can resume.
//
// Crash safety: config.json is written to a temporary file and renamed over the old one, so it is never
// half-written. The variables are first saved by GoMLX into a private staging folder inside DIR and then
// moved in by rename, .bin first and .json last; a checkpoint is listed (by its .json) only once both files
// are complete, so a crash during a save leaves the previous checkpoints loadable. Older checkpoints are
// pruned only after the new one is in place. What a kill leaves (a staging folder, a temporary config, a .bin
// without its .json) is removed by the directory's next writer when it opens it (internal/runwriter).
//
// One writer per directory: saving needs the directory open for writing (a CheckpointDir: OpenCheckpointDir,
// or runwriter.Open in the trainer and the commands), which claims it, locks it against every other writer
// (training, `oryx init`, `oryx import`, another save) and cleans the leftovers; a save without one is
// refused.

// ConfigFileName is the name of the config file in a checkpoint directory (the run directory's layout is
// internal/rundir's: this package writes the files under the names it gives).
const ConfigFileName = rundir.ConfigFile

// CheckpointKeep is the number of most recent checkpoints SaveCheckpoint keeps in a directory.
const CheckpointKeep = 3

// CheckpointDir is a checkpoint directory this process holds open for writing: its one writer
// (internal/runwriter). SaveCheckpoint writes only through one; Close releases it.
type CheckpointDir = runwriter.Writer

// CheckpointDirOptions say who opens a checkpoint directory (runwriter.Options): the flag that named it, for
// messages; what this process is, for another writer's refusal; Force to write into another command's
// output; where to report the leftovers removed. The zero value is a library's.
type CheckpointDirOptions = runwriter.Options

// OpenCheckpointDir opens dir for writing checkpoints (runwriter.Open): it is created if needed; refused
// when another process (a training run, `oryx init`, `oryx import`) is writing it or, unless o.Force, when it
// holds another command's output (an export, a tokenized corpus, ...), with an error naming the path and the
// reason; the leftovers of saves killed there are removed. Close it when done.
func OpenCheckpointDir(dir string, o CheckpointDirOptions) (*CheckpointDir, error) {
	if o.Flag == "" {
		o.Flag = "checkpoint directory"
	}
	if o.Command == "" {
		o.Command = filepath.Base(os.Args[0])
	}
	return runwriter.Open(dir, o)
}

// SaveCheckpoint writes cfg and every variable of ctx (the context the model was built in, at its root
// scope) as a new checkpoint in the directory w holds open, and keeps the CheckpointKeep most recent
// checkpoints. See SaveCheckpointKeep.
func SaveCheckpoint(w *CheckpointDir, cfg Config, ctx *context.Context) error {
	return SaveCheckpointKeep(w, cfg, ctx, CheckpointKeep)
}

// SaveCheckpointKeep is SaveCheckpoint keeping the keep most recent checkpoints (keep ≤ 0: all of them).
//
// Before writing anything it checks that w is open (a closed or nil writer is refused), that cfg is valid, that ctx holds exactly the model parameters cfg
// describes (ReportFromContext == CountParams, so a checkpoint that could not be loaded back is never
// written; build the model once, e.g. run a forward, before saving a fresh context), and that dir does not
// hold checkpoints of a different config (the error names the differing fields). A failed save leaves the
// directory's previous checkpoints as they were.
//
// Saving may create the variable "global_step" (0) in ctx: GoMLX reads it to name the checkpoint. It also
// records cfg (its hash and JSON) as two parameters of ctx's root scope, saved with the variables, so that
// LoadCheckpoint refuses a config.json edited afterwards (confighash.go). Files are written mode 0644.
func SaveCheckpointKeep(w *CheckpointDir, cfg Config, ctx *context.Context, keep int) error {
	if err := w.Check(); err != nil {
		return fmt.Errorf("saving checkpoint: %w", err)
	}
	dir := w.Dir()
	errf := func(format string, args ...any) error {
		return fmt.Errorf("saving checkpoint %s: %w", dir, fmt.Errorf(format, args...))
	}
	if ctx == nil {
		return errf("nil context")
	}
	if err := cfg.Validate(); err != nil {
		return errf("%w", err)
	}
	if got, want := ReportFromContext(ctx), CountParams(cfg); got != want {
		if got.Total == 0 {
			return errf("the context holds no model parameters: build the model in it (e.g. run a forward) before saving")
		}
		return errf("the context's parameters do not match the config: %d parameters (%s), the config needs %d (%s)",
			got.Total, got, want.Total, want)
	}
	existing, err := ListCheckpoints(dir)
	if err != nil {
		return errf("%w", err)
	}
	if len(existing) > 0 {
		old, err := LoadConfig(filepath.Join(dir, ConfigFileName))
		if err != nil {
			return errf("the directory holds %d checkpoint(s) but its %s cannot be read (%v): refusing to mix configs",
				len(existing), ConfigFileName, err)
		}
		if d := old.Diff(cfg); len(d) > 0 {
			return errf("the directory holds checkpoints of a different config (existing vs new): %s",
				strings.Join(d, "; "))
		}
	}
	if err := writeConfigAtomic(dir, cfg); err != nil {
		return errf("%w", err)
	}
	recordConfig(ctx, cfg)
	if err := saveVariables(dir, ctx, existing); err != nil {
		return errf("%w", err)
	}
	if err := pruneCheckpoints(dir, keep); err != nil {
		return errf("%w", err)
	}
	return nil
}

// writeConfigAtomic writes cfg to dir/config.json atomically (internal/atomicfile).
func writeConfigAtomic(dir string, cfg Config) error {
	return SaveConfig(cfg, filepath.Join(dir, ConfigFileName))
}

// saveVariables saves every variable of ctx with GoMLX's checkpoints package into a fresh staging folder
// (so GoMLX neither loads dir's older checkpoints into ctx nor writes partial files into dir), then moves
// the two files into dir under the next counter.
func saveVariables(dir string, ctx *context.Context, existing []string) (err error) {
	staging, err := os.MkdirTemp(dir, rundir.StagingPrefix+"*")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(staging) }()

	prevLoader := ctx.Loader()
	defer ctx.SetLoader(prevLoader) // Done attaches the handler as ctx's loader: undo it.
	err = catchPanic(func() error {
		h, err := checkpoints.Build(ctx).Dir(staging).Keep(-1).Done()
		if err != nil {
			return err
		}
		return h.Save()
	})
	if err != nil {
		return fmt.Errorf("GoMLX checkpoint save: %w", err)
	}
	staged, err := ListCheckpoints(staging)
	if err != nil {
		return err
	}
	if len(staged) != 1 {
		return fmt.Errorf("GoMLX checkpoint save: expected one checkpoint in the staging folder, found %d", len(staged))
	}
	_, rest, _ := rundir.SplitCheckpointName(staged[0])
	base := rundir.CheckpointName(nextCheckpointCount(existing), rest)
	for _, suffix := range []string{checkpoints.BinDataSuffix, checkpoints.JsonNameSuffix} { // .json last
		src := filepath.Join(staging, staged[0]+suffix)
		// One permission policy for every output (GoMLX's files would follow the umask): readable by all.
		if err := os.Chmod(src, 0o644); err != nil {
			return err
		}
		if err := atomicfile.Rename(src, filepath.Join(dir, base+suffix)); err != nil {
			return err
		}
	}
	return nil
}

// nextCheckpointCount returns one more than the largest counter among the checkpoint base names.
func nextCheckpointCount(names []string) int {
	n := 0
	for _, name := range names {
		if c, _, ok := rundir.SplitCheckpointName(name); ok && c >= n {
			n = c + 1
		}
	}
	return n
}

// pruneCheckpoints removes all but the keep most recent checkpoints (keep ≤ 0: none); each one's .json
// goes first, so it stops being listed before its data disappears.
func pruneCheckpoints(dir string, keep int) error {
	if keep <= 0 {
		return nil
	}
	names, err := ListCheckpoints(dir)
	if err != nil || len(names) <= keep {
		return err
	}
	for _, name := range names[:len(names)-keep] {
		for _, suffix := range []string{checkpoints.JsonNameSuffix, checkpoints.BinDataSuffix} {
			if err := os.Remove(filepath.Join(dir, name+suffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// ListCheckpoints returns the base names (without .json/.bin) of the checkpoints in dir, oldest first; the
// last one is what LoadCheckpoint loads. A checkpoint is listed by its .json file, as GoMLX does, and only
// under the exact name its writer gives it (rundir.IsCheckpointFile): a user's "checkpoint-backup.json"
// beside the checkpoints is not one of them, so it is never loaded as the newest nor pruned as the oldest.
func ListCheckpoints(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if base, suffix, ok := rundir.IsCheckpointFile(e.Name()); ok && !e.IsDir() && suffix == checkpoints.JsonNameSuffix {
			names = append(names, base)
		}
	}
	slices.Sort(names)
	return names, nil
}

// gomlxLoadsNewest checks that GoMLX's loader, which lists any "checkpoint-*.json" that is not a folder and
// loads the last of them, loads newest (ListCheckpoints' last): a file of the user's named like a checkpoint
// that sorts after the checkpoints ("checkpoint-notes.json") is refused, naming it, instead of being loaded.
func gomlxLoadsNewest(dir, newest string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	last := ""
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && strings.HasPrefix(n, rundir.CheckpointPrefix) && strings.HasSuffix(n, checkpoints.JsonNameSuffix) && n > last {
			last = n
		}
	}
	if last != newest+checkpoints.JsonNameSuffix {
		return fmt.Errorf("%s is named like a checkpoint but is not one (the newest is %s): GoMLX's loader would load it "+
			"instead; move it out of the directory", filepath.Join(dir, last), newest)
	}
	return nil
}

// LoadCheckpoint reads the checkpoint in dir: its config.json (validated) and the newest checkpoint's
// variables. When want is not nil, a config that differs from *want is refused with an error naming every
// differing field ("checkpoint vs requested").
//
// Loading is eager: every saved variable (model parameters and, if present, optimizer and RNG state) is in
// the returned context when LoadCheckpoint returns (GoMLX's Immediate mode), so the model built in it uses
// the loaded values and never runs its initializers, and ReportFromContext sees the parameters at once. The
// context has no checkpoint loader attached afterwards. Variables that are not model parameters (IsModelParam:
// Adam moments, global_step, the RNG state) are marked non-trainable, as the optimizer would create them;
// GoMLX marks every eagerly loaded variable trainable. The weights are checked against the config (the
// parameter count of CountParams, one dtype for all parameters).
//
// The returned Model has the stored weights' dtype: float32 for every checkpoint the project writes.
func LoadCheckpoint(dir string, want *Config) (*Model, *context.Context, error) {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("checkpoint %s: %w", dir, fmt.Errorf(format, args...))
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, errf("directory does not exist")
	case err != nil:
		return nil, nil, errf("%w", err)
	case !fi.IsDir():
		return nil, nil, errf("not a directory")
	}
	cfgPath := filepath.Join(dir, ConfigFileName)
	cfg, err := LoadConfig(cfgPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, errf("missing %s: not a checkpoint directory (write one with `oryx init` or SaveCheckpoint)",
			ConfigFileName)
	}
	if err != nil {
		return nil, nil, errf("invalid %s: %w", ConfigFileName, err)
	}
	if want != nil {
		if d := cfg.Diff(*want); len(d) > 0 {
			return nil, nil, errf("config differs from the requested one (checkpoint vs requested): %s",
				strings.Join(d, "; "))
		}
	}
	names, err := ListCheckpoints(dir)
	if err != nil {
		return nil, nil, errf("%w", err)
	}
	if len(names) == 0 {
		return nil, nil, errf("no checkpoint files (%s*%s and %s) next to %s", rundir.CheckpointPrefix,
			checkpoints.JsonNameSuffix, checkpoints.BinDataSuffix, ConfigFileName)
	}

	if err := gomlxLoadsNewest(dir, names[len(names)-1]); err != nil {
		return nil, nil, errf("%w", err)
	}
	if err := CheckWeightsMemory("loading", cfg); err != nil {
		return nil, nil, errf("%w", err)
	}
	ctx := context.New()
	err = catchPanic(func() error {
		_, err := checkpoints.Load(ctx).Dir(dir).Immediate().Done()
		return err
	})
	ctx.SetLoader(nil) // everything is loaded: the handler has nothing left to give
	if err != nil {
		return nil, nil, errf("loading %s: %w", names[len(names)-1], err)
	}

	var dtype dtypes.DType
	for v := range ctx.IterVariables() {
		if !IsModelParam(v.ScopeAndName()) {
			v.SetTrainable(false)
			continue
		}
		if dtype == dtypes.InvalidDType {
			dtype = v.DType()
		} else if v.DType() != dtype {
			return nil, nil, errf("parameter %s is %s, others are %s: mixed dtypes", v.ScopeAndName(), v.DType(), dtype)
		}
	}
	if err := checkRecordedConfig(ctx, cfg); err != nil {
		return nil, nil, errf("%w", err)
	}
	if got, need := ReportFromContext(ctx), CountParams(cfg); got != need {
		return nil, nil, errf("the weights of %s do not match %s: %d parameters stored (%s), the config needs %d (%s)",
			names[len(names)-1], ConfigFileName, got.Total, got, need.Total, need)
	}
	if !dtype.IsFloat() {
		return nil, nil, errf("parameters have dtype %s, want a float dtype", dtype)
	}
	if err := checkFiniteParams(ctx); err != nil {
		return nil, nil, errf("%s: %w", names[len(names)-1], err)
	}
	if emb := ctx.GetVariableByScopeAndName("/"+paramScopeEmbeddings, "embeddings"); emb == nil ||
		!slices.Equal(emb.Shape().Dimensions, []int{cfg.Vocab, cfg.DModel}) {
		return nil, nil, errf("the embeddings are missing or not [vocab %d, d_model %d]", cfg.Vocab, cfg.DModel)
	}
	return &Model{Config: cfg, DType: dtype}, ctx, nil
}

// InitCheckpoint writes a checkpoint of cfg with random weights to dir, opening it for writing
// (OpenCheckpointDir) for the time it takes: see InitCheckpointIn.
func InitCheckpoint(dir string, cfg Config, seed int64) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("init checkpoint %s: %w", dir, err)
	}
	if err := CheckWeightsMemory("init checkpoint "+dir+": writing", cfg); err != nil {
		return err // before the directory is created
	}
	w, err := OpenCheckpointDir(dir, CheckpointDirOptions{})
	if err != nil {
		return fmt.Errorf("init checkpoint %s: %w", dir, err)
	}
	defer w.Close()
	return InitCheckpointIn(w, cfg, seed)
}

// InitCheckpointIn writes a checkpoint of cfg with random weights into the directory w holds open: a new
// context seeded with seed (context.ParamInitialSeed; 0 means a non-deterministic seed, GoMLX's convention),
// every variable materialised by running the float32 parallel forward once on a [1, 1] token on the
// project's backend (internal/backend), then SaveCheckpoint. It refuses a directory that already holds
// checkpoints, so that trained weights are never overwritten by random ones.
func InitCheckpointIn(w *CheckpointDir, cfg Config, seed int64) error {
	if err := w.Check(); err != nil {
		return fmt.Errorf("init checkpoint: %w", err)
	}
	dir := w.Dir()
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("init checkpoint %s: %w", dir, err)
	}
	if names, err := ListCheckpoints(dir); err == nil && len(names) > 0 {
		return fmt.Errorf("init checkpoint %s: the directory already holds %d checkpoint(s); refusing to overwrite "+
			"them with random weights (choose another directory or delete it)", dir, len(names))
	}
	if err := CheckWeightsMemory("init checkpoint "+dir+": writing", cfg); err != nil {
		return err
	}
	m, err := New(cfg)
	if err != nil {
		return err
	}
	be, err := backend.Get()
	if err != nil {
		return err
	}
	ctx := context.New()
	ctx.SetParam(context.ParamInitialSeed, seed)
	err = catchPanic(func() error {
		exec, err := context.NewExec(be, ctx, func(ctx *context.Context, tokens, modes *Node) *Node {
			return m.Logits(ctx, tokens, m.ModesOrNil(modes))
		})
		if err != nil {
			return err
		}
		defer exec.Finalize()
		outs, err := exec.Exec(tensors.FromFlatDataAndDimensions([]int32{0}, 1, 1),
			tensors.FromFlatDataAndDimensions([]int32{int32(Attention)}, 1, 1))
		if err != nil {
			return err
		}
		for _, t := range outs {
			t.FinalizeAll()
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("init checkpoint %s: materialising the weights: %w", dir, err)
	}
	return SaveCheckpoint(w, cfg, ctx)
}

// CheckWeightsMemory refuses, before anything is allocated, a config whose weights this machine cannot
// hold while loading or writing them (internal/guard): float32 values, twice (the tensors and the
// checkpoint's serialised copy). doing says what needs them ("loading", ...).
func CheckWeightsMemory(doing string, cfg Config) error {
	b, ok := guard.MulAll(CountParams(cfg).Total, 4, 2)
	if !ok {
		b = -1
	}
	return guard.CheckMemory(fmt.Sprintf("%s the weights of %s parameters", doing, human.Int(CountParams(cfg).Total)), b)
}

// catchPanic runs fn and turns a panic (GoMLX reports many errors by panicking) into an error.
func catchPanic(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	return fn()
}
