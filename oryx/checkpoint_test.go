package oryx_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/runwriter"
	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// newCheckpointModel builds a float32 tiny model of variant v in a fresh context, materialises its weights
// with one forward and then perturbs every parameter (x ↦ 1.5·x + 0.01), so that the saved weights are NOT
// what the initializers would produce again from the same seed: a load that fell back to random
// initialisation could not reproduce them.
func newCheckpointModel(t *testing.T, v oryx.Variant) (oryx.Config, *oryx.Model, *context.Context) {
	t.Helper()
	cfg, err := oryx.Preset("tiny", v)
	require.NoError(t, err)
	m, err := oryx.New(cfg)
	require.NoError(t, err)
	ctx := context.New()
	ctx.SetParam(context.ParamInitialSeed, int64(77))
	_ = oryxtest.ParallelLogits(t, m, ctx, [][]int32{{1}}, oryxtest.ModesFor(m, [][]oryx.Mode{{oryx.Attention}}))
	perturb(t, ctx, 1.5, 0.01)
	return cfg, m, ctx
}

// perturb sets every model parameter x to a·x + b.
func perturb(t *testing.T, ctx *context.Context, a, b float32) {
	t.Helper()
	n := 0
	for v := range ctx.IterVariables() {
		if !oryx.IsModelParam(v.ScopeAndName()) {
			continue
		}
		data := tensors.MustCopyFlatData[float32](v.MustValue())
		for i := range data {
			data[i] = a*data[i] + b
		}
		require.NoError(t, v.SetValue(tensors.FromFlatDataAndDimensions(data, v.Shape().Dimensions...)))
		n++
	}
	require.Greater(t, n, 0)
}

// checkpointTokens is a fixed batch with switching modes (Oryx variants) for comparing logits.
var (
	checkpointTokens = [][]int32{{3, 141, 59, 26, 5, 35, 89, 79, 32, 38}, {255, 0, 1, 2, 3, 4, 5, 6, 7, 8}}
	checkpointModes  = [][]oryx.Mode{{1, 1, 0, 0, 1, 0, 1, 1, 1, 0}, {0, 0, 0, 1, 1, 1, 1, 0, 0, 1}}
)

// TestCheckpointSaveLoadSameLogits: save → load gives bit-identical logits on fixed tokens, the loaded
// variables are present at once (eager load) with the saved values, and they are not a fresh random
// initialisation (which gives different logits).
func TestCheckpointSaveLoadSameLogits(t *testing.T) {
	for _, v := range testutil.Sweep([]oryx.Variant{oryx.OryxTG, oryx.Transformer, oryx.OryxTM, oryx.GDN}, 2) {
		t.Run(string(v), func(t *testing.T) {
			cfg, m, ctx := newCheckpointModel(t, v)
			modes := oryxtest.ModesFor(m, checkpointModes)
			want := oryxtest.ParallelLogits(t, m, ctx, checkpointTokens, modes)
			dir := filepath.Join(t.TempDir(), "ckpt")
			require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx))

			m2, ctx2, err := oryx.LoadCheckpoint(dir, &cfg)
			require.NoError(t, err)
			assert.Equal(t, cfg, m2.Config)
			assert.Equal(t, m.DType, m2.DType)

			// Eager: every parameter is in the context before any graph is built, with the saved value.
			require.Equal(t, oryx.CountParams(cfg), oryx.ReportFromContext(ctx2))
			for v := range ctx.IterVariables() {
				if !oryx.IsModelParam(v.ScopeAndName()) {
					continue
				}
				got := ctx2.GetVariableByScopeAndName(v.Scope(), v.Name())
				require.NotNil(t, got, v.ScopeAndName())
				require.True(t, got.Trainable, v.ScopeAndName())
				require.Equal(t, tensors.MustCopyFlatData[float32](v.MustValue()),
					tensors.MustCopyFlatData[float32](got.MustValue()), v.ScopeAndName())
			}

			got := oryxtest.ParallelLogits(t, m2, ctx2, checkpointTokens, modes)
			require.Equal(t, want, got, "logits after save → load")

			// A fresh random initialisation (same seed) is different: the check above is not vacuous.
			fresh := context.New()
			fresh.SetParam(context.ParamInitialSeed, int64(77))
			random := oryxtest.ParallelLogits(t, m2, fresh, checkpointTokens, modes)
			require.NotEqual(t, want, random)

			// The loaded context drives an Engine: the prefill's last logits match the parallel forward.
			e, err := infer.NewEngine(backend.MustGet(), ctx2, m2, 2, 16)
			require.NoError(t, err)
			last, err := e.Prefill(checkpointTokens, modes)
			require.NoError(t, err)
			vocab := cfg.Vocab
			for b := range last {
				row := make([]float64, vocab)
				for i, x := range last[b] {
					row[i] = float64(x)
				}
				n := len(checkpointTokens[b])
				require.LessOrEqual(t, testutil.RelErr(row, want[b][(n-1)*vocab:n*vocab]), 1e-4)
			}
		})
	}
}

// TestCheckpointKeepsNewest: repeated saves keep the CheckpointKeep most recent checkpoints, and loading
// gives the newest values.
func TestCheckpointKeepsNewest(t *testing.T) {
	cfg, m, ctx := newCheckpointModel(t, oryx.OryxTG)
	dir := t.TempDir()
	for i := range 5 {
		if i > 0 {
			perturb(t, ctx, 1, 0.125)
		}
		require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx))
	}
	names, err := oryx.ListCheckpoints(dir)
	require.NoError(t, err)
	require.Len(t, names, oryx.CheckpointKeep)
	for i, n := range names {
		assert.True(t, strings.HasPrefix(n, "checkpoint-n000000"+string(rune('2'+i))), n)
	}
	want := oryxtest.ParallelLogits(t, m, ctx, checkpointTokens, checkpointModes)
	m2, ctx2, err := oryx.LoadCheckpoint(dir, nil)
	require.NoError(t, err)
	require.Equal(t, want, oryxtest.ParallelLogits(t, m2, ctx2, checkpointTokens, checkpointModes))

	// A loaded context saves again (resuming) and reloads to the same values.
	require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx2))
	m3, ctx3, err := oryx.LoadCheckpoint(dir, &cfg)
	require.NoError(t, err)
	require.Equal(t, want, oryxtest.ParallelLogits(t, m3, ctx3, checkpointTokens, checkpointModes))

	// Keep ≤ 0 keeps everything.
	require.NoError(t, oryxtest.SaveCheckpointKeep(t, dir, cfg, ctx, 0))
	names, err = oryx.ListCheckpoints(dir)
	require.NoError(t, err)
	require.Len(t, names, oryx.CheckpointKeep+1)
}

// TestCheckpointOptimizerState: every variable of the context is saved, not only the model's; after the
// eager load the non-model variables are non-trainable and the model's parameters trainable.
func TestCheckpointOptimizerState(t *testing.T) {
	cfg, _, ctx := newCheckpointModel(t, oryx.Transformer)
	moment := ctx.InAbsPath("/AdamOptimizer/embeddings").VariableWithValue("embeddings_1", []float32{1, 2, 3}).
		SetTrainable(false)
	require.NoError(t, optimizers.GetGlobalStepVar(ctx).SetValue(tensors.FromValue(int64(42))))
	dir := t.TempDir()
	require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx))
	names, err := oryx.ListCheckpoints(dir)
	require.NoError(t, err)
	require.Len(t, names, 1)
	assert.Contains(t, names[0], "-step-00000042")

	_, ctx2, err := oryx.LoadCheckpoint(dir, nil)
	require.NoError(t, err)
	got := ctx2.GetVariableByScopeAndName(moment.Scope(), moment.Name())
	require.NotNil(t, got)
	assert.False(t, got.Trainable)
	assert.Equal(t, []float32{1, 2, 3}, tensors.MustCopyFlatData[float32](got.MustValue()))
	assert.Equal(t, int64(42), optimizers.GetGlobalStep(ctx2))
	assert.False(t, optimizers.GetGlobalStepVar(ctx2).Trainable)
	for v := range ctx2.IterVariables() {
		assert.Equal(t, oryx.IsModelParam(v.ScopeAndName()), v.Trainable, v.ScopeAndName())
	}
}

// TestCheckpointLoadKeepsVariableOrder: a loaded context lists its variables in the order of the context that
// saved them, every time. That order is the order of the variables a graph updates among its outputs, so a
// random one (GoMLX's immediate load iterated a map: third_party/PATCHES.md) made every resumed training compile
// a different program, which no compilation cache could find again.
func TestCheckpointLoadKeepsVariableOrder(t *testing.T) {
	cfg, _, ctx := newCheckpointModel(t, oryx.OryxTG)
	// Variables created after the model's, in an order that is neither sorted nor the model's.
	for _, name := range []string{"z", "a", "m", "b"} {
		ctx.InAbsPath("/AdamOptimizer/zz").VariableWithValue(name, []float32{1}).SetTrainable(false)
	}
	dir := t.TempDir()
	require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx)) // creates global_step when missing
	var saved []string
	for v := range ctx.IterVariables() {
		saved = append(saved, v.ScopeAndName())
	}
	for range 3 {
		_, loaded, err := oryx.LoadCheckpoint(dir, nil)
		require.NoError(t, err)
		var got []string
		for v := range loaded.IterVariables() {
			got = append(got, v.ScopeAndName())
		}
		require.Equal(t, saved, got)
	}
}

// TestCheckpointConfigMismatch: loading with a different requested config is refused, naming every field.
func TestCheckpointConfigMismatch(t *testing.T) {
	dir := t.TempDir()
	tiny, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	require.NoError(t, oryx.InitCheckpoint(dir, tiny, 1))

	small, err := oryx.Preset("small", oryx.OryxTG)
	require.NoError(t, err)
	_, _, err = oryx.LoadCheckpoint(dir, &small)
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "checkpoint "+dir+": config differs from the requested one")
	for _, d := range tiny.Diff(small) {
		assert.Contains(t, msg, d)
	}
	for _, f := range []string{"vocab: 256 vs 512", "d_model: 64 vs 128", "layers: 2 vs 4", "heads: 2 vs 4",
		"mlp_hidden: 128 vs 256", "chunk: 16 vs 32"} {
		assert.Contains(t, msg, f)
	}
	assert.NotContains(t, msg, "key_dim") // equal fields are not named

	other, err := oryx.Preset("tiny", oryx.OryxTM)
	require.NoError(t, err)
	_, _, err = oryx.LoadCheckpoint(dir, &other)
	require.ErrorContains(t, err, "variant: oryx-tg vs oryx-tm")
	require.ErrorContains(t, err, "linear_mixer: gdn vs mamba2")

	// Saving a different config into a directory with checkpoints is refused too.
	_, _, ctx := newCheckpointModel(t, oryx.OryxTM)
	err = oryxtest.SaveCheckpoint(t, dir, other, ctx)
	require.ErrorContains(t, err, "different config")
	require.ErrorContains(t, err, "variant: oryx-tg vs oryx-tm")
	// And saving a context that does not match the config.
	err = oryxtest.SaveCheckpoint(t, t.TempDir(), tiny, ctx)
	require.ErrorContains(t, err, "do not match the config")
}

// TestCheckpointBadDirectories: missing, corrupted or invalid config.json, empty and missing directories,
// a directory with a config but no checkpoint files: each gives a clear error.
func TestCheckpointBadDirectories(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.Transformer)
	require.NoError(t, err)
	good := t.TempDir()
	require.NoError(t, oryx.InitCheckpoint(good, cfg, 5))
	names, err := oryx.ListCheckpoints(good)
	require.NoError(t, err)
	require.Len(t, names, 1)

	copyDir := func(t *testing.T, skip string) string {
		dst := t.TempDir()
		entries, err := os.ReadDir(good)
		require.NoError(t, err)
		for _, e := range entries {
			if e.Name() == skip {
				continue
			}
			data, err := os.ReadFile(filepath.Join(good, e.Name()))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644))
		}
		return dst
	}

	t.Run("missing config.json", func(t *testing.T) {
		dir := copyDir(t, oryx.ConfigFileName)
		_, _, err := oryx.LoadCheckpoint(dir, nil)
		require.ErrorContains(t, err, "checkpoint "+dir+": missing config.json")
	})
	t.Run("corrupted config.json", func(t *testing.T) {
		dir := copyDir(t, "")
		require.NoError(t, os.WriteFile(filepath.Join(dir, oryx.ConfigFileName), []byte(`{"variant": "oryx-tg", "voc`), 0o644))
		_, _, err := oryx.LoadCheckpoint(dir, nil)
		require.ErrorContains(t, err, "invalid config.json")
		require.ErrorContains(t, err, filepath.Join(dir, oryx.ConfigFileName))
	})
	t.Run("invalid config.json", func(t *testing.T) {
		dir := copyDir(t, "")
		bad := cfg
		bad.DModel = -1
		require.NoError(t, oryx.SaveConfig(bad, filepath.Join(dir, oryx.ConfigFileName)))
		_, _, err := oryx.LoadCheckpoint(dir, nil)
		require.ErrorContains(t, err, "config field d_model")
	})
	t.Run("config of another model", func(t *testing.T) {
		dir := copyDir(t, "")
		other, err := oryx.Preset("tiny", oryx.OryxTG)
		require.NoError(t, err)
		require.NoError(t, oryx.SaveConfig(other, filepath.Join(dir, oryx.ConfigFileName)))
		_, _, err = oryx.LoadCheckpoint(dir, nil)
		// The config recorded in the checkpoint names the difference before the weights are counted.
		require.ErrorContains(t, err, "config.json differs from the config the weights were saved with")
		require.ErrorContains(t, err, "variant: oryx-tg vs transformer")
	})
	t.Run("truncated data", func(t *testing.T) {
		dir := copyDir(t, "")
		bin := filepath.Join(dir, names[0]+".bin")
		data, err := os.ReadFile(bin)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(bin, data[:len(data)/2], 0o644))
		_, _, err = oryx.LoadCheckpoint(dir, nil)
		require.ErrorContains(t, err, "loading "+names[0])
	})
	t.Run("empty directory", func(t *testing.T) {
		dir := t.TempDir()
		_, _, err := oryx.LoadCheckpoint(dir, nil)
		require.ErrorContains(t, err, "missing config.json")
	})
	t.Run("no checkpoint files", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, oryx.SaveConfig(cfg, filepath.Join(dir, oryx.ConfigFileName)))
		_, _, err := oryx.LoadCheckpoint(dir, nil)
		require.ErrorContains(t, err, "no checkpoint files")
	})
	t.Run("no directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "nope")
		_, _, err := oryx.LoadCheckpoint(dir, nil)
		require.ErrorContains(t, err, "checkpoint "+dir+": directory does not exist")
	})
	t.Run("init refuses a directory with checkpoints", func(t *testing.T) {
		dir := copyDir(t, "")
		require.ErrorContains(t, oryx.InitCheckpoint(dir, cfg, 5), "already holds 1 checkpoint")
	})
}

// TestCheckpointCrashSafety: config.json is written through a temporary file that never stays behind, the
// GoMLX files are staged outside the listing, and a failed save leaves no trace.
func TestCheckpointCrashSafety(t *testing.T) {
	cfg, _, ctx := newCheckpointModel(t, oryx.OryxTG)
	dir := t.TempDir()
	require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx))
	require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx))
	onlyCheckpointFiles := func() {
		t.Helper()
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			n := e.Name()
			assert.False(t, e.IsDir(), "left-over folder %s", n)
			assert.NotContains(t, n, ".tmp", "left-over temporary file %s", n)
			assert.True(t, n == oryx.ConfigFileName || strings.HasPrefix(n, "checkpoint-") &&
				(strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".bin")), "unexpected file %s", n)
		}
	}
	onlyCheckpointFiles()
	got, err := oryx.LoadConfig(filepath.Join(dir, oryx.ConfigFileName))
	require.NoError(t, err)
	require.Equal(t, cfg, got)

	// A failed save (a context without the model) writes nothing.
	before, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Error(t, oryxtest.SaveCheckpoint(t, dir, cfg, context.New()))
	after, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Equal(t, len(before), len(after))
	onlyCheckpointFiles()

	// A checkpoint whose .json is not there yet (a save interrupted between the two renames) is not listed,
	// and loading picks the complete one.
	names, err := oryx.ListCheckpoints(dir)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "checkpoint-n9999999-20990101-000000-initial.bin"), []byte("partial"), 0o644))
	names2, err := oryx.ListCheckpoints(dir)
	require.NoError(t, err)
	require.Equal(t, names, names2)
	_, _, err = oryx.LoadCheckpoint(dir, &cfg)
	require.NoError(t, err)
}

// TestInitCheckpointDeterministic: the same seed gives the same weights.
func TestInitCheckpointDeterministic(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	a, b := t.TempDir(), t.TempDir()
	require.NoError(t, oryx.InitCheckpoint(a, cfg, 9))
	require.NoError(t, oryx.InitCheckpoint(b, cfg, 9))
	ma, ca, err := oryx.LoadCheckpoint(a, &cfg)
	require.NoError(t, err)
	mb, cb, err := oryx.LoadCheckpoint(b, &cfg)
	require.NoError(t, err)
	require.Equal(t, oryxtest.ParallelLogits(t, ma, ca, checkpointTokens, checkpointModes),
		oryxtest.ParallelLogits(t, mb, cb, checkpointTokens, checkpointModes))
}

// TestCheckpointNonFiniteWeights: a checkpoint whose weights hold a NaN (or an infinity) is refused on load
// with the tensor named; evaluating it used to give scores (acc 0.25) with exit status 0.
func TestCheckpointNonFiniteWeights(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.Transformer)
	require.NoError(t, err)
	good := t.TempDir()
	require.NoError(t, oryx.InitCheckpoint(good, cfg, 5))
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
		_, ctx, err := oryx.LoadCheckpoint(good, nil)
		require.NoError(t, err)
		v := ctx.GetVariableByScopeAndName("/embeddings", "embeddings")
		require.NotNil(t, v)
		val, err := v.Value()
		require.NoError(t, err)
		flat := tensors.MustCopyFlatData[float32](val)
		flat[7] = bad
		require.NoError(t, v.SetValue(tensors.FromFlatDataAndDimensions(flat, val.Shape().Dimensions...)))
		dir := t.TempDir()
		require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx))
		_, _, err = oryx.LoadCheckpoint(dir, nil)
		require.ErrorContains(t, err, "/embeddings/embeddings holds 1 non-finite value(s)")
	}
}

// TestSaveNeedsOpenDirectory: a checkpoint is saved only through the directory's one writer: a nil or closed
// CheckpointDir is refused before anything is written, and while one is open no other writer (a second
// OpenCheckpointDir, InitCheckpoint) gets the directory.
func TestSaveNeedsOpenDirectory(t *testing.T) {
	cfg, _, ctx := newCheckpointModel(t, oryx.GDN)
	dir := filepath.Join(t.TempDir(), "ckpt")
	require.ErrorIs(t, oryx.SaveCheckpoint(nil, cfg, ctx), runwriter.ErrNotOpen)
	w, err := oryx.OpenCheckpointDir(dir, oryx.CheckpointDirOptions{})
	require.NoError(t, err)
	_, err = oryx.OpenCheckpointDir(dir, oryx.CheckpointDirOptions{})
	require.ErrorIs(t, err, runwriter.ErrBusy)
	require.ErrorContains(t, err, dir)
	require.ErrorIs(t, oryx.InitCheckpoint(dir, cfg, 1), runwriter.ErrBusy)
	require.NoError(t, oryx.SaveCheckpoint(w, cfg, ctx))
	require.NoError(t, w.Close())
	err = oryx.SaveCheckpoint(w, cfg, ctx)
	require.ErrorIs(t, err, runwriter.ErrNotOpen)
	require.ErrorContains(t, err, dir)
	names, err := oryx.ListCheckpoints(dir)
	require.NoError(t, err)
	require.Len(t, names, 1, "the refused save wrote nothing")
}

// TestCheckpointsAreOnlyTheWritersNames: the user's files beside the checkpoints that are named like them
// ("checkpoint-backup.json" and its .bin, "checkpoint-notes.json", a "checkpoint-old/" folder) are not
// checkpoints: they are neither listed, nor loaded as the newest, nor removed when older checkpoints are
// pruned (listed by the prefix alone, "checkpoint-backup" sorted before the writer's names and was pruned
// as the oldest checkpoint); one that GoMLX's loader would take for the newest ("checkpoint-zz.json") is
// refused on load, naming it.
func TestCheckpointsAreOnlyTheWritersNames(t *testing.T) {
	cfg, m, ctx := newCheckpointModel(t, oryx.GDN)
	dir := t.TempDir()
	require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx))
	mine := []string{"checkpoint-backup.json", "checkpoint-backup.bin", "checkpoint-notes.json", "checkpoint-old/weights.json",
		"checkpoint-zz.json"}
	for _, n := range mine {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte("mine"), 0o644))
	}
	for range oryx.CheckpointKeep + 1 {
		perturb(t, ctx, 1, 0.125)
		require.NoError(t, oryxtest.SaveCheckpoint(t, dir, cfg, ctx))
	}
	names, err := oryx.ListCheckpoints(dir)
	require.NoError(t, err)
	require.Len(t, names, oryx.CheckpointKeep)
	for _, n := range names {
		require.True(t, strings.HasPrefix(n, "checkpoint-n"), "listed %s", n)
	}
	for _, n := range mine {
		data, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err, "the user's %s", n)
		require.Equal(t, "mine", string(data), n)
	}
	// GoMLX's loader takes the last "checkpoint-*.json" for the newest: a user's file that sorts after the
	// checkpoints is refused, naming it; without those the newest checkpoint loads.
	_, _, err = oryx.LoadCheckpoint(dir, &cfg)
	require.ErrorContains(t, err, filepath.Join(dir, "checkpoint-zz.json")+" is named like a checkpoint but is not one")
	require.NoError(t, os.Remove(filepath.Join(dir, "checkpoint-zz.json")))
	_, _, err = oryx.LoadCheckpoint(dir, &cfg)
	require.ErrorContains(t, err, filepath.Join(dir, "checkpoint-notes.json")+" is named like a checkpoint but is not one")
	require.NoError(t, os.Remove(filepath.Join(dir, "checkpoint-notes.json")))
	m2, ctx2, err := oryx.LoadCheckpoint(dir, &cfg)
	require.NoError(t, err)
	require.Equal(t, oryxtest.ParallelLogits(t, m, ctx, checkpointTokens, checkpointModes),
		oryxtest.ParallelLogits(t, m2, ctx2, checkpointTokens, checkpointModes), "the newest checkpoint loads")
}
