package rundir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/oryx-go/oryx/internal/jsonnum"
	"github.com/oryx-go/oryx/internal/safefile"
)

// ProbeRecord is one line of metrics.jsonl for a probe measured at a validation point (train.Run.Probe):
// named values, e.g. the MQAR accuracy of a fixed subset in each mode the run has. On the line each value is
// its own number, "probe_<name>" (one type per key, like the validation lines), beside the probe's time.
// Resuming keeps the lines up to the checkpoint's step as it keeps every other line (OpenMetrics).
type ProbeRecord struct {
	Kind    string                   `json:"kind"` // "probe"
	Step    int                      `json:"step"`
	Tokens  int64                    `json:"tokens"`
	Seconds float64                  `json:"probe_s"` // the probe's wall time
	Values  map[string]jsonnum.Float `json:"-"`       // by name
}

// probePrefix starts the key of each value on a "probe" line.
const probePrefix = "probe_"

// MarshalJSON writes the values as probe_<name> keys.
func (r ProbeRecord) MarshalJSON() ([]byte, error) {
	m := map[string]any{"kind": r.Kind, "step": r.Step, "tokens": r.Tokens, "probe_s": r.Seconds}
	for k, v := range r.Values {
		if k == "s" {
			return nil, fmt.Errorf("rundir: probe value name %q collides with probe_s", k)
		}
		m[probePrefix+k] = v
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the probe_<name> keys back into Values.
func (r *ProbeRecord) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	var head struct {
		Kind    string  `json:"kind"`
		Step    int     `json:"step"`
		Tokens  int64   `json:"tokens"`
		Seconds float64 `json:"probe_s"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	*r = ProbeRecord{Kind: head.Kind, Step: head.Step, Tokens: head.Tokens, Seconds: head.Seconds, Values: map[string]jsonnum.Float{}}
	delete(raw, "probe_s")
	return readPrefixed(raw, probePrefix, func(name string, f jsonnum.Float) { r.Values[name] = f })
}

// ReadProbes reads the "probe" lines of dir/metrics.jsonl, in order.
func ReadProbes(dir string) ([]ProbeRecord, error) {
	path := filepath.Join(dir, MetricsFile)
	data, err := safefile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []ProbeRecord
	for i, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"probe"`)) {
			continue
		}
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(line, &kind); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		if kind.Kind != "probe" {
			continue
		}
		var r ProbeRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}
