package train

import (
	"bufio"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// tinyRun is a 6-step run of the tiny preset on the synthetic language: 4 sequences of 64 tokens per step in
// two micro-batches, a checkpoint every 2 steps and a validation every 3.
func tinyRun(t testing.TB, v oryx.Variant, out string) Run {
	cfg := oryxtest.TinyConfig(t, v)
	return Run{
		Name: "test-" + string(v), Model: cfg, Tokenizer: "bytes", Data: datasets.DataSpec{Spec: "synth"}, Out: out,
		Log: testLog{t},
		Train: TrainConfig{SeqLen: 64, Batch: 4, MicroBatch: 2, Steps: 6, LR: 3e-3, MinLRRatio: 0.1, WarmupSteps: 2,
			Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1, ClipNorm: 1, BlockLen: 16, AttentionProb: 0.5, Seed: 7,
			CheckpointEvery: 2, EvalEvery: 3, EvalBatches: 2},
	}
}

// tinyTrain is the tiny recipes' training config (recipes/recipe's tinyTrain), the shape the trainer's unit
// tests and benchmark start from.
func tinyTrain() TrainConfig {
	return TrainConfig{
		SeqLen: 256, Batch: 16, MicroBatch: 16, Steps: 300,
		LR: 3e-3, MinLRRatio: 0.1, WarmupSteps: 30, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1,
		ClipNorm: 1, Precision: "f32", BlockLen: 64, AttentionProb: 0.5, Seed: 1,
		CheckpointEvery: 50, KeepCheckpoints: 2, EvalEvery: 50, EvalBatches: 4, LogEvery: 1,
	}
}

type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func trainLosses(t *testing.T, dir string) []float64 {
	logged, _, err := rundir.ReadMetrics(dir)
	require.NoError(t, err)
	var out []float64
	for i, r := range logged {
		require.Equal(t, i+1, r.Step, "metrics.jsonl step order")
		out = append(out, float64(r.Loss))
	}
	return out
}

func TestTrainWritesEverything(t *testing.T) {
	out := t.TempDir()
	s, err := Train(tinyRun(t, oryx.OryxTG, out))
	require.NoError(t, err)
	require.Equal(t, 6, s.Steps)
	require.Equal(t, int64(6*4*64), s.Tokens)
	require.Len(t, s.ValLoss, 3)
	for _, f := range []string{"config.json", "run.json", "metrics.jsonl", "summary.json", "curves.png", "trainer-state-00000006.json"} {
		require.FileExists(t, filepath.Join(out, f))
	}
	runJSON, err := os.ReadFile(filepath.Join(out, "run.json"))
	require.NoError(t, err)
	require.Contains(t, string(runJSON), `"lr_schedule": "cosine"`, "run.json records the schedule (default filled in)")
	require.Contains(t, string(runJSON), `"mode_training": "block-random"`)
	f, err := os.Open(filepath.Join(out, "curves.png"))
	require.NoError(t, err)
	defer f.Close()
	_, err = png.Decode(f)
	require.NoError(t, err)
	losses := trainLosses(t, out)
	require.Len(t, losses, 6)
	require.InDelta(t, math.Log(320), losses[0], 0.3, "the first loss is about ln V")
	require.Less(t, losses[5], losses[0], "the loss falls")
	_, val, err := rundir.ReadMetrics(out)
	require.NoError(t, err)
	require.Len(t, val, 2)
	// Kept checkpoints and their state files agree (steps 2, 4, 6 with keep 3).
	names, err := oryx.ListCheckpoints(out)
	require.NoError(t, err)
	require.Len(t, names, 3)
	for _, step := range []int{2, 4, 6} {
		require.FileExists(t, filepath.Join(out, rundir.StateFileName(step)))
	}
}

// TestResumeIsExact: a run stopped after 3 steps (its last checkpoint at step 2) and run again ends with
// the same loss curve, bit for bit, and the same weights as the uninterrupted run.
func TestResumeIsExact(t *testing.T) {
	full := t.TempDir()
	_, err := Train(tinyRun(t, oryx.OryxTG, full))
	require.NoError(t, err)

	cut := t.TempDir()
	r := tinyRun(t, oryx.OryxTG, cut)
	_, err = train(r, &testControl{stopAfter: 3})
	require.ErrorIs(t, err, errSimulatedKill)
	require.Len(t, trainLosses(t, cut), 3, "the killed run logged 3 steps")
	s, err := Train(tinyRun(t, oryx.OryxTG, cut))
	require.NoError(t, err)
	require.Equal(t, 2, s.ResumedAt)

	require.Equal(t, trainLosses(t, full), trainLosses(t, cut))
	requireSameWeights(t, full, cut)
}

func requireSameWeights(t *testing.T, a, b string) {
	_, ca, err := oryx.LoadCheckpoint(a, nil)
	require.NoError(t, err)
	_, cb, err := oryx.LoadCheckpoint(b, nil)
	require.NoError(t, err)
	n := 0
	for v := range ca.IterVariables() {
		w := cb.GetVariableByScopeAndName(v.Scope(), v.Name())
		require.NotNil(t, w, v.ScopeAndName())
		require.Equal(t, v.MustValue().Value(), w.MustValue().Value(), v.ScopeAndName())
		n++
	}
	require.Greater(t, n, 20)
}

// TestGradientAccumulation: 4 sequences as 2 micro-batches of 2 give the same losses and updates as one
// batch of 4 (to float32 rounding of the summation order).
func TestGradientAccumulation(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ra := tinyRun(t, oryx.OryxTM, a)
	ra.Train.Steps, ra.Train.EvalBatches = 4, 0
	rb := ra
	rb.Out, rb.Train.MicroBatch = b, 4
	_, err := Train(ra)
	require.NoError(t, err)
	_, err = Train(rb)
	require.NoError(t, err)
	la, lb := trainLosses(t, a), trainLosses(t, b)
	require.InDeltaSlice(t, la, lb, 1e-4)
	require.NotEqual(t, la[0], la[3])
}

// TestNonFiniteStepIsSkipped: a step whose loss is NaN is skipped (weights unchanged, counted) and the run
// goes on; max_bad_steps NaN steps in a row stop it with an error, leaving the last checkpoint loadable.
func TestNonFiniteStepIsSkipped(t *testing.T) {
	out := t.TempDir()
	r := tinyRun(t, oryx.Transformer, out)
	r.Train.EvalBatches = 0
	s, err := train(r, &testControl{lossScaleAt: func(step int) float64 {
		if step == 3 {
			return math.NaN()
		}
		return 1
	}})
	require.NoError(t, err)
	require.Equal(t, 1, s.Skipped)
	logged, _, err := rundir.ReadMetrics(out)
	require.NoError(t, err)
	require.True(t, logged[3].Skipped)
	require.True(t, math.IsNaN(float64(logged[3].GradNorm)))
	require.False(t, logged[4].Skipped)

	out2 := t.TempDir()
	r = tinyRun(t, oryx.Transformer, out2)
	r.Train.EvalBatches, r.Train.MaxBadSteps = 0, 2
	_, err = train(r, &testControl{lossScaleAt: func(step int) float64 {
		if step >= 2 {
			return math.Inf(1)
		}
		return 1
	}})
	require.ErrorContains(t, err, "2 non-finite steps in a row")
	names, err := oryx.ListCheckpoints(out2)
	require.NoError(t, err)
	require.Len(t, names, 1, "only the step-2 checkpoint")
	_, _, err = oryx.LoadCheckpoint(out2, nil)
	require.NoError(t, err)
}

func TestEveryVariantTrainsAndBF16(t *testing.T) {
	for _, v := range oryx.Variants {
		r := tinyRun(t, v, t.TempDir())
		r.Train.Steps, r.Train.EvalEvery = 3, 0
		s, err := Train(r)
		require.NoError(t, err, v)
		want := map[oryx.Variant]int{oryx.Transformer: 1, oryx.Mamba2: 1, oryx.GDN: 1}[v]
		if want == 0 {
			want = 3
		}
		require.Len(t, s.ValLoss, want, v)
	}
	r := tinyRun(t, oryx.OryxTG, t.TempDir())
	r.Train.Steps, r.Train.Precision = 3, "bf16"
	s, err := Train(r)
	require.NoError(t, err)
	require.False(t, math.IsNaN(float64(s.TrainLoss)))
	t.Logf("bf16: %+v", s.ValLoss)
}

func TestBadRunConfigErrors(t *testing.T) {
	r := tinyRun(t, oryx.OryxTG, t.TempDir())
	r.Train.MicroBatch = 3
	_, err := Train(r)
	require.ErrorContains(t, err, "micro_batch")
	r = tinyRun(t, oryx.OryxTG, t.TempDir())
	r.Model.Vocab = 256
	_, err = Train(r)
	require.ErrorContains(t, err, "258 tokens")
	r = tinyRun(t, oryx.OryxTG, t.TempDir())
	r.Data = datasets.DataSpec{Spec: filepath.Join(t.TempDir(), "missing-*.parquet")}
	_, err = Train(r)
	require.ErrorContains(t, err, "--data")
	// Resuming with another trajectory is refused.
	out := t.TempDir()
	r = tinyRun(t, oryx.OryxTG, out)
	r.Train.Steps = 2
	_, err = Train(r)
	require.NoError(t, err)
	r.Train.LR = 1e-2
	_, err = Train(r)
	require.ErrorContains(t, err, "lr: 0.003 vs 0.01")
	// Complementary mode training needs two readouts.
	r = tinyRun(t, oryx.Transformer, t.TempDir())
	r.Train.ModeTraining = ModeTrainingComplementary
	_, err = Train(r)
	require.ErrorContains(t, err, "--mode-training complementary")
}

// TestRunCheckResolvesOnce: Run.Check fills the defaults and checks the training config once, the config
// Train then uses (a recipe command plans with it); a config changed after the check is checked again by Train,
// so a bad field set after Check is still an error naming it, not a trainer built on it.
func TestRunCheckResolvesOnce(t *testing.T) {
	r := tinyRun(t, oryx.Mamba2, t.TempDir())
	r.Train.Steps, r.Train.EvalBatches = 2, 0
	require.NoError(t, r.Check())
	want, err := tinyRun(t, oryx.Mamba2, "").Train.Resolve()
	require.NoError(t, err)
	want.Steps, want.EvalBatches = 2, 0
	require.Equal(t, want, r.Train, "Check leaves the resolved config in the run")
	require.Equal(t, 1, r.Train.LogEvery, "a default filled")
	s, err := Train(r)
	require.NoError(t, err)
	require.Equal(t, 2, s.Steps)

	bad := tinyRun(t, oryx.Mamba2, t.TempDir())
	require.NoError(t, bad.Check())
	bad.Train.MicroBatch = 3 // after the check
	_, err = Train(bad)
	require.ErrorContains(t, err, "training config: micro_batch: 3")
}

// TestKill9Resume trains in a child process, kills it with SIGKILL as soon as it has written its second
// checkpoint (possibly in the middle of a later save), runs the same command again, and checks that the
// loss curve equals the uninterrupted run's.
func TestKill9Resume(t *testing.T) {
	// The XLA suite runs -short to trim sweeps, but a bit-identical resume after kill -9 is one of the things
	// it exists to check, so -short skips this only on the pure-Go backend.
	if testing.Short() && backend.IsPureGo(backend.MustGet()) {
		t.Skip("-short: spawns processes")
	}
	full := t.TempDir()
	rf := tinyRun(t, oryx.GDN, full)
	rf.Train.Steps, rf.Train.CheckpointEvery, rf.Train.EvalBatches = 12, 1, 0
	_, err := Train(rf)
	require.NoError(t, err)

	out := t.TempDir()
	child := func() *exec.Cmd { return childTraining(out, oryx.GDN, 12, 1) }
	cmd := child()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(60 * time.Second)
	for {
		names, _ := oryx.ListCheckpoints(out)
		if len(names) >= 2 {
			break
		}
		require.True(t, time.Now().Before(deadline), "child made no checkpoints")
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err) // ErrProcessDone: the child finished first (a fast machine); the rerun then just resumes at the end
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
		}
	}()
	_ = cmd.Wait()

	outp, err := child().CombinedOutput()
	require.NoError(t, err, "resumed child:\n%s", outp)
	require.Contains(t, string(outp), "resuming at step")
	require.Equal(t, trainLosses(t, full), trainLosses(t, out))
	requireSameWeights(t, full, out)
}

// TestMixtureResumeIsExact: the study's mixture (language, MQAR, needles) resumes exactly too. What it adds to
// TestResumeIsExact (the same model, cut and resumed alike) is the mixture loader's position, the same on any
// backend: -short (the XLA suite, where its three trainings compile three times) leaves it to the pure-Go
// suite; XLA's resume exactness is TestResumeIsExact's and TestKill9Resume's.
func TestMixtureResumeIsExact(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the mixture loader's resume is backend-independent (the pure-Go suite runs it)")
	}
	full, cut := t.TempDir(), t.TempDir()
	r := tinyRun(t, oryx.OryxTG, full)
	r.Data = datasets.DataSpec{Spec: "mix:synth=1,mqar=1,needle=1,pairs=8"}
	r.Train.EvalBatches, r.Train.SeqLen = 1, 160
	_, err := Train(r)
	require.NoError(t, err)
	r.Out = cut
	_, err = train(r, &testControl{stopAfter: 3})
	require.ErrorIs(t, err, errSimulatedKill)
	_, err = Train(r)
	require.NoError(t, err)
	require.Equal(t, trainLosses(t, full), trainLosses(t, cut))
}

// TestTextMixtureTrainsResumesAndValidatesHeldOut: a run on the mixture of the synthetic language and a
// plain-text file resumes exactly, and its validation set is the file's held-out part, not the synthetic
// language. Backend-independent like TestMixtureResumeIsExact, so -short leaves it to the pure-Go
// suite.
func TestTextMixtureTrainsResumesAndValidatesHeldOut(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the text loader's resume is backend-independent (the pure-Go suite runs it)")
	}
	var b strings.Builder
	for i := 0; b.Len() < 20000; i++ {
		fmt.Fprintf(&b, "Line %d of a small English text, with words and numbers.\n", i)
	}
	file := filepath.Join(t.TempDir(), "english.txt")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
	spec := datasets.DataSpec{Spec: "mix:synth=1,text:" + file + "=2"}

	full, cut := t.TempDir(), t.TempDir()
	r := tinyRun(t, oryx.GDN, full)
	r.Data = spec
	s, err := Train(r)
	require.NoError(t, err)
	require.Contains(t, s.ValidationSet, "held-out bytes of text:"+file)
	require.NotContains(t, s.ValidationSet, "synth")
	// (datasets' TestTextHeldOutNeverOverlapsTraining checks that this validation set is HeldOut's.)
	r.Out = cut
	_, err = train(r, &testControl{stopAfter: 3})
	require.ErrorIs(t, err, errSimulatedKill)
	_, err = Train(r)
	require.NoError(t, err)
	require.Equal(t, trainLosses(t, full), trainLosses(t, cut))
}

// TestTrainOnParquetAndPretokenized: the two file-based data forms train, resume exactly and agree with each
// other (a pre-tokenized corpus packs the same token stream as the text it came from). Each training compiles
// its graphs again; -short (the XLA suite) resumes the Parquet run only: a data form's resume position is
// the loader's, the same on any backend, and the pure-Go suite resumes both.
func TestTrainOnParquetAndPretokenized(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "corpus.parquet")
	require.NoError(t, datasets.WriteSynthLangParquet(pq, datasets.SynthLangConfig{Seed: 5}, 400))
	tok, err := tokenizers.Load("bytes")
	require.NoError(t, err)
	ptk := filepath.Join(dir, "tokens")
	_, err = datasets.Pretokenize(datasets.PretokenizeConfig{Input: pq, OutDir: ptk, Tokenizer: tok})
	require.NoError(t, err)

	var curves [][]float64
	for _, data := range []string{pq, ptk} {
		full, cut := t.TempDir(), t.TempDir()
		r := tinyRun(t, oryx.GDN, full)
		r.Data, r.ValData = datasets.DataSpec{Spec: data}, datasets.DataSpec{Spec: "synth"}
		r.Train.Steps, r.Train.EvalBatches = 4, 1
		_, err := Train(r)
		require.NoError(t, err, data)
		curves = append(curves, trainLosses(t, full))
		if testing.Short() && data == ptk {
			continue
		}
		r.Out = cut
		_, err = train(r, &testControl{stopAfter: 3})
		require.ErrorIs(t, err, errSimulatedKill)
		_, err = Train(r)
		require.NoError(t, err)
		require.Equal(t, trainLosses(t, full), trainLosses(t, cut), data)
	}
	require.Equal(t, curves[0], curves[1], "parquet text and its pre-tokenized shards give the same run")
}

// TestInterruptSavesAndResumes: SIGINT makes a training process save a checkpoint and exit with
// ErrInterrupted; the same command resumes from that step.
func TestInterruptSavesAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: spawns processes")
	}
	out := t.TempDir()
	child := func() *exec.Cmd { return childTraining(out, oryx.Transformer, 40, 1000) }
	cmd := child()
	var first strings.Builder
	cmd.Stdout, cmd.Stderr = &first, &first
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(60 * time.Second)
	for { // interrupt once two steps are logged
		data, _ := os.ReadFile(filepath.Join(out, "metrics.jsonl"))
		if strings.Count(string(data), "\n") >= 2 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the child logged no steps")
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait(), "%s", first.String())
	require.Contains(t, first.String(), "interrupted")
	names, err := oryx.ListCheckpoints(out)
	require.NoError(t, err)
	require.Len(t, names, 1, "the interrupted run saved a checkpoint (its first: checkpoint_every is larger than the run)")
	require.NotContains(t, names[0], "step-00000040", "saved before the end")
	outp, err := child().CombinedOutput()
	require.NoError(t, err, "%s", outp)
	require.Contains(t, string(outp), "resuming at step")
}

// childTraining returns a command that reruns this test binary as TestTrainingChild: a tinyRun of variant v in
// out with the given steps and checkpoint interval, no validation, logging to stdout; it prints "interrupted"
// when stopped by SIGINT. The process tests (kill -9, SIGINT) drive it.
func childTraining(out string, v oryx.Variant, steps, checkpointEvery int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestTrainingChild$", "-test.v")
	cmd.Env = append(os.Environ(), "ORYX_CHILD_RUN="+fmt.Sprintf("%s|%s|%d|%d", out, v, steps, checkpointEvery))
	return cmd
}

// TestTrainingChild is the child process of the process tests (it does nothing in a normal test run).
func TestTrainingChild(t *testing.T) {
	spec := os.Getenv("ORYX_CHILD_RUN")
	if spec == "" {
		t.Skip("child of TestKill9Resume and TestInterruptSavesAndResumes only")
	}
	f := strings.Split(spec, "|")
	require.Len(t, f, 4)
	r := tinyRun(t, oryx.Variant(f[1]), f[0])
	_, err := fmt.Sscan(f[2], &r.Train.Steps)
	require.NoError(t, err)
	_, err = fmt.Sscan(f[3], &r.Train.CheckpointEvery)
	require.NoError(t, err)
	r.Train.EvalBatches, r.Log = 0, os.Stdout
	_, err = Train(r)
	if errors.Is(err, ErrInterrupted) {
		fmt.Println("interrupted")
		return
	}
	require.NoError(t, err)
}

// TestProbeLinesSurviveResume: Run.Probe is measured at every validation point on the weights of that step
// (here the sum of one weight, read from the context), written to metrics.jsonl as "probe" lines, and a
// killed and resumed run ends with the same probe lines as the uninterrupted run.
func TestProbeLinesSurviveResume(t *testing.T) {
	probe := func(tr *Trainer, step int) (map[string]float64, error) {
		v := tr.Context().GetVariableByScopeAndName("/layer_000/wk", "weight")
		if v == nil {
			return nil, errors.New("no /layer_000/wk")
		}
		var sum float64
		for _, x := range tensors.MustCopyFlatData[float32](v.MustValue()) {
			sum += float64(x)
		}
		return map[string]float64{"wk_sum": sum}, nil
	}
	probes := func(dir string) []rundir.ProbeRecord {
		p, err := rundir.ReadProbes(dir)
		require.NoError(t, err)
		return p
	}
	full := t.TempDir()
	r := tinyRun(t, oryx.OryxTG, full)
	r.Probe = probe
	_, err := Train(r)
	require.NoError(t, err)
	want := probes(full)
	require.Len(t, want, 2, "validation at steps 3 and 6")
	require.Equal(t, []int{3, 6}, []int{want[0].Step, want[1].Step})
	skip := t.TempDir()
	r = tinyRun(t, oryx.OryxTG, skip)
	r.Probe = func(tr *Trainer, step int) (map[string]float64, error) {
		if step != 6 {
			return nil, nil
		}
		return probe(tr, step)
	}
	_, err = Train(r)
	require.NoError(t, err)
	require.Len(t, probes(skip), 1, "nil: no line at step 3")
	require.Equal(t, want[1].Values, probes(skip)[0].Values)
	require.NotEqual(t, want[0].Values["wk_sum"], want[1].Values["wk_sum"], "the probe sees the weights of its step")

	cut := t.TempDir()
	r = tinyRun(t, oryx.OryxTG, cut)
	r.Probe = probe
	_, err = train(r, &testControl{stopAfter: 3})
	require.ErrorIs(t, err, errSimulatedKill)
	require.Len(t, probes(cut), 1, "the killed run measured step 3 (after its last checkpoint, at step 2)")
	r = tinyRun(t, oryx.OryxTG, cut)
	r.Probe = probe
	_, err = Train(r)
	require.NoError(t, err)
	got := probes(cut)
	require.Len(t, got, 2)
	for i := range want {
		require.Equal(t, want[i].Step, got[i].Step)
		require.Equal(t, want[i].Values, got[i].Values)
	}
}
