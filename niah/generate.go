package niah

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/pyrand"
)

// Protocol defaults (RULER scripts/data/synthetic/niah.py and the paper's setting).
const (
	DefaultSeed         = 42  // RULER's random_seed
	DefaultMaxGenTokens = 128 // RULER's tokens_to_generate for niah
	DefaultSamples      = 500 // RULER's num_samples per length
)

// DefaultLengths are the target lengths of the paper's table: 1K, 2K, 4K, 8K tokens.
var DefaultLengths = []int{1024, 2048, 4096, 8192}

// SweepDepths is a 5-point needle-depth sweep for Config.Depths.
var SweepDepths = []float64{0, 0.25, 0.5, 0.75, 1}

// RulerDepths returns RULER's depth grid as fractions: np.round(np.linspace(0, 100, 40)) / 100 (0, 0.03,
// 0.05, ..., 1). In RULER mode (Config.Depths nil) each needle's depth is drawn from it with
// random.sample(DEPTHS, k). Passing it as Config.Depths sweeps every one of the 40 depths instead.
func RulerDepths() []float64 {
	out := make([]float64, len(rulerDepthPercents))
	for i, p := range rulerDepthPercents {
		out[i] = float64(p) / 100
	}
	return out
}

// rulerDepthPercents is DEPTHS = list(np.round(np.linspace(0, 100, num=40, endpoint=True)).astype(int)).
// No value i·100/39 is a tie for rounding, so math.Round equals numpy's round-half-even here.
var rulerDepthPercents = func() []int {
	out := make([]int, 40)
	for i := range out {
		out[i] = int(math.Round(float64(i) * 100 / 39))
	}
	return out
}()

// Fit chooses how a sample that does not fit the target length is shrunk.
type Fit string

const (
	// FitRULER is RULER's rule (the default): binary-search the haystack size once per length; then, per
	// sample, while the prompt plus MaxGenTokens exceeds the target, draw the sample again (new keys, values
	// and depths) one unit smaller (500 words for essays; 25 noise sentences, 5 below 4096 tokens). A sample
	// that lands just over the target therefore loses a whole unit: at 1K tokens an essay sample that
	// overflows keeps ~120 of ~620 words. That is what RULER's published numbers were measured on.
	FitRULER Fit = "ruler"
	// FitTight [choice, not RULER] keeps the sample's draw (keys, values, depths) and removes haystack in
	// small steps (5 words, or 1 noise sentence) until it fits, so every prompt ends within a few tokens of
	// the target. The random stream, and so every sample's keys and values, is the same as with FitRULER
	// as long as no sample overflows.
	FitTight Fit = "tight"
)

// Config selects the samples Generate builds.
type Config struct {
	// Task is the RULER task.
	Task Task `json:"task"`
	// Lengths are the target lengths L in tokens of the model's tokenizer: prompt tokens + MaxGenTokens ≤ L.
	Lengths []int `json:"lengths"`
	// Depths, when nil, select RULER mode: each sample's needle depths are drawn by RULER's code from
	// RulerDepths (essay) or uniformly over the noise pieces, and SamplesPerCell samples are made per length.
	// With samples per length = 500 and Seed = 42 the keys, values and depths are RULER's own (the words
	// parquet given; the haystack text matches up to the sentence splitter, see haystack.go).
	// When set (fractions in [0, 1], e.g. SweepDepths), each length gets SamplesPerCell samples per depth:
	// [choice] the queried needle is placed at that depth (sentence int(n_sents·depth), or noise piece
	// int(n·depth)); MK-NIAH-1's distractors keep their drawn depths.
	Depths []float64 `json:"depths,omitempty"`
	// SamplesPerCell is the number of samples per length (RULER mode) or per (length, depth) (sweep). ≥ 1.
	SamplesPerCell int `json:"samples_per_cell"`
	// Seed seeds the Python-compatible random stream (RULER: 42). Each length starts a fresh stream from it,
	// as RULER's one process per length does.
	Seed uint64 `json:"seed"`
	// MaxGenTokens is the generation budget reserved in L (RULER: 128). 0 means DefaultMaxGenTokens.
	MaxGenTokens int `json:"max_gen_tokens"`
	// EssaysPath is the essays parquet (file, directory or glob; column "text"), needed by the essay tasks
	// (S-NIAH-2/3, MK-NIAH-1): <data root>/ruler_essays/essays.parquet. [choice] There is no fallback
	// essay: the haystack is part of the protocol, so an essay task without it is an error.
	EssaysPath string `json:"essays_path,omitempty"`
	// WordsPath is the key word lists parquet (columns kind, word): <data root>/ruler_words/words.parquet.
	// [choice] "" uses the small embedded fallback lists (words_fallback.go): valid tasks, but keys (and the
	// random stream after the first key) differ from RULER's.
	WordsPath string `json:"words_path,omitempty"`
	// Fit is how an overflowing sample is shrunk; "" means FitRULER.
	Fit Fit `json:"fit,omitempty"`
	// Workers > 1 builds that many lengths concurrently (the tokenizer's Encode must then be safe for
	// concurrent use, as datasets' tokenizers are). The result does not depend on it.
	Workers int `json:"-"`
}

// DefaultConfig returns RULER's protocol for task: lengths 1K–8K, random depths, 500 samples per length,
// seed 42, 128 generated tokens, with the given data files.
func DefaultConfig(task Task, essaysPath, wordsPath string) Config {
	return Config{Task: task, Lengths: slices.Clone(DefaultLengths), SamplesPerCell: DefaultSamples,
		Seed: DefaultSeed, MaxGenTokens: DefaultMaxGenTokens, EssaysPath: essaysPath, WordsPath: wordsPath}
}

// Sample is one prompt with its answers.
type Sample struct {
	Task Task `json:"task"`
	// Length is the target length L; Depth is the depth of the queried needle in [0, 1]: the requested one
	// (sweep) or the drawn one (RULER mode; for noise, its piece index / number of pieces). Index counts the
	// samples of its cell (RULER mode: of its length) from 0.
	Length int     `json:"length"`
	Depth  float64 `json:"depth"`
	Index  int     `json:"index"`
	// Prompt is the model input: template with context and query, then the answer prefix (no trailing
	// space, no BOS, no chat wrapping). PromptTokens is tok.Encode(Prompt).
	Prompt       string `json:"prompt"`
	PromptTokens []int  `json:"prompt_tokens"`
	// QuestionStart indexes the first token of the question ("What is the special magic ...") in
	// PromptTokens: tokens before it are the instruction and the haystack (the paper's mixed mode reads them
	// in linear mode), tokens from it on and the generated tokens are read in attention mode. [choice] The
	// "\n" before "What" belongs to the haystack part; a token straddling the boundary belongs to the
	// question.
	QuestionStart int `json:"question_start"`
	// NeedleToken indexes the token where the (first) queried needle sentence starts (the straddling token if
	// none starts exactly there).
	NeedleToken int `json:"needle_token"`
	// Answers are the values to find (RULER's outputs); Query is the asked key(s) as written in the prompt;
	// Needles are all needle sentences, in context order (MK-NIAH-1: the queried one and 3 distractors).
	Answers []string `json:"answers"`
	Query   string   `json:"query"`
	Needles []string `json:"needles"`
	// HaystackSize is num_haystack: essay words or noise pieces used. TotalLength is RULER's "length":
	// len(PromptTokens) + MaxGenTokens, ≤ Length.
	HaystackSize int `json:"haystack_size"`
	TotalLength  int `json:"total_length"`
}

// Generate builds the samples of cfg with the model's tokenizer tok, length by length in cfg.Lengths order;
// in RULER mode sample 0..SamplesPerCell-1 per length, in sweep mode for each sample index every depth in
// cfg.Depths order. The result depends only on cfg (minus Workers), tok and the data files.
//
// Sizing, per length L (RULER's generate_samples): the unit is 500 words (essay) or 25 noise sentences (5
// when L < 4096); one draw of one unit estimates tokens per unit; a binary search over
// [unit, max(3·L/tokens_per_unit, 2·unit)] finds the largest haystack size whose probe draw satisfies
// len(tok(prompt)) + MaxGenTokens ≤ L; then each sample is drawn at that size and shrunk per cfg.Fit until
// it fits. Every probe consumes the random stream as in RULER. [choice] Where RULER would loop forever (no
// unit fits L, or a sample still overflows at one unit after 20 redraws), the search goes below one unit
// and the size steps down one word or piece; a sample that cannot fit with a haystack of 1 is an error.
func Generate(cfg Config, tok tokenizers.Tokenizer) ([]Sample, error) {
	g, err := newGenerator(cfg, tok)
	if err != nil {
		return nil, err
	}
	perLength := make([][]Sample, len(cfg.Lengths))
	errs := make([]error, len(cfg.Lengths))
	workers := max(1, min(cfg.Workers, len(cfg.Lengths)))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				perLength[i], errs[i] = g.length(cfg.Lengths[i])
			}
		})
	}
	for i := range cfg.Lengths {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var out []Sample
	for _, s := range perLength {
		out = append(out, s...)
	}
	return out, nil
}

// generator holds what every length shares.
type generator struct {
	cfg    Config
	spec   TaskSpec
	tok    tokenizers.Tokenizer
	words  *wordSet
	essays *essayHaystack
	gen    int // MaxGenTokens
}

func newGenerator(cfg Config, tok tokenizers.Tokenizer) (*generator, error) {
	spec, ok := cfg.Task.Spec()
	if !ok {
		_, err := ParseTask(string(cfg.Task))
		return nil, err
	}
	if tok == nil {
		return nil, errors.New("niah: nil tokenizer")
	}
	if len(cfg.Lengths) == 0 {
		return nil, errors.New("niah: Config.Lengths is empty (the paper uses DefaultLengths: 1024, 2048, 4096, 8192)")
	}
	for _, l := range cfg.Lengths {
		if l <= 0 {
			return nil, fmt.Errorf("niah: target length %d: must be positive", l)
		}
	}
	for _, d := range cfg.Depths {
		if !(d >= 0 && d <= 1) {
			return nil, fmt.Errorf("niah: depth %v: must be a fraction in [0, 1]", d)
		}
	}
	if cfg.Depths != nil && len(cfg.Depths) == 0 {
		return nil, errors.New("niah: Config.Depths is empty but not nil: nil selects RULER's random depths")
	}
	if cfg.SamplesPerCell < 1 {
		return nil, fmt.Errorf("niah: SamplesPerCell %d: must be ≥ 1 (RULER: %d per length)", cfg.SamplesPerCell, DefaultSamples)
	}
	if cfg.MaxGenTokens < 0 {
		return nil, fmt.Errorf("niah: MaxGenTokens %d: must be ≥ 0", cfg.MaxGenTokens)
	}
	switch cfg.Fit {
	case "", FitRULER, FitTight:
	default:
		return nil, fmt.Errorf("niah: unknown Fit %q: want %q or %q", cfg.Fit, FitRULER, FitTight)
	}
	g := &generator{cfg: cfg, spec: spec, tok: tok, gen: cfg.MaxGenTokens}
	if g.gen == 0 {
		g.gen = DefaultMaxGenTokens
	}
	var err error
	if g.words, err = loadWords(cfg.WordsPath); err != nil {
		return nil, err
	}
	if spec.Haystack == HaystackEssay {
		if cfg.EssaysPath == "" {
			return nil, fmt.Errorf("niah: task %s (%s) needs the RULER essays: set Config.EssaysPath to the essays "+
				"parquet (<data root>/ruler_essays/essays.parquet, column %q); there is no fallback haystack",
				cfg.Task, spec.Paper, EssaysColumn)
		}
		if g.essays, err = loadEssays(cfg.EssaysPath); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// draw is the random content of one generate_input_output call.
type draw struct {
	keys      []string
	values    [][]string
	needles   []string  // after the shuffle
	needleKey []int     // key index of each needle
	fracs     []float64 // essay: depth of each needle (RULER: sorted draws from DEPTHS, percent / 100)
	idx       []int     // noise: noise pieces before each needle (RULER: sorted-descending draws from range(n))
	asked     []int     // indices of the asked keys
}

// drawContent consumes the random stream exactly as RULER's generate_input_output(num_haystack=n) does.
func (g *generator) drawContent(r *pyrand.Rand, n int) (*draw, error) {
	s := g.spec
	d := &draw{}
	for k := range s.NumKeys {
		d.keys = append(d.keys, g.random(r, s.KeyType))
		var vals []string
		for range s.NumValues {
			v := g.random(r, s.ValueType)
			vals = append(vals, v)
			d.needles = append(d.needles, formatNeedle(s.ValueType, d.keys[k], v))
			d.needleKey = append(d.needleKey, k)
		}
		d.values = append(d.values, vals)
	}
	// random.Random(args.random_seed).shuffle(needles): a fresh generator each time.
	pyrand.New(g.cfg.Seed).Shuffle(len(d.needles), func(i, j int) {
		d.needles[i], d.needles[j] = d.needles[j], d.needles[i]
		d.needleKey[i], d.needleKey[j] = d.needleKey[j], d.needleKey[i]
	})
	k := len(d.needles)
	if s.Haystack == HaystackEssay {
		var pcts []int
		for _, i := range r.Sample(len(rulerDepthPercents), k) {
			pcts = append(pcts, rulerDepthPercents[i])
		}
		slices.Sort(pcts)
		for _, p := range pcts {
			d.fracs = append(d.fracs, float64(p)/100)
		}
	} else {
		if n < k {
			return nil, fmt.Errorf("niah: %d noise pieces cannot hold %d needles", n, k)
		}
		d.idx = r.Sample(n, k)
		slices.SortFunc(d.idx, func(a, b int) int { return b - a })
	}
	d.asked = r.Sample(s.NumKeys, s.NumQuery)
	return d, nil
}

func (g *generator) random(r *pyrand.Rand, kind string) string {
	switch kind {
	case NeedleNumbers:
		return strconv.Itoa(r.Randint(1_000_000, 9_999_999))
	case NeedleUUIDs:
		return r.UUID4()
	default: // NeedleWords
		return g.words.choice(r)
	}
}

// rendered is a drawn sample rendered at a haystack size.
type rendered struct {
	parts   promptParts
	answers []string
	query   string
	needles []string // in context order
	queried string   // the first needle of the first asked key
	depth   float64
}

// render builds the prompt of d with n haystack units; depth ≥ 0 places the asked keys' needles there.
func (g *generator) render(d *draw, n int, depth float64) rendered {
	asked := map[int]bool{}
	var queries, answers []string
	for _, a := range d.asked {
		asked[a] = true
		queries = append(queries, d.keys[a])
		answers = append(answers, d.values[a]...)
	}
	q := -1
	for i, k := range d.needleKey {
		if k == d.asked[0] {
			q = i
			break
		}
	}
	var context string
	out := rendered{answers: answers, query: queryText(queries), queried: d.needles[q]}
	if g.spec.Haystack == HaystackEssay {
		fracs := slices.Clone(d.fracs)
		if depth >= 0 {
			for i, k := range d.needleKey {
				if asked[k] {
					fracs[i] = depth
				}
			}
		}
		context = g.essays.context(n, d.needles, fracs)
		out.depth = fracs[q]
	} else {
		idx := slices.Clone(d.idx)
		if depth >= 0 {
			for i, k := range d.needleKey {
				if asked[k] {
					idx[i] = int(float64(n) * depth)
				}
			}
		}
		for i := range idx {
			idx[i] = min(idx[i], n)
		}
		context = noiseContext(n, d.needles, idx)
		out.depth = float64(idx[q]) / float64(n)
	}
	out.parts = formatPrompt(g.spec.ValueType, context, out.query, g.spec.NumQuery*g.spec.NumValues)
	type at struct {
		off int
		s   string
	}
	var found []at
	for _, s := range d.needles {
		found = append(found, at{strings.Index(context, s), s})
	}
	slices.SortStableFunc(found, func(a, b at) int { return a.off - b.off })
	for _, f := range found {
		out.needles = append(out.needles, f.s)
	}
	if depth >= 0 {
		out.depth = depth
	}
	return out
}

// unit is RULER's "incremental" for L.
func (g *generator) unit(L int) int {
	if g.spec.Haystack == HaystackEssay {
		return 500
	}
	if L < 4096 {
		return 5
	}
	return 25
}

// maxRedraws bounds RULER's redraw loop at a size of one unit or less (RULER retries forever).
const maxRedraws = 20

// length builds the samples of target length L.
func (g *generator) length(L int) ([]Sample, error) {
	r := pyrand.New(g.cfg.Seed)
	unit := g.unit(L)
	probe := func(n int) (int, error) {
		d, err := g.drawContent(r, n)
		if err != nil {
			return 0, err
		}
		return len(g.tok.Encode(g.render(d, n, -1).parts.String())) + g.gen, nil
	}
	total, err := probe(unit)
	if err != nil {
		return nil, g.errf(L, err)
	}
	perUnit := float64(total-g.gen) / float64(unit)
	estimated := int(float64(L) / perUnit * 3)
	search := func(lo, hi int) (int, error) {
		best := -1
		for lo <= hi {
			mid := (lo + hi) / 2
			t, err := probe(mid)
			if err != nil {
				return 0, err
			}
			if t <= L {
				best, lo = mid, mid+1
			} else {
				hi = mid - 1
			}
		}
		return best, nil
	}
	size, err := search(unit, max(estimated, 2*unit))
	if err != nil {
		return nil, g.errf(L, err)
	}
	if size < 0 { // RULER would fall back to one unit and then never fit.
		if size, err = search(1, unit-1); err != nil {
			return nil, g.errf(L, err)
		}
		if size < 0 {
			return nil, g.errf(L, fmt.Errorf("no haystack fits: even 1 %s with the template and %d generated tokens exceeds %d tokens",
				g.unitName(), g.gen, L))
		}
	}

	depths := []float64{-1}
	if g.cfg.Depths != nil {
		depths = g.cfg.Depths
	}
	var out []Sample
	for i := range g.cfg.SamplesPerCell {
		for _, depth := range depths {
			s, err := g.sample(r, L, size, unit, depth)
			if err != nil {
				return nil, g.errf(L, err)
			}
			s.Index = i
			out = append(out, s)
		}
	}
	return out, nil
}

func (g *generator) errf(L int, err error) error {
	return fmt.Errorf("niah: %s at length %d: %w", g.cfg.Task, L, err)
}

func (g *generator) unitName() string {
	if g.spec.Haystack == HaystackEssay {
		return "essay word"
	}
	return "noise sentence"
}

// sample draws one sample at haystack size n and shrinks it per Config.Fit until it fits L.
func (g *generator) sample(r *pyrand.Rand, L, n, unit int, depth float64) (Sample, error) {
	tight := g.cfg.Fit == FitTight
	step := 1
	if tight && g.spec.Haystack == HaystackEssay {
		step = 5
	}
	var d *draw
	redraws := 0
	for {
		if d == nil || !tight {
			var err error
			if d, err = g.drawContent(r, n); err != nil {
				return Sample{}, err
			}
		}
		rd := g.render(d, n, depth)
		prompt := rd.parts.String()
		ids := g.tok.Encode(prompt)
		if len(ids)+g.gen <= L {
			return g.finish(rd, prompt, ids, L, n), nil
		}
		switch {
		case tight:
			n -= step
		case n > unit:
			n -= unit
		case redraws < maxRedraws:
			redraws++ // RULER redraws at the same size
		default:
			n--
		}
		if n < 1 {
			return Sample{}, fmt.Errorf("a sample does not fit even with a haystack of 1 %s", g.unitName())
		}
	}
}

// finish fills a Sample from a rendered prompt that fits.
func (g *generator) finish(rd rendered, prompt string, ids []int, L, n int) Sample {
	s := Sample{
		Task: g.cfg.Task, Length: L, Depth: rd.depth, Prompt: prompt, PromptTokens: ids,
		Answers: rd.answers, Query: rd.query, Needles: rd.needles, HaystackSize: n, TotalLength: len(ids) + g.gen,
	}
	s.QuestionStart = tokenIndexAt(g.tok, ids, prompt, len(rd.parts.head))
	s.NeedleToken = tokenIndexAt(g.tok, ids, prompt, strings.Index(prompt, rd.queried))
	return s
}

// tokenIndexAt returns the index in ids (= tok.Encode(text)) of the token where byte offset off of text
// begins: len(Encode(text[:off])) when the encodings of the two sides concatenate to ids; otherwise the
// index of the token that straddles off. It encodes the shorter side first.
func tokenIndexAt(tok tokenizers.Tokenizer, ids []int, text string, off int) int {
	off = min(max(off, 0), len(text))
	if off >= len(text)/2 {
		tail := tok.Encode(text[off:])
		if len(tail) <= len(ids) && slices.Equal(ids[len(ids)-len(tail):], tail) {
			return len(ids) - len(tail)
		}
	}
	head := tok.Encode(text[:off])
	c := 0
	for c < len(head) && c < len(ids) && head[c] == ids[c] {
		c++
	}
	return c
}
