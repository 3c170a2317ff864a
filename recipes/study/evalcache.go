package study

// The evaluation cache. A study that adds seeds (the sequential study's looks, a study rerun after an
// interruption) would evaluate its finished runs again, a minute or more each; a run's evaluation is a
// deterministic function of its checkpoint and of the evaluation's settings, so it is kept in
// <out>/evaluations/<run>.json under a key of both, and used again only when the key is equal. The key is
// the evaluation settings of the Config, the run and its seed, the run's final training numbers (steps, tokens,
// training and validation losses: a retrained or extended run has others), the content of the text and parquet
// files the data spec reads (the held-out set and the mixture's validation rows come from them, and the spec's
// string stays the same when a file changes), and evalCacheVersion, which is raised whenever what the
// evaluation computes changes.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/recipes/train"
)

// EvaluationsDir is the study's folder of cached evaluations.
const EvaluationsDir = "evaluations"

// evalCacheVersion is raised whenever the evaluation's code computes something else.
const evalCacheVersion = 1

// evalCacheEntry is one cached evaluation.
type evalCacheEntry struct {
	Key    string       `json:"key"`
	Result *ModelResult `json:"result"`
	// HeldOutPerSequence are the held-out set's per-sequence losses by mode (HeldOutLoss.PerSequence, which
	// study.json leaves out).
	HeldOutPerSequence map[string][]float64 `json:"held_out_per_sequence,omitempty"`
}

// evalKey is the cache key of job j's evaluation after the training summarised by sum.
func evalKey(c Config, j job, sum *train.Summary) (string, error) {
	type settings struct {
		Version                                 int
		Data                                    string
		SeqLen                                  int
		Evaluation                              string
		MQARPairs, ClaimPairs                   []int
		MQARExamples                            int
		NeedleLengths                           []int
		NeedleDepths                            []float64
		NeedleSamples, SwitchSequences, HeldOut int
		CurvePairs                              []int
		CurveExamples, CurveEvery               int
		Run                                     RunSpec
		Seed                                    int
		TrainSeed                               uint64
		Name                                    string
		Steps                                   int
		Tokens                                  int64
		TrainLoss                               float64
		ValLoss                                 map[string]float64
		DataFiles                               string `json:",omitempty"` // sha256 of the files the data spec reads (none: the keys before it)
	}
	s := settings{Version: evalCacheVersion, Data: c.Data, SeqLen: c.Train.SeqLen, Evaluation: c.evaluation(), MQARPairs: c.MQARPairs,
		ClaimPairs: c.ClaimPairs, MQARExamples: c.MQARExamples, NeedleLengths: c.NeedleLengths, NeedleDepths: c.NeedleDepths,
		NeedleSamples: c.NeedleSamples, SwitchSequences: c.SwitchSequences, HeldOut: c.HeldOutSequences, CurvePairs: c.CurvePairs,
		CurveExamples: c.CurveExamples, CurveEvery: c.CurveEvery, Run: j.Run, Seed: j.Seed, TrainSeed: c.trainSeed(j.Seed),
		Name: sum.Name, Steps: sum.Steps, Tokens: sum.Tokens, TrainLoss: float64(sum.TrainLoss), ValLoss: map[string]float64{}}
	for k, v := range sum.ValLoss {
		s.ValLoss[k] = float64(v)
	}
	digest, err := datasets.TextFilesDigest(c.Data)
	if err != nil {
		return "", fmt.Errorf("the evaluation cache's key: %w", err)
	}
	s.DataFiles = digest
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

func evalCachePath(c Config, j job) string {
	return filepath.Join(c.Out, EvaluationsDir, c.label(j)+".json")
}

// cachedEvaluation returns job j's cached evaluation when its key is key; nil when there is none or it is of
// other settings (a file that cannot be read as an entry is an error naming it).
func cachedEvaluation(c Config, j job, key string) (*ModelResult, error) {
	path := evalCachePath(c, j)
	var e evalCacheEntry
	err := rundir.ReadJSON(filepath.Dir(path), filepath.Base(path), &e)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read cached evaluation: %w", err)
	}
	if e.Key != key || e.Result == nil {
		return nil, nil
	}
	for mode, h := range e.Result.HeldOut {
		if h != nil {
			h.PerSequence = e.HeldOutPerSequence[mode]
		}
	}
	return e.Result, nil
}

// cacheEvaluation writes job j's evaluation under key.
func cacheEvaluation(c Config, j job, key string, res *ModelResult) error {
	path := evalCachePath(c, j)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	e := evalCacheEntry{Key: key, Result: res, HeldOutPerSequence: map[string][]float64{}}
	for mode, h := range res.HeldOut {
		if h != nil {
			e.HeldOutPerSequence[mode] = h.PerSequence
		}
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}
