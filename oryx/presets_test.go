package oryx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPresetAllValidate(t *testing.T) {
	for _, name := range PresetNames {
		for _, v := range Variants {
			c, err := Preset(name, v)
			require.NoError(t, err, "%s/%s", name, v)
			require.NoError(t, c.Validate(), "%s/%s", name, v)
			assert.Equal(t, c, c.WithDefaults(), "%s/%s: every field filled", name, v)
			assert.Equal(t, v, c.Variant)
			assert.Equal(t, v.LinearMixer(), c.LinearMixer)
			assert.Zero(t, c.Vocab%64, "%s: vocab %d not a multiple of 64", name, c.Vocab)
			assert.Zero(t, c.MLPHidden%64, "%s: mlp_hidden %d not a multiple of 64", name, c.MLPHidden)
			assert.Equal(t, 4, c.ConvWidth)
			assert.True(t, c.RoPE)
			assert.True(t, c.TiedEmbeddings)
			wantAct := "none"
			if v.LinearMixer() == MixerGDN {
				wantAct = "silu"
			}
			assert.Equal(t, wantAct, c.ConvActivation)
			if _, big := NominalParams(name); big {
				assert.Equal(t, 50304, c.Vocab)
				assert.Equal(t, 64, c.KeyDim)
				assert.Equal(t, 128, c.ValueDim)
				assert.Equal(t, c.DModel, c.Heads*c.ValueDim, "H·dv = d")
				assert.Equal(t, 64, c.Chunk)
				assert.Equal(t, 1e-5, c.NormEps)
				assert.Equal(t, 10000.0, c.RoPEBase)
				assert.Equal(t, "head", c.OutputNorm)
				assert.Equal(t, "auto", c.InterChunk)
			}
		}
	}
	tiny := mustPreset(t, "tiny", OryxTG)
	assert.Equal(t, Config{Variant: OryxTG, LinearMixer: MixerGDN, Vocab: 256, DModel: 64, Layers: 2, Heads: 2,
		KeyDim: 16, ValueDim: 32, MLPHidden: 128, ConvWidth: 4, ConvActivation: "silu", RoPE: true, RoPEBase: 10000,
		TiedEmbeddings: true, NormEps: 1e-5, OutputNorm: "head", Chunk: 16, InterChunk: "auto"}, tiny)
	small := mustPreset(t, "small", Mamba2)
	assert.Equal(t, []int{512, 128, 4, 4, 16, 32, 256, 32},
		[]int{small.Vocab, small.DModel, small.Layers, small.Heads, small.KeyDim, small.ValueDim, small.MLPHidden, small.Chunk})
	assert.Equal(t, 50304, PresetVocab)
	assert.Zero(t, PresetVocab%64)
	assert.True(t, PresetVocab >= 50277 && PresetVocab-50277 < 64)
}

func TestPresetUnknown(t *testing.T) {
	_, err := Preset("7b", OryxTG)
	require.Error(t, err)
	for _, name := range PresetNames {
		assert.Contains(t, err.Error(), name)
	}
	_, err = Preset("tiny", Variant("mamba3"))
	require.Error(t, err)
	for _, v := range Variants {
		assert.Contains(t, err.Error(), string(v))
	}
	_, ok := NominalParams("tiny")
	assert.False(t, ok)
	_, ok = NominalParams("nope")
	assert.False(t, ok)
}

// TestPresetSizes checks every paper-scale preset × variant is within ±5 % of its nominal size and that
// the Oryx presets tie ≥ 90 % of their parameters; it logs the table.
func TestPresetSizes(t *testing.T) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-5s %-12s %14s %8s %8s %12s %12s\n", "size", "variant", "params", "off", "tied", "attn-only",
		"linear-only")
	for _, name := range PresetNames {
		nominal, big := NominalParams(name)
		for _, v := range Variants {
			c := mustPreset(t, name, v)
			r := CountParams(c)
			assert.Equal(t, r.Total, r.Shared+r.AttentionOnly+r.LinearOnly)
			assert.Equal(t, v.IsMultiMixer(), r.MultiMixer)
			off := "-"
			if big {
				dev := float64(r.Total)/float64(nominal) - 1
				off = fmt.Sprintf("%+.2f%%", 100*dev)
				assert.LessOrEqual(t, dev, 0.05, "%s/%s: %d params", name, v, r.Total)
				assert.GreaterOrEqual(t, dev, -0.05, "%s/%s: %d params", name, v, r.Total)
				if v.IsMultiMixer() {
					assert.GreaterOrEqual(t, r.TiedFraction, 0.90, "%s/%s tied fraction", name, v)
				}
			}
			if !v.IsMultiMixer() {
				assert.Zero(t, r.TiedFraction)
			}
			fmt.Fprintf(&sb, "%-5s %-12s %14d %8s %8s %12d %12d\n", name, v, r.Total, off, r.TiedFractionString(),
				r.AttentionOnly, r.LinearOnly)
		}
	}
	t.Log(sb.String())
}

func TestConfigJSONRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range PresetNames {
		for _, v := range Variants {
			c := mustPreset(t, name, v)
			path := filepath.Join(dir, fmt.Sprintf("%s-%s.json", name, v))
			require.NoError(t, SaveConfig(c, path))
			back, err := LoadConfig(path)
			require.NoError(t, err)
			assert.Equal(t, c, back, "%s/%s", name, v)
			assert.Empty(t, c.Diff(back))
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "130m-oryx-tg.json"))
	require.NoError(t, err)
	for _, key := range []string{`"variant": "oryx-tg"`, `"linear_mixer": "gdn"`, `"vocab": 50304`, `"d_model": 768`,
		`"mlp_hidden": 2240`, `"tied_embeddings": true`, `"conv_activation": "silu"`} {
		assert.Contains(t, string(data), key)
	}
}

func TestConfigLoadErrors(t *testing.T) {
	dir := t.TempDir()
	c := mustPreset(t, "tiny", OryxTM)
	good := filepath.Join(dir, "good.json")
	require.NoError(t, SaveConfig(c, good))
	data, err := os.ReadFile(good)
	require.NoError(t, err)

	// Unknown field (a typo) is an error.
	typo := filepath.Join(dir, "typo.json")
	require.NoError(t, os.WriteFile(typo, []byte(strings.Replace(string(data), `"layers"`, `"n_layers"`, 1)), 0o644))
	_, err = LoadConfig(typo)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "n_layers")

	extra := filepath.Join(dir, "extra.json")
	require.NoError(t, os.WriteFile(extra, []byte(strings.Replace(string(data), "{", `{"dropout": 0.1,`, 1)), 0o644))
	_, err = LoadConfig(extra)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dropout")

	// An invalid value is rejected with the field's JSON name.
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(string(data), `"chunk": 16`, `"chunk": 0`, 1)), 0o644))
	_, err = LoadConfig(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "chunk")

	_, err = LoadConfig(filepath.Join(dir, "missing.json"))
	require.Error(t, err)
}

func TestConfigDiff(t *testing.T) {
	a := mustPreset(t, "tiny", OryxTG)
	b := a
	assert.Empty(t, a.Diff(b))
	b.DModel, b.Heads, b.RoPE, b.OutputNorm = 96, 3, false, "full"
	diff := a.Diff(b)
	require.Len(t, diff, 4)
	names := make([]string, len(diff))
	for i, d := range diff {
		names[i], _, _ = strings.Cut(d, ":")
	}
	assert.Equal(t, []string{"d_model", "heads", "rope", "output_norm"}, names)
	assert.Contains(t, diff[0], "64 vs 96")

	c := mustPreset(t, "tiny", OryxTM)
	diff = a.Diff(c)
	assert.Equal(t, []string{"variant: oryx-tg vs oryx-tm", "linear_mixer: gdn vs mamba2", "conv_activation: silu vs none"}, diff)

	loop := a
	loop.InterChunk = "loop"
	assert.Empty(t, a.Diff(loop), "inter_chunk changes how, not what, the mixers compute")
}

func TestConfigValidateBadFields(t *testing.T) {
	cases := []struct {
		field string
		mut   func(*Config)
	}{
		{"variant", func(c *Config) { c.Variant = "mamba3" }},
		{"linear_mixer", func(c *Config) { c.LinearMixer = MixerMamba2 }},
		{"vocab", func(c *Config) { c.Vocab = 0 }},
		{"d_model", func(c *Config) { c.DModel = -1 }},
		{"layers", func(c *Config) { c.Layers = 0 }},
		{"heads", func(c *Config) { c.Heads = 0 }},
		{"key_dim", func(c *Config) { c.KeyDim = 0 }},
		{"key_dim", func(c *Config) { c.KeyDim = 15 }}, // odd with RoPE
		{"value_dim", func(c *Config) { c.ValueDim = 0 }},
		{"mlp_hidden", func(c *Config) { c.MLPHidden = 0 }},
		{"chunk", func(c *Config) { c.Chunk = 0 }},
		{"conv_width", func(c *Config) { c.ConvWidth = -1 }},
		{"conv_activation", func(c *Config) { c.ConvActivation = "relu" }},
		{"rope_base", func(c *Config) { c.RoPEBase = 0 }},
		{"norm_eps", func(c *Config) { c.NormEps = 0 }},
		{"output_norm", func(c *Config) { c.OutputNorm = "group" }},
		{"inter_chunk", func(c *Config) { c.InterChunk = "parallel" }},
	}
	for _, tc := range cases {
		c := mustPreset(t, "tiny", OryxTG)
		tc.mut(&c)
		err := c.Validate()
		require.Error(t, err, tc.field)
		assert.Contains(t, err.Error(), "config field "+tc.field+":", tc.field)
		assert.Equal(t, 1, strings.Count(err.Error(), "config field "), "only %s is bad: %v", tc.field, err)
	}

	// Without RoPE an odd key_dim and zero base are fine.
	c := mustPreset(t, "tiny", OryxTG)
	c.RoPE, c.KeyDim, c.RoPEBase = false, 15, 0
	assert.NoError(t, c.Validate())

	// Several problems are all reported.
	c = mustPreset(t, "tiny", OryxTG)
	c.Vocab, c.NormEps, c.InterChunk = 0, -1, "x"
	err := c.Validate()
	require.Error(t, err)
	for _, f := range []string{"vocab", "norm_eps", "inter_chunk"} {
		assert.Contains(t, err.Error(), "config field "+f+":")
	}
}
