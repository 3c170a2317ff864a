package recipe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
)

func TestRecipeTable(t *testing.T) {
	require.Len(t, Names(), 25)
	for _, size := range []string{"tiny", "130m", "370m", "760m", "1.4b"} {
		var budget int64
		for _, v := range oryx.Variants {
			r, err := Lookup(string(v) + "-" + size)
			require.NoError(t, err)
			require.NoError(t, r.Train.WithDefaults().Validate(), r.Name)
			b := int64(r.Train.Steps) * r.Train.TokensPerStep()
			if budget == 0 {
				budget = b
			}
			require.Equal(t, budget, b, "%s: every variant of a size has the same token budget", r.Name)
			_, err = r.ModelConfig(258)
			require.NoError(t, err)
		}
	}
	_, err := Lookup("oryx-tg-2b")
	require.ErrorContains(t, err, "oryx-tg-1.4b")
}

func TestPlanJSON(t *testing.T) {
	var out, errb bytes.Buffer
	require.NoError(t, MainArgs("oryx-tm-130m", []string{"--plan"}, &out, &errb))
	var p Plan
	require.NoError(t, json.Unmarshal(out.Bytes(), &p))
	rep := oryx.CountParams(p.Model)
	require.Equal(t, rep.Total, p.Params)
	require.Equal(t, "130m", p.Preset)
	require.Equal(t, 2048, p.Train.SeqLen)
	if backend.IsPureGo(backend.MustGet()) {
		require.Equal(t, "f32", p.Train.Precision, "bf16 is not used on the pure-Go backend unless asked for")
	} else {
		rec, err := Lookup("oryx-tm-130m")
		require.NoError(t, err)
		require.Equal(t, rec.Train.Precision, p.Train.Precision, "XLA keeps the recipe's precision")
	}
	require.Equal(t, p.Train.Batch/p.Train.MicroBatch, p.AccumSteps)
	require.InDelta(t, 3*oryx.FLOPsPerToken(p.Model, 2048, 0.5), p.FLOPsPerToken, 1)
	require.Greater(t, p.ProbeGFLOPs, 0.0)
	require.Greater(t, p.EstimatedHours, 0.0)

	// --tokens/--batch keep or set the budget; steps follow.
	out.Reset()
	require.NoError(t, MainArgs("gdn-tiny", []string{"--plan", "--batch", "8", "--tokens", "204800"}, &out, &errb))
	require.NoError(t, json.Unmarshal(out.Bytes(), &p))
	require.Equal(t, 8, p.Train.Batch)
	require.Equal(t, 8, p.Train.MicroBatch)
	require.Equal(t, 100, p.Train.Steps)
	require.Equal(t, 320, p.Model.Vocab, "tiny recipes pad the vocabulary to the byte tokenizer's")
}

func TestMainErrors(t *testing.T) {
	var out, errb bytes.Buffer
	err := MainArgs("oryx-tg-1.4b", []string{"--data", "x", "--tokenizer", "bytes"}, &out, &errb)
	require.ErrorContains(t, err, "does not fit this machine")
	require.ErrorContains(t, err, "xla")
	err = MainArgs("oryx-tg-130m", []string{"--steps", "1", "--batch", "1", "--seq-len", "64"}, &out, &errb)
	require.ErrorContains(t, err, "needs --data")
	n := backend.MustGet().NumDevices()
	err = MainArgs("oryx-tg-tiny", []string{"--devices", fmt.Sprint(n + 1)}, &out, &errb)
	require.ErrorContains(t, err, fmt.Sprintf("has %d device", n))
	err = MainArgs("oryx-tg-tiny", []string{"--micro-batch", "5"}, &out, &errb)
	require.ErrorContains(t, err, "micro_batch")
	err = MainArgs("oryx-tg-tiny", []string{"--tokenizer", "nope.txt"}, &out, &errb)
	require.ErrorContains(t, err, "--tokenizer")
	err = MainArgs("oryx-tg-tiny", []string{"extra"}, &out, &errb)
	require.ErrorContains(t, err, "unexpected arguments")
}

func TestMainTrainsTinyRecipe(t *testing.T) {
	var out, errb bytes.Buffer
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, MainArgs("mamba2-tiny", []string{"--out", dir, "--steps", "3", "--batch", "2", "--seq-len", "32",
		"--eval-batches", "1"}, &out, &errb), errb.String())
	var s Summary
	require.NoError(t, json.Unmarshal(out.Bytes(), &s))
	require.Equal(t, 3, s.Steps)
	require.Contains(t, s.ValLoss, "linear")
}
