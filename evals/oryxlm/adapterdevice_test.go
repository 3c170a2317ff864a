package oryxlm

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/hf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adapterCheck is run by /usr/bin/python3 (torch) with .pytools (lm_eval) on PYTHONPATH: the adapter
// scripts/lmeval_oryx.py on an export, with lm_eval's --device and --batch_size as lm_eval passes them.
const adapterCheck = `
import json, sys
sys.path.insert(0, sys.argv[1])
import torch, lmeval_oryx
exp = sys.argv[2]
req = [(None, [1, 2, 3, 10], [4, 5]), (None, [7], [8, 9, 256]), (None, [5, 6, 7, 8, 9, 10, 11], [12]), (None, [3, 3], [3])]
out = {"has_cuda": torch.cuda.is_available()}
out["default"] = lmeval_oryx.OryxEvalModel(export=exp, dtype="float64")._loglikelihood_tokens(req)
out["cpu"] = lmeval_oryx.OryxEvalModel(export=exp, dtype="float64", device="cpu", batch_size="1")._loglikelihood_tokens(req)
out["batched"] = lmeval_oryx.OryxEvalModel(export=exp, dtype="float64", batch_size="3")._loglikelihood_tokens(req)
for spec in ("A:0-2;L:3-", "linear", "budget:0.5:random"):
    out["one " + spec] = lmeval_oryx.OryxEvalModel(export=exp, dtype="float64", schedule=spec)._loglikelihood_tokens(req)
    out["batched " + spec] = lmeval_oryx.OryxEvalModel(export=exp, dtype="float64", schedule=spec, batch_size=8)._loglikelihood_tokens(req)
for name, kw in (("zero", {"batch_size": 0}), ("auto", {"batch_size": "auto"}), ("cuda", {"device": "cuda:0"})):
    try:
        m = lmeval_oryx.OryxEvalModel(export=exp, **kw)
        out[name] = "accepted on " + str(m.device)
    except ValueError as e:
        out[name] = str(e)
print(json.dumps(out))
`

// TestLMEvalAdapterDeviceAndBatchSize: the lm-eval adapter honours --device (on the CPU it scores what it
// scores without one) and --batch_size (requests of different lengths scored N per forward, right-padded, give
// the scores and greedy flags of one at a time, to 1e-9 in float64, under the default, a range, the linear and a
// random-budget schedule), refuses a --batch_size of 0 or "auto" naming the flag, and, given a CUDA device
// torch does not have (lm_eval's default cuda:0), scores on the CPU saying so on standard error, as lm_eval's
// HFLM does (it used to score on the CPU, one request at a time, whatever was asked, without a word).
// Needs /usr/bin/python3 with torch (make torch) and .pytools (make py-tools); skips without them.
func TestLMEvalAdapterDeviceAndBatchSize(t *testing.T) {
	python := "/usr/bin/python3"
	if exec.Command(python, "-c", "import torch").Run() != nil {
		t.Skip("no /usr/bin/python3 with torch: make torch")
	}
	var pytools string
	wd, err := os.Getwd()
	require.NoError(t, err)
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".pytools", "lm_eval")); err == nil {
			pytools = filepath.Join(d, ".pytools")
			break
		}
		if filepath.Dir(d) == d {
			t.Skip("no .pytools with lm_eval: make py-tools")
		}
	}
	scripts, err := filepath.Abs(filepath.Join("..", "..", "scripts"))
	require.NoError(t, err)
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	cfg.Vocab = 320
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "export")
	require.NoError(t, oryx.InitCheckpoint(ckpt, cfg, 9))
	require.NoError(t, hf.Export(ckpt, exp))
	cmd := exec.Command(python, "-c", adapterCheck, scripts, exp)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pytools, "PYTHONDONTWRITEBYTECODE=1", "HF_HUB_OFFLINE=1",
		"HF_HOME="+filepath.Join(dir, "hf-home"))
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	out, err := cmd.Output()
	stderr := errBuf.String()
	require.NoError(t, err, stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal(out, &res), string(out))
	assert.Equal(t, res["default"], res["cpu"], "--device cpu scores what the default scores")
	assert.Len(t, res["cpu"], 4)
	sameScores := func(a, b any, what string) {
		ra, rb := a.([]any), b.([]any)
		require.Len(t, rb, len(ra), what)
		for i := range ra {
			x, y := ra[i].([]any), rb[i].([]any)
			assert.InDelta(t, x[0].(float64), y[0].(float64), 1e-9*max(1, math.Abs(x[0].(float64))), "%s: request %d", what, i)
			assert.Equal(t, x[1], y[1], "%s: request %d's greedy flag", what, i)
		}
	}
	sameScores(res["default"], res["batched"], "--batch_size 3 vs 1")
	for _, spec := range []string{"A:0-2;L:3-", "linear", "budget:0.5:random"} {
		sameScores(res["one "+spec], res["batched "+spec], "schedule "+spec+", --batch_size 8 vs 1")
	}
	assert.NotEqual(t, res["default"], res["one linear"], "the schedule changes the scores")
	for _, k := range []string{"zero", "auto"} {
		assert.Contains(t, res[k], "the oryx adapter takes a number of requests ≥ 1", k)
	}
	if res["has_cuda"] == false {
		assert.Equal(t, "accepted on cpu", res["cuda"], "cuda:0 without CUDA: the CPU (lm_eval's default device)")
		assert.Contains(t, stderr, "device 'cuda:0': this torch")
	} else {
		assert.Equal(t, "accepted on cuda:0", res["cuda"])
	}
}
