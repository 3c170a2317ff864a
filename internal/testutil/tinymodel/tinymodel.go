// Package tinymodel sets up the tiny random-weight models that tests of the packages above oryx run on
// (evals, recipes): the "tiny" preset over the byte tokenizer. Only tests import it.
package tinymodel

import (
	"path/filepath"
	"testing"

	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/require"
)

// Vocab is the tiny models' vocabulary: the byte tokenizer's 258 ids padded to a multiple of 64.
const Vocab = 320

// Config is the tiny preset of variant v with Vocab.
func Config(t testing.TB, v oryx.Variant) oryx.Config {
	t.Helper()
	cfg, err := oryx.Preset("tiny", v)
	require.NoError(t, err)
	cfg.Vocab = Vocab
	return cfg
}

// New builds a tiny model of variant v (its weights are created in the context it first runs in).
func New(t testing.TB, v oryx.Variant) *oryx.Model {
	t.Helper()
	m, err := oryx.New(Config(t, v))
	require.NoError(t, err)
	return m
}

// Checkpoint writes a freshly initialised tiny checkpoint (seed 1) of variant v into a temporary directory
// named tiny-<variant> and returns its path.
func Checkpoint(t testing.TB, v oryx.Variant) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny-"+string(v))
	require.NoError(t, oryx.InitCheckpoint(dir, Config(t, v), 1))
	return dir
}
