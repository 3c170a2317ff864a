package oryx_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
)

// writeConfigJSON writes the tiny preset's config with edits (field → JSON value) and extra trailing text.
func writeConfigJSON(t *testing.T, dir string, edits map[string]any, trailing string) string {
	t.Helper()
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	data, err := json.Marshal(cfg)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	for k, v := range edits {
		m[k] = v
	}
	data, err = json.Marshal(m)
	require.NoError(t, err)
	path := filepath.Join(dir, oryx.ConfigFileName)
	require.NoError(t, os.WriteFile(path, append(data, trailing...), 0o644))
	return path
}

// TestLoadConfigHostile: the campaign's configs — sizes that made `oryx init` crash with "fatal error: out of
// memory" or run for minutes, and trailing data after the object — are errors naming the field, returned at
// once (no allocation).
func TestLoadConfigHostile(t *testing.T) {
	for _, c := range []struct {
		name     string
		edits    map[string]any
		trailing string
		want     string
	}{
		{"d_model 1e9", map[string]any{"d_model": 1e9}, "", "config field d_model: 1000000000 is above the supported maximum 32768"},
		{"vocab 2e9", map[string]any{"vocab": 2e9}, "", "config field vocab: 2000000000 is above the supported maximum 4194304"},
		{"heads 1e8", map[string]any{"heads": 1e8}, "", "config field heads: 100000000 is above the supported maximum 1024"},
		{"layers 1e8", map[string]any{"layers": 1e8}, "", "config field layers: 100000000 is above the supported maximum 1024"},
		{"conv_width 1e6", map[string]any{"conv_width": 1e6}, "", "config field conv_width: must be in [0, 64], got 1000000"},
		{"all large within bounds", map[string]any{"vocab": 1 << 22, "d_model": 1 << 15, "layers": 1 << 10,
			"mlp_hidden": 1 << 18}, "", "parameters is above the supported maximum"},
		{"trailing object", nil, "\n{\"vocab\": 5}\n", "trailing data after the JSON object"},
		{"trailing garbage", nil, " x", "trailing data after the JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeConfigJSON(t, t.TempDir(), c.edits, c.trailing)
			_, err := oryx.LoadConfig(path)
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, path)
		})
	}
	// Whitespace after the object is fine.
	_, err := oryx.LoadConfig(writeConfigJSON(t, t.TempDir(), nil, "\n\n  \t\n"))
	require.NoError(t, err)
}

// TestCheckpointRefusesEditedConfig: a config.json edited after training in a way that keeps every shape
// (rope true → false, the chunk, the norm epsilon) is refused, naming the field; the untouched checkpoint
// loads.
func TestCheckpointRefusesEditedConfig(t *testing.T) {
	dir := t.TempDir()
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	require.NoError(t, oryx.InitCheckpoint(dir, cfg, 5))
	_, _, err = oryx.LoadCheckpoint(dir, nil)
	require.NoError(t, err)
	orig, err := os.ReadFile(filepath.Join(dir, oryx.ConfigFileName))
	require.NoError(t, err)
	for _, c := range []struct {
		edits map[string]any
		want  string
	}{
		{map[string]any{"rope": false}, "rope: false vs true"},
		{map[string]any{"chunk": 32}, "chunk: 32 vs 16"},
		{map[string]any{"norm_eps": 1e-6, "output_norm": "full"}, "norm_eps: 1e-06 vs 1e-05"},
	} {
		writeConfigJSON(t, dir, c.edits, "")
		_, _, err := oryx.LoadCheckpoint(dir, nil)
		require.ErrorContains(t, err, "config.json differs from the config the weights were saved with")
		require.ErrorContains(t, err, c.want)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, oryx.ConfigFileName), orig, 0o644))
	_, _, err = oryx.LoadCheckpoint(dir, nil)
	require.NoError(t, err)
}

// TestDecodeMemoryGuard: `oryx generate --capacity 2000000000` and friends are refused before any
// allocation, naming the size.
func TestDecodeMemoryGuard(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	require.NoError(t, oryx.CheckDecodeMemory(cfg, 4, 4096))
	err = oryx.CheckDecodeMemory(cfg, 1, 2_000_000_000)
	require.ErrorContains(t, err, "capacity (KV-cache tokens): 2000000000 is out of range")
	err = oryx.CheckDecodeMemory(cfg, 1<<30, 16)
	require.ErrorContains(t, err, "batch (rows)")
	big, err := oryx.Preset("1.4b", oryx.OryxTG)
	require.NoError(t, err)
	// 24 layers × 16 heads × (64 + 128) × 4 bytes = 288 KiB per token: 16M tokens × 64 rows is ~300 TiB.
	err = oryx.CheckDecodeMemory(big, 64, 1<<24)
	if guard.HostMemory() > 0 {
		require.ErrorContains(t, err, "the decode state of 64 row(s) × 16777216 tokens needs ~")
		require.ErrorContains(t, err, "of memory, this machine has")
	}
	_, err = infer.NewEngine(nil, nil, &oryx.Model{Config: cfg}, 1, 2_000_000_000)
	require.ErrorContains(t, err, "capacity")
}
