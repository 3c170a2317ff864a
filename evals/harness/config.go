package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Config tells tasks where their data is.
type Config struct {
	// DataRoot holds the HF-layout parquet files: a task reads <DataRoot>/<task dir>/<file> by default
	// (e.g. <root>/piqa/validation.parquet; see each task's doc for its default).
	DataRoot string
	// Paths overrides the file of a task: task name → a parquet file, a directory of parquet files or a glob
	// (hfparquet.Open). A relative path is taken as is (relative to the working directory).
	Paths map[string]string
	// Params are task-family options from the command line, e.g. "niah.lengths" = "1024,2048" (each family
	// documents and registers the keys it reads, RegisterParam; ParseParams refuses unregistered keys).
	Params map[string]string
}

// Path returns the data path of task: its override when there is one, else DataRoot joined with rel.
func (c Config) Path(task, rel string) string {
	if p, ok := c.Paths[task]; ok && p != "" {
		return p
	}
	return filepath.Join(c.DataRoot, rel)
}

// ParsePathOverrides parses "task=path" entries (as repeated --data-path flags or one comma-separated list)
// into Config.Paths. Every task must be registered (the error lists the known tasks).
func ParsePathOverrides(entries []string) (map[string]string, error) {
	out := map[string]string{}
	for _, e := range entries {
		for part := range strings.SplitSeq(e, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			task, path, ok := strings.Cut(part, "=")
			task, path = strings.TrimSpace(task), strings.TrimSpace(path)
			if !ok || task == "" || path == "" {
				return nil, fmt.Errorf("harness: data path override %q: want task=path", part)
			}
			if _, known := lookupFactory(task); !known {
				return nil, fmt.Errorf("harness: data path override for unknown task %q; known tasks: %s", task, strings.Join(Tasks(), ", "))
			}
			out[task] = path
		}
	}
	return out, nil
}

// DataRootEnv is the environment variable that names the data root when no flag does.
const DataRootEnv = "ORYX_DATA"

// ResolveDataRoot returns the data root and how it was found, in order: flag (when non-empty, "flag"),
// $ORYX_DATA ("env"), then FindDataRoot walking up from wd ("walk-up"). ("", "") when none applies.
func ResolveDataRoot(flag, wd string) (root, source string) {
	if flag != "" {
		return flag, "flag"
	}
	if env := os.Getenv(DataRootEnv); env != "" {
		return env, "env"
	}
	if r := FindDataRoot(wd); r != "" {
		return r, "walk-up"
	}
	return "", ""
}

// FindDataRoot looks for shared/data/hf in dir and its parents (a layout some machines use)
// and returns it, or "" when there is none. A command can use it as the default of its data-root flag.
func FindDataRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "data", "hf")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
