package hf

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/oryx-go/oryx/oryx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// configOption is one value of one oryx.Config field (by its JSON name) that the export must carry to
// modeling_oryx.py: edit applies it to the base config.
type configOption struct {
	field, value string
	edit         func(c *oryx.Config)
}

// optionBase is a small Oryx-TG (both readouts, a conv, RoPE): every option is one change from it.
func optionBase(t *testing.T) oryx.Config {
	c, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	c.Vocab, c.DModel, c.Layers, c.Heads, c.KeyDim, c.ValueDim, c.MLPHidden, c.Chunk = 64, 32, 1, 2, 8, 8, 48, 4
	require.NoError(t, c.Validate())
	return c
}

// configOptions has a non-base value of every field of oryx.Config (TestConfigOptionsCoverEveryField keeps it
// so): those that change the function the weights compute, and chunk and inter_chunk, which must not.
func configOptions() []configOption {
	variant := func(v oryx.Variant) func(c *oryx.Config) {
		return func(c *oryx.Config) {
			c.Variant, c.LinearMixer = v, v.LinearMixer()
			c.ConvActivation = map[oryx.LinearMixer]string{oryx.MixerGDN: "silu"}[v.LinearMixer()]
			if c.ConvActivation == "" {
				c.ConvActivation = "none"
			}
		}
	}
	return []configOption{
		{"variant", "transformer", variant(oryx.Transformer)},
		{"variant", "mamba2", variant(oryx.Mamba2)},
		{"variant", "gdn", variant(oryx.GDN)},
		{"variant", "oryx-tm", variant(oryx.OryxTM)},
		{"linear_mixer", "mamba2 (oryx-tm)", variant(oryx.OryxTM)},
		{"vocab", "80", func(c *oryx.Config) { c.Vocab = 80 }},
		{"d_model", "24", func(c *oryx.Config) { c.DModel = 24 }},
		{"layers", "2", func(c *oryx.Config) { c.Layers = 2 }},
		{"heads", "3", func(c *oryx.Config) { c.Heads = 3 }},
		{"key_dim", "6", func(c *oryx.Config) { c.KeyDim = 6 }},
		{"value_dim", "12", func(c *oryx.Config) { c.ValueDim = 12 }},
		{"mlp_hidden", "40", func(c *oryx.Config) { c.MLPHidden = 40 }},
		{"conv_width", "0", func(c *oryx.Config) { c.ConvWidth = 0 }},
		{"conv_width", "2", func(c *oryx.Config) { c.ConvWidth = 2 }},
		{"conv_activation", "none", func(c *oryx.Config) { c.ConvActivation = "none" }},
		{"rope", "false", func(c *oryx.Config) { c.RoPE = false }},
		{"rope_base", "500", func(c *oryx.Config) { c.RoPEBase = 500 }},
		{"tied_embeddings", "false", func(c *oryx.Config) { c.TiedEmbeddings = false }},
		{"norm_eps", "0.05", func(c *oryx.Config) { c.NormEps = 0.05 }},
		{"output_norm", "full", func(c *oryx.Config) { c.OutputNorm = "full" }},
		{"chunk", "3", func(c *oryx.Config) { c.Chunk = 3 }},
		{"inter_chunk", "scan", func(c *oryx.Config) { c.InterChunk = "scan" }},
		{"attention_key_norm", "l2", func(c *oryx.Config) { c.AttentionKeyNorm = oryx.AttentionKeyL2 }},
		{"attention_key_source", "projection", func(c *oryx.Config) { c.AttentionKeySource = oryx.AttentionKeyProjection }},
		{"attention_key_source", "projection + attention_key_norm l2", func(c *oryx.Config) {
			c.AttentionKeySource, c.AttentionKeyNorm = oryx.AttentionKeyProjection, oryx.AttentionKeyL2
		}},
		{"attention_key_norm", "l2 (transformer)", func(c *oryx.Config) {
			variant(oryx.Transformer)(c)
			c.AttentionKeyNorm = oryx.AttentionKeyL2
		}},
	}
}

// TestConfigOptionsCoverEveryField: a field added to oryx.Config must get a case in configOptions, so that
// the export's carrying it to modeling_oryx.py is tested.
func TestConfigOptionsCoverEveryField(t *testing.T) {
	covered := map[string]bool{}
	for _, o := range configOptions() {
		covered[o.field] = true
		c := optionBase(t)
		o.edit(&c)
		require.NoError(t, c.Validate(), "%s=%s", o.field, o.value)
		require.NotEqual(t, optionBase(t), c, "%s=%s changes nothing", o.field, o.value)
	}
	typ := reflect.TypeFor[oryx.Config]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		assert.True(t, covered[name], "oryx.Config field %q has no case in configOptions", name)
	}
}

// TestTorchReferenceEveryConfigOption: for every config option (configOptions), an export of random float64
// weights run by its own modeling_oryx.py gives the Go model's logits (≤ 1e-10 relative to the largest) under
// a schedule that switches modes inside and across chunks and differs between the two rows; the option is
// stated in config.json (read back by ReadConfig to the same config). Needs python3 with torch.
func TestTorchReferenceEveryConfigOption(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the export's carrying of each option is backend-independent (the pure-Go suite runs it); " +
			"TestTorchReferenceMatchesGo checks the reference against this backend")
	}
	python := torchPython(t)
	const b, n = 2, 11
	options := configOptions()
	root := t.TempDir()
	type run struct {
		name    string
		ckpt    string
		tokens  [][]int32
		goModes [][]oryx.Mode
	}
	var runs []run
	var jobs []torchJob
	for i, o := range options {
		c := optionBase(t)
		o.edit(&c)
		dir := filepath.Join(root, strings.NewReplacer(" ", "_", "(", "", ")", "", "+", "").Replace(o.field+"-"+o.value))
		r := run{name: o.field + "=" + o.value, ckpt: filepath.Join(dir, "ckpt")}
		randomCheckpoint(t, c, r.ckpt, uint64(100+i))
		exp := filepath.Join(dir, "export")
		require.NoError(t, Export(r.ckpt, exp))
		back, _, err := ReadConfig(filepath.Join(exp, ConfigFile))
		require.NoError(t, err)
		require.Equal(t, c, back, "%s: config.json reads back", r.name)
		rng := rand.New(rand.NewPCG(uint64(i), 3))
		var pyModes [][]int
		for range b {
			row := make([]int32, n)
			for j := range row {
				row[j] = int32(rng.IntN(c.Vocab))
			}
			r.tokens = append(r.tokens, row)
		}
		if c.Variant.IsMultiMixer() {
			r.goModes, pyModes = modeRows(t, "A:0-1,L:2-6,A:7-", b, n)
			r.goModes[1], pyModes[1] = invertModes(r.goModes[1]), invertInts(pyModes[1])
		}
		lc := torchLogits{Name: "logits", Modes: pyModes}
		if c.Variant.LinearMixer() != oryx.NoLinear {
			lc.Chunked = c.Chunk
		}
		jobs = append(jobs, torchJob{Export: exp, DType: "float64", Tokens: r.tokens, Logits: []torchLogits{lc}})
		runs = append(runs, r)
	}
	results, version := runTorch(t, python, jobs, nil)
	t.Logf("torch %s", version)
	for i, r := range runs {
		want := goLogits(t, r.ckpt, r.tokens, r.goModes)
		e := testutil.RelErr(results[i].Logits["logits"], want)
		assert.LessOrEqual(t, e, 1e-10, r.name)
		line := fmt.Sprintf("%-52s max |torch − go| / max |go| = %.1e", r.name, e)
		if c, ok := results[i].Logits["logits/chunked"]; ok {
			ec := testutil.RelErr(c, want)
			assert.LessOrEqual(t, ec, 1e-10, "%s chunked", r.name)
			line += fmt.Sprintf(", chunked reference %.1e", ec)
		}
		t.Log(line)
	}
}

func invertModes(m []oryx.Mode) []oryx.Mode {
	out := make([]oryx.Mode, len(m))
	for i, x := range m {
		out[i] = 1 - x
	}
	return out
}

func invertInts(m []int) []int {
	out := make([]int, len(m))
	for i, x := range m {
		out[i] = 1 - x
	}
	return out
}
