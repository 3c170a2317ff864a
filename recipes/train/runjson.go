package train

import (
	"runtime"
	"time"

	"github.com/oryx-go/oryx/internal/rundir"
)

// writeRunJSON records the run's configuration in run.json (rundir.WriteRunRecord), with the backend, the Go
// version, the start time and the run's copy of its tokenizer file.
func writeRunJSON(r Run, backendName, tokenizerFile string) error {
	return rundir.WriteRunRecord(r.Out, r, rundir.RunInfo{TokenizerFile: tokenizerFile, Backend: backendName,
		GoVersion: runtime.Version(), Started: time.Now().UTC().Format(time.RFC3339)})
}
