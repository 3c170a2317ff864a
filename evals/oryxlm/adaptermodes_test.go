package oryxlm

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/schedule"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLMEvalAdapterModes: the lm-eval adapter's schedule language (scripts/oryx_schedule.py, which
// scripts/lmeval_oryx.py runs) gives every loglikelihood request the modes this package gives it (modesOf;
// Budget.Modes with the linear pass's entropies for budget:F:entropy) and every generated token the mode
// DecodeMode gives, for every schedule string evals accepts — so lm-eval, run through the adapter, scores
// what `go run ./evals` scores. Needs python3 (no packages); a spec the adapter misreads fails here.
func TestLMEvalAdapterModes(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	specs := []string{"attention", "linear", "prefill-attention", "attention-last:3", "linear-until:5", "A:0-2,L:3-6,A:9-",
		"block:4:0.5", "block", "sequence:0.3", "budget:0.25:last", "budget:0.4:question", "budget:0.3:random",
		"budget:0.5:entropy", "budget:1:random", Mixed}
	type request struct {
		Spec      string    `json:"spec"`
		N         int       `json:"n,omitempty"`
		AttnFrom  int       `json:"attn_from"`
		Index     int       `json:"index"`
		Entropy   []float64 `json:"entropy,omitempty"`
		Pos       *int      `json:"pos,omitempty"`
		PromptLen int       `json:"prompt_len,omitempty"`
	}
	var reqs []request
	var want []any
	r := rand.New(rand.NewPCG(1, 2))
	for _, spec := range specs {
		lm, _, _ := tinyModel(t, oryx.OryxTG, Options{Schedule: spec})
		for i := range 12 {
			n := 1 + r.IntN(40)
			attnFrom := r.IntN(n + 2)
			req := request{Spec: spec, N: n, AttnFrom: attnFrom, Index: i}
			var modes []oryx.Mode
			if b, ok := lm.Budget(); ok && b.Policy == schedule.PolicyEntropy {
				req.Entropy = make([]float64, n)
				for p := range req.Entropy {
					req.Entropy[p] = math.Round(r.Float64()*8) / 4 // ties, to check their order too
				}
				modes, err = b.Modes(n, nil, req.Entropy, nil)
			} else {
				modes, err = lm.modesOf(rowSpec{n: n, attnFrom: attnFrom, seed: requestSeed(i)})
			}
			require.NoError(t, err, spec)
			reqs = append(reqs, req)
			want = append(want, modeInts(modes))
		}
		for _, pos := range []int{7, 8, 20} {
			p := pos
			sp, err := lm.specFor(3)
			require.NoError(t, err, spec)
			m, err := sp.DecodeMode(p, 7)
			reqs = append(reqs, request{Spec: sp.String(), Pos: &p, PromptLen: 7})
			if err != nil {
				want = append(want, "error")
			} else {
				want = append(want, float64(m))
			}
		}
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "req.json"), filepath.Join(dir, "out.json")
	data, err := json.Marshal(reqs)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, data, 0o644))
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "oryx_schedule.py"))
	require.NoError(t, err)
	cmd := exec.Command(python, script, in, out)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	var got []any
	data, err = os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &got))
	require.Len(t, got, len(want))
	for i := range want {
		if w, ok := want[i].(string); ok && w == "error" {
			_, isErr := got[i].(string)
			assert.True(t, isErr, "%+v: Go refuses, the adapter gave %v", reqs[i], got[i])
			continue
		}
		assert.Equal(t, want[i], got[i], "%+v", reqs[i])
	}
	t.Logf("%d requests under %d schedule strings: the adapter's modes are evals'", len(reqs), len(specs))
}

func modeInts(modes []oryx.Mode) []any {
	out := make([]any, len(modes))
	for i, m := range modes {
		out[i] = float64(m)
	}
	return out
}
