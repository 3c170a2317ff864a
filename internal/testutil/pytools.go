package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// PyTools returns the python3 that `make py-tools` installed the project-local Python packages for and
// their directory (.pytools, found walking up from the working directory; the interpreter is the first
// line of .pytools/.python), after checking that it imports every module named. It skips the test, saying
// how to install them, when the directory is missing or a module does not import. Run the interpreter
// with PYTHONPATH=dir.
func PyTools(t testing.TB, modules ...string) (python, dir string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, ".pytools")); err == nil && fi.IsDir() {
			dir = filepath.Join(d, ".pytools")
			break
		}
		if filepath.Dir(d) == d {
			t.Skipf("no .pytools directory above %s: `make py-tools` installs the Python packages this test uses (%s)",
				wd, strings.Join(modules, ", "))
		}
	}
	python = "python3"
	if b, err := os.ReadFile(filepath.Join(dir, ".python")); err == nil {
		if first, _, _ := strings.Cut(string(b), "\n"); first != "" {
			python = first
		}
	}
	if len(modules) > 0 {
		cmd := exec.Command(python, "-c", "import "+strings.Join(modules, ", "))
		cmd.Env = append(os.Environ(), "PYTHONPATH="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("%s with PYTHONPATH=%s does not import %s (%v): `make py-tools` installs them\n%s", python, dir,
				strings.Join(modules, ", "), err, lastLines(string(out), 5))
		}
	}
	return python, dir
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// RunPython runs a Python program (source) with PYTHONPATH=dir and the arguments, and returns its standard
// output; a failure fails the test with the program's standard error.
func RunPython(t testing.TB, python, dir, source string, args ...string) string {
	t.Helper()
	cmd := exec.Command(python, append([]string{"-c", source}, args...)...)
	// Offline, and Hugging Face's caches (datasets writes one for every parquet file it loads) under the
	// test's temporary directory.
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir, "HF_DATASETS_OFFLINE=1", "HF_HUB_OFFLINE=1", "TOKENIZERS_PARALLELISM=false",
		"HF_HOME="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, lastLines(stderr.String(), 30))
	}
	return string(out)
}
