package oryxlm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// packageCheck runs with the installed package and .pytools (lm_eval) on PYTHONPATH.
const packageCheck = `
import importlib.metadata as md
import oryx_lmeval
from lm_eval.api.registry import get_model
cls = get_model("oryx")
print("registered", cls.__module__, cls.__name__, cls is oryx_lmeval.OryxEvalModel)
print("entry point", [e.value for e in md.entry_points(group="lm_eval.models") if e.name == "oryx"])
print("schedule", oryx_lmeval.lmeval_oryx.oryx_schedule.request_modes("attention-last:2", 4, 4, 0))
`

// TestLMEvalAdapterPackage: `pip install ./python` (here from a copy of the folder, into the test's directory,
// without the network: --no-build-isolation --no-deps --no-index) installs the lm-eval adapter as a package:
// importing it registers lm_eval's model "oryx" (the adapter's class), it declares the lm_eval.models entry
// point, its schedule language comes with it, and the command oryx-lmeval is lm_eval's command line. Needs
// /usr/bin/python3 with pip and setuptools and .pytools (make py-tools); skips without them.
func TestLMEvalAdapterPackage(t *testing.T) {
	python := "/usr/bin/python3"
	if exec.Command(python, "-c", "import setuptools").Run() != nil || exec.Command(python, "-m", "pip", "--version").Run() != nil {
		t.Skip("no /usr/bin/python3 with pip and setuptools")
	}
	pytools := findPytools(t)
	dir := t.TempDir()
	src, site := filepath.Join(dir, "src"), filepath.Join(dir, "site")
	// A copy with the links resolved: pip builds in the source folder, which must not be the checkout's.
	require.NoError(t, filepath.WalkDir(filepath.Join("..", "..", "python"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(filepath.Join("..", "..", "python"), path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path) // follows the links to scripts/
		if err != nil {
			return err
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(src, rel)), 0o755))
		return os.WriteFile(filepath.Join(src, rel), data, 0o644)
	}))
	env := append(os.Environ(), "HOME="+dir, "PIP_DISABLE_PIP_VERSION_CHECK=1", "PYTHONDONTWRITEBYTECODE=1")
	pip := exec.Command(python, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--no-index",
		"--no-cache-dir", "--target", site, src)
	pip.Env = env
	out, err := pip.CombinedOutput()
	require.NoError(t, err, "pip install: %s", out)

	env = append(env, "PYTHONPATH="+site+string(os.PathListSeparator)+pytools, "HF_HUB_OFFLINE=1")
	check := exec.Command(python, "-c", packageCheck)
	check.Env = env
	out, err = check.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "registered oryx_lmeval.lmeval_oryx OryxEvalModel True")
	assert.Contains(t, string(out), "entry point ['oryx_lmeval.lmeval_oryx:OryxEvalModel']")
	assert.Contains(t, string(out), "schedule [0, 0, 1, 1]")
	cli := exec.Command(filepath.Join(site, "bin", "oryx-lmeval"), "--help")
	cli.Env = env
	out, err = cli.CombinedOutput()
	require.NoError(t, err, "oryx-lmeval --help: %s", out)
	assert.True(t, strings.Contains(string(out), "--model_args"), "%s", out)
}

// findPytools is the project's .pytools (make py-tools) above the working directory, or skips the test.
func findPytools(t *testing.T) string {
	wd, err := os.Getwd()
	require.NoError(t, err)
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".pytools", "lm_eval")); err == nil {
			return filepath.Join(d, ".pytools")
		}
		if filepath.Dir(d) == d {
			t.Skip("no .pytools with lm_eval: make py-tools")
		}
	}
}
