package study

// The trend (`make study-trend`, TrendConfig): how claim (a)'s gaps move with tokens and width, on real English
// and, side by side, on the synthetic mixture. The Transformer, GDN and Oryx-TG (p = 0.5, block-random) at
// tiny2x and at the tiny width, training seeds 2–4, matched initialisation, warm-up then a constant learning
// rate (so a run's first N steps are exactly an N-step run: every budget from one run), trained to the largest
// of TrendBudgets. At each budget every run scores the same held-out set sequence by sequence in each single
// mode it has (the trend's probe, through the trainer's validation graph: train.Trainer.EvalSequenceLosses),
// kept under scores/<run>/ in the study's directory; the gaps are read there, paired by seed and sequence
// (pairedGap), with the one-sided bounds of the verdicts (estimateOf, bounds; the set's SE as SetSE).
//
// The fit (fixed here before any run; git history shows it): per seed, per width and mode,
//
//	power law   gap(T) = a·T^(−b), least squares of ln gap on ln T; only where every budget's gap of that seed
//	            is > 0 (a seed with a gap ≤ 0 is not fitted, and the power law's crossings are then not
//	            determined: dropping its non-positive points would bias the fit upwards). It never reaches 0
//	            (0 is its asymptote);
//	log-linear  gap(T) = α + β·ln T, least squares on every gap (no sign condition): the form that can cross 0;
//
// and for each form and level (+1 %, MarginA; and 0) the token count T_k where seed k's fitted gap equals the
// level, and the one-sided 95 % bounds of its logarithm over the seeds (Student t, df = seeds − 1: t over the
// per-seed parameters). A crossing is "within the measured range" when its bounds lie within the budgets'
// tokens, "extrapolated" (with its interval) when they reach beyond, and "not determined" — the plain statement
// — when a seed has no fit or no crossing, the seeds' gaps move in opposite directions, there is one seed, or
// the bounds reach beyond TrendMaxExtrapolation× the measured range.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/oryx-go/oryx/datasets"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/internal/atomicfile"
	"github.com/oryx-go/oryx/internal/figure"
	"github.com/oryx-go/oryx/internal/human"
	"github.com/oryx-go/oryx/internal/rundir"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// KindTrend is the trend's kind (trend.json).
const KindTrend = "trend"

// RoleTrend marks the trend's runs.
const RoleTrend = "trend"

// The trend's design, fixed before any run.
const (
	// TrendWidth is the main width (tiny2x, the demo's); TrendSecondWidth the second one (the tiny preset, ~1/3
	// of tiny2x's cost per step), read at the same budgets.
	TrendWidth       = 2
	TrendSecondWidth = 1
	// TrendSteps is the training budget, the largest of TrendBudgets (7.37M tokens at 4,096 tokens a step).
	TrendSteps = 1800
	// TrendEvalEvery is the validation interval: every budget is a multiple of it.
	TrendEvalEvery = 75
	// TrendHeldOutFraction is the English components' held-out fraction (heldout=F: the last 20 % of each
	// file's bytes, cut at a line start), so that the held-out set holds TrendEnglishSequences sequences.
	TrendHeldOutFraction = 0.2
	// TrendEnglishSequences is the English held-out set's size: 3,584 sequences of 129 tokens (128 targets each:
	// 459K, 112 micro-batches), evenly spread over the 3,756 the held-out parts hold at seq_len 128
	// (datasets.HeldOut; measured on the files of datasets.KnownCorpora).
	// The synthetic set, 2,048 sequences (DefaultHeldOutSequences), had a gap SE near 0.08 points; English
	// sequences may vary more, hence ~1.75× as many. The report states the SE measured at every budget.
	TrendEnglishSequences = 3584
	// TrendMaxExtrapolation: a crossing whose bounds reach beyond this factor outside the measured tokens is
	// "not determined" (no number is quoted as its interval).
	TrendMaxExtrapolation = 100
	// TrendMinFitPoints is the fewest budgets a seed's fit uses.
	TrendMinFitPoints = 3
	// TrendSetSEMax is the target of the held-out set's standard error of a gap (0.1 points).
	TrendSetSEMax = 0.001
)

// TrendBudgets are the steps at which the gaps are read (225 to 1,800: 0.92M to 7.37M tokens, each twice or
// 1.5× the one before; the fits are least squares in ln T, where they are spread).
var TrendBudgets = []int{225, 450, 900, 1350, 1800}

// TrendLevels are the gap levels whose crossing the fit reports: claim (a)'s +1 % margin and 0.
var TrendLevels = []float64{MarginA, 0}

// The fit forms (TrendFit.Form).
const (
	FormPowerLaw  = "power law: gap = a·T^(−b)"
	FormLogLinear = "log-linear: gap = α + β·ln T"
)

// Crossing statuses.
const (
	CrossWithin       = "within the measured range"
	CrossExtrapolated = "extrapolated"
	CrossUndetermined = "not determined"
)

// TrendRuns are the trend's models: the Transformer, GDN and Oryx-TG (p = 0.5) at TrendWidth, then at
// TrendSecondWidth.
func TrendRuns() []RunSpec {
	var out []RunSpec
	for _, w := range []int{TrendWidth, TrendSecondWidth} {
		for _, r := range DefaultRuns(w) {
			r.Role = RoleTrend
			out = append(out, r)
		}
	}
	return out
}

// TrendEnglishData is the English training data: tinyshakespeare and WikiText-2 (raw) test, as plain text under
// dir (datasets.DefaultDataDir on this project's machines: datasets.KnownCorpora), weights 1 : 1, each file's
// last TrendHeldOutFraction held out.
func TrendEnglishData(dir string) string {
	var items []string
	for _, name := range []string{"tinyshakespeare", "WikiText-2 (raw) test"} {
		for _, k := range datasets.KnownCorpora {
			if k.Name == name {
				items = append(items, "text:"+filepath.ToSlash(filepath.Join(dir, strings.TrimPrefix(k.Path, datasets.DefaultDataDir+"/")))+"=1")
			}
		}
	}
	return fmt.Sprintf("mix:%s,heldout=%g", strings.Join(items, ","), TrendHeldOutFraction)
}

// TrendConfig is `make study-trend` (english) or `make study-trend-synth`: TrendRuns × 3 seeds (2–4) for
// TrendSteps with the demo's warm-up and constant learning rate, validation every TrendEvalEvery steps, the
// held-out set scored at every TrendBudgets step, nothing evaluated after training. English trains on
// TrendEnglishData(datasets.DefaultDataDir) and scores TrendEnglishSequences held-out English sequences; the
// synthetic variant trains on the study's mixture and scores DefaultHeldOutSequences of the held-out synthetic
// language. Sized for ≤ 2 hours each on XLA CPU with 2 cores, quiet (the estimate: the Makefile and docs/studies.md, "The trend").
func TrendConfig(english bool) Config {
	c := Default()
	c.Out = "runs/study-trend-synth"
	c.Kind, c.Evaluation, c.Seeds = KindTrend, EvalCurves, 3
	c.Runs = TrendRuns()
	c.Train.Seed = DecomposeFirstSeed
	c.Train.Steps, c.Train.EvalEvery = TrendSteps, TrendEvalEvery
	c.TrendBudgets = slices.Clone(TrendBudgets)
	c.CurveExamples, c.FrontierExamples = 0, 0
	c.HeldOutSequences = DefaultHeldOutSequences
	if english {
		c.Out, c.TrendEnglish = "runs/study-trend", true
		c.Data = TrendEnglishData(datasets.DefaultDataDir)
		c.HeldOutSequences = TrendEnglishSequences
	}
	return c
}

// QuickTrendConfig is TrendConfig at the quick study's budget (8 steps of 8 sequences, read at 2, 4, 6 and 8),
// 2 seeds, 16 held-out sequences (tests; numbers meaningless). English reads the same files as TrendConfig
// (tests point Data at a file of their own).
func QuickTrendConfig(english bool) Config {
	q := QuickConfig()
	c := TrendConfig(english)
	c.Out, c.Quick, c.Seeds = c.Out+"-quick", true, 2
	c.Train = q.Train
	c.Train.Seed, c.Train.EvalEvery, c.Train.CheckpointEvery = DecomposeFirstSeed, 2, 4
	c.TrendBudgets = []int{2, 4, 6, 8}
	c.HeldOutSequences = 16
	return c
}

// checkTrend refuses a trend that cannot give its gaps: budgets that are not validation steps, not increasing,
// or not ending at the training's last step; a learning rate that is not constant after warm-up (then a
// budget's gap is not that of a run of that budget); and data whose held-out set cannot be read (a missing
// corpus: the error says where the study expects it and where to get it).
func checkTrend(c Config) error {
	b := c.TrendBudgets
	if len(b) < 2 {
		return fmt.Errorf("study: the trend needs at least 2 budgets, got %v", b)
	}
	for i, s := range b {
		if s <= 0 || s > c.Train.Steps || (s != c.Train.Steps && (c.Train.EvalEvery <= 0 || s%c.Train.EvalEvery != 0)) || (i > 0 && s <= b[i-1]) {
			return fmt.Errorf("study: trend budget %d steps: budgets must increase, each a validation step (a multiple of %d) ≤ the %d training steps",
				s, c.Train.EvalEvery, c.Train.Steps)
		}
	}
	if b[len(b)-1] != c.Train.Steps {
		return fmt.Errorf("study: the trend trains to its largest budget: the last budget %d ≠ %d training steps", b[len(b)-1], c.Train.Steps)
	}
	if c.Train.LRSchedule != train.LRConstant {
		return fmt.Errorf("study: the trend reads every budget from one run, which needs a constant learning rate after warm-up, not %q", c.Train.LRSchedule)
	}
	if c.HeldOutSequences < 2 {
		return fmt.Errorf("study: the trend's held-out set needs at least 2 sequences, got %d", c.HeldOutSequences)
	}
	// Every text component on its own first, so that all the missing corpora are named at once.
	var errs []error
	for _, item := range trendTextItems(c.Data) {
		if _, err := datasets.HeldOutSequences(datasets.DataSpec{Spec: item}, tokenizers.NewByteTokenizer(), c.Train.SeqLen); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("study: the trend's data: %w", errors.Join(errs...))
	}
	if _, _, err := trendSet(c); err != nil {
		return err
	}
	return nil
}

// trendTextItems lists the text and parquet components of a mix: spec, without their weights.
func trendTextItems(spec string) []string {
	rest, ok := strings.CutPrefix(spec, "mix:")
	if !ok {
		return nil
	}
	var out []string
	for _, kv := range strings.Split(rest, ",") {
		kv = strings.TrimSpace(kv)
		if !strings.HasPrefix(kv, "text:") && !strings.HasPrefix(kv, "parquet:") {
			continue
		}
		if i := strings.LastIndexByte(kv, '='); i > 0 {
			kv = kv[:i]
		}
		out = append(out, kv)
	}
	return out
}

// trendSet is the held-out set every run of the trend scores: HeldOutSequences sequences of the data's held-out
// text (datasets.HeldOut) when it has text components, else of the held-out synthetic language (heldOutSet);
// and its fingerprint (sha256 of its tokens), which the score files carry.
func trendSet(c Config) ([][]int32, string, error) {
	tok := tokenizers.NewByteTokenizer()
	var seqs [][]int32
	var err error
	if datasets.HasHeldOut(c.Data) {
		seqs, err = datasets.HeldOut(datasets.DataSpec{Spec: c.Data}, tok, c.Train.SeqLen, c.HeldOutSequences)
		if err != nil {
			err = fmt.Errorf("study: the trend's held-out set: %w", err)
		}
	} else {
		seqs, err = heldOutSet(c, tok, c.HeldOutSequences)
	}
	if err != nil {
		return nil, "", err
	}
	h := sha256.New()
	var buf [4]byte
	for _, s := range seqs {
		for _, id := range s {
			binary.LittleEndian.PutUint32(buf[:], uint32(id))
			h.Write(buf[:])
		}
	}
	return seqs, hex.EncodeToString(h.Sum(nil))[:16], nil
}

// trendScores is one run's held-out scores at one budget: each sequence's mean loss by single mode.
type trendScores struct {
	Run       string               `json:"run"`
	Step      int                  `json:"step"`
	Tokens    int64                `json:"tokens"`
	Set       string               `json:"set"` // the set's fingerprint (trendSet)
	Sequences int                  `json:"sequences"`
	Losses    map[string][]float64 `json:"losses"` // by mode: attention, linear
}

// trendScoresPath is where job j's scores at step go.
func trendScoresPath(c Config, j job, step int) string {
	return filepath.Join(c.Out, "scores", c.label(j), fmt.Sprintf("step-%06d.json", step))
}

// withTrendProbe adds the trend's probe to a training's probe (KindTrend only): at each budget, the held-out
// set's per-sequence losses in each single mode, written to trendScoresPath, their means returned as
// heldout_<mode>.
func withTrendProbe(c Config, j job, prev func(*train.Trainer, int) (map[string]float64, error)) func(*train.Trainer, int) (map[string]float64, error) {
	if c.kind() != KindTrend {
		return prev
	}
	var set [][]int32
	var fp string
	return func(tr *train.Trainer, step int) (map[string]float64, error) {
		out := map[string]float64{}
		if prev != nil {
			v, err := prev(tr, step)
			if err != nil {
				return nil, err
			}
			for k, x := range v {
				out[k] = x
			}
		}
		if slices.Contains(c.TrendBudgets, step) {
			if set == nil {
				var err error
				if set, fp, err = trendSet(c); err != nil {
					return nil, err
				}
			}
			sc, err := scoreTrendSet(tr, set)
			if err != nil {
				return nil, err
			}
			sc.Run, sc.Step, sc.Tokens, sc.Set = c.label(j), step, int64(step)*c.Train.TokensPerStep(), fp
			data, err := json.Marshal(sc)
			if err != nil {
				return nil, err
			}
			path := trendScoresPath(c, j, step)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, err
			}
			if err := atomicfile.WriteFile(path, data); err != nil {
				return nil, err
			}
			for mode, l := range sc.Losses {
				out["heldout_"+mode], _ = meanSE(l)
			}
		}
		if len(out) == 0 {
			return nil, nil
		}
		return out, nil
	}
}

// scoreTrendSet scores set in each single mode of the trainer's model, micro-batch by micro-batch (the last one
// padded with copies of the first sequence, not counted).
func scoreTrendSet(tr *train.Trainer, set [][]int32) (*trendScores, error) {
	m := tr.Model()
	mb, t := tr.Config().MicroBatch, tr.Config().SeqLen
	sc := &trendScores{Sequences: len(set), Losses: map[string][]float64{}}
	for _, sched := range schedulesOf(m.Config.Variant) {
		mode, ok := map[string]oryx.Mode{"attention": oryx.Attention, "linear": oryx.Linear}[sched]
		if !ok {
			continue
		}
		per := make([]float64, 0, len(set))
		for lo := 0; lo < len(set); lo += mb {
			seqs := make([][]int32, mb)
			var modes [][]oryx.Mode
			if m.Config.Variant.IsMultiMixer() {
				modes = make([][]oryx.Mode, mb)
			}
			for r := range mb {
				seqs[r] = set[0]
				if lo+r < len(set) {
					seqs[r] = set[lo+r]
				}
				if modes != nil {
					modes[r] = make([]oryx.Mode, t)
					for i := range modes[r] {
						modes[r][i] = mode
					}
				}
			}
			l, err := tr.EvalSequenceLosses(seqs, modes)
			if err != nil {
				return nil, fmt.Errorf("trend held-out scores (%s): %w", sched, err)
			}
			per = append(per, l[:min(mb, len(set)-lo)]...)
		}
		sc.Losses[sched] = per
	}
	return sc, nil
}

// readTrendScores reads job j's scores at step, checked against the set's fingerprint.
func readTrendScores(c Config, j job, step int, fp string) (*trendScores, error) {
	path := trendScoresPath(c, j, step)
	var sc trendScores
	err := rundir.ReadJSON(filepath.Dir(path), filepath.Base(path), &sc)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no held-out scores at step %d (its run was trained without the trend's probe at that step, or the "+
			"budgets changed since): remove its run directory %s to retrain it", path, step, c.jobDir(j))
	}
	if err != nil {
		return nil, err
	}
	if sc.Set != fp || sc.Step != step {
		return nil, fmt.Errorf("%s: scores of held-out set %q at step %d, want set %q at step %d (the data or the set's size changed since "+
			"the run): remove %s and %s to retrain it", path, sc.Set, sc.Step, fp, step, c.jobDir(j), filepath.Dir(path))
	}
	for mode, l := range sc.Losses {
		if len(l) != sc.Sequences {
			return nil, fmt.Errorf("%s: %d %s losses for %d sequences", path, len(l), mode, sc.Sequences)
		}
	}
	return &sc, nil
}

// TrendResult is the trend's section of trend.json.
type TrendResult struct {
	English   bool               `json:"english"`
	Data      string             `json:"data"`
	HeldOut   string             `json:"held_out"` // what the scored set is
	Sequences int                `json:"held_out_sequences"`
	SetPrint  string             `json:"held_out_fingerprint"`
	Seeds     []int              `json:"seeds"` // training seeds
	Budgets   []int              `json:"budgets"`
	Forms     []string           `json:"fit_forms"`
	Levels    []float64          `json:"levels"`
	Widths    []TrendWidthResult `json:"widths"`
}

// TrendWidthResult is one width's gaps and fits.
type TrendWidthResult struct {
	Size   string           `json:"size"`
	Width  int              `json:"width"`
	Params map[string]int64 `json:"params"` // by run name
	Modes  []TrendMode      `json:"modes"`
}

// TrendMode is one mode's gap (Oryx-TG in that mode against its baseline) at every budget, and its fits.
type TrendMode struct {
	Mode      string       `json:"mode"` // linear | attention
	Candidate string       `json:"candidate"`
	Reference string       `json:"reference"`
	Points    []TrendPoint `json:"points"`
	Fits      []TrendFit   `json:"fits"`
}

// TrendPoint is the gap at one budget: per seed and over seeds, with the set's SE and the one-sided bounds at
// Level (component.json's numbers).
type TrendPoint struct {
	Steps          int            `json:"steps"`
	Tokens         int64          `json:"tokens"`
	TokensPerParam float64        `json:"tokens_per_param"` // per Oryx-TG parameter
	Gap            map[string]any `json:"gap"`
	SetSE          any            `json:"set_se"`         // the held-out set's SE of the mean gap
	Against1       string         `json:"against_margin"` // where the bounds put the gap against +1 %

	est    estimate
	lo, hi float64
}

// TrendFit is one form fitted per seed, and its crossings.
type TrendFit struct {
	Form    string         `json:"form"`
	PerSeed []TrendSeedFit `json:"per_seed"`
	// Slope is the form's rate over the seeds — the exponent b of the power law, β of the log-linear form — with
	// its one-sided bounds at Level (Student t over the seeds' values; only where every seed has a fit).
	Slope     map[string]any  `json:"slope,omitempty"`
	Crossings []TrendCrossing `json:"crossings"`
	Note      string          `json:"note,omitempty"`

	slope, slopeLo, slopeHi float64 // for the report (NaN-free only where Slope is set)
}

// TrendSeedFit is one seed's fit: power law (A = a, B = b) or log-linear (A = α, B = β), on Points budgets;
// Note says why there is none.
type TrendSeedFit struct {
	Seed   int    `json:"seed"`
	A      any    `json:"a"`
	B      any    `json:"b"`
	Points int    `json:"points"`
	Note   string `json:"note,omitempty"`

	a, b float64
	ok   bool
}

// TrendCrossing is where a form's fitted gap reaches a level: per seed, and the mean with its one-sided bounds
// over seeds (in tokens), its status and the sentence that says it.
type TrendCrossing struct {
	Level   float64 `json:"level"`
	Status  string  `json:"status"`
	PerSeed []any   `json:"per_seed_tokens"`
	Tokens  any     `json:"tokens"`
	Lower   any     `json:"lower"`
	Upper   any     `json:"upper"`
	Words   string  `json:"words"`
}

// trendModes: each mode's gap, candidate against reference.
var trendModes = []struct{ mode, cand, ref string }{
	{"linear", "oryx-tg", "gdn"},
	{"attention", "oryx-tg", "transformer"},
}

// trendResult reads every run's scores at every budget and fits the gaps.
func trendResult(c Config, models []*ModelResult) (*TrendResult, error) {
	_, fp, err := trendSet(c)
	if err != nil {
		return nil, err
	}
	res := &TrendResult{English: datasets.HasHeldOut(c.Data), Data: c.Data, Sequences: c.HeldOutSequences, SetPrint: fp,
		Budgets: slices.Clone(c.TrendBudgets), Forms: []string{FormPowerLaw, FormLogLinear}, Levels: slices.Clone(TrendLevels)}
	res.HeldOut = fmt.Sprintf("%d sequences of %d tokens of the held-out synthetic language (the validation seed's stream)",
		c.HeldOutSequences, c.Train.SeqLen+1)
	if res.English {
		res.HeldOut = fmt.Sprintf("%d sequences of %d tokens evenly spread over the held-out part of every text component (datasets.HeldOut)",
			c.HeldOutSequences, c.Train.SeqLen+1)
	}
	for k := 1; k <= c.seeds(); k++ {
		res.Seeds = append(res.Seeds, int(c.trainSeed(k)))
	}
	jobOf := map[*ModelResult]job{}
	for _, m := range models {
		jobOf[m] = job{m.RunSpec, m.Seed}
	}
	var widths []int
	for _, r := range c.Runs {
		if !slices.Contains(widths, r.width()) {
			widths = append(widths, r.width())
		}
	}
	for _, w := range widths {
		tw := TrendWidthResult{Width: w, Size: RunSpec{Width: w}.Size(), Params: map[string]int64{}}
		for _, m := range models {
			if m.width() == w {
				tw.Params[m.Name] = m.Params
			}
		}
		for _, md := range trendModes {
			cand, ref := seedsOf(models, md.cand, w), seedsOf(models, md.ref, w)
			if len(cand) == 0 || len(ref) == 0 {
				continue
			}
			tm := TrendMode{Mode: md.mode, Candidate: md.cand + " " + md.mode, Reference: md.ref + " " + md.mode}
			for _, step := range c.TrendBudgets {
				var setSE float64
				var readErr error
				gaps, seeds := perSeed(cand, ref, func(a, b *ModelResult) float64 {
					sa, err := readTrendScores(c, jobOf[a], step, fp)
					if err != nil {
						readErr = err
						return math.NaN()
					}
					sb, err := readTrendScores(c, jobOf[b], step, fp)
					if err != nil {
						readErr = err
						return math.NaN()
					}
					g, se := pairedGap(sa.Losses[md.mode], sb.Losses[md.mode])
					setSE += se
					return g
				})
				if readErr != nil {
					return nil, readErr
				}
				for i := range seeds {
					seeds[i] = int(c.trainSeed(seeds[i])) // the training seed, as the report names it
				}
				est := estimateOf(gaps, seeds, nil)
				est.SetSE = setSE / float64(max(len(gaps), 1))
				tokens := int64(step) * c.Train.TokensPerStep()
				cp := component{name: "gap", est: est, threshold: MarginA}
				_, outs := decideComponents([]component{cp})
				pt := TrendPoint{Steps: step, Tokens: tokens, Gap: cp.json(outs[0]), SetSE: r4OrNull(est.SetSE), est: est,
					lo: outs[0].lo, hi: outs[0].hi}
				if p := tw.Params[md.cand]; p > 0 {
					pt.TokensPerParam = math.Round(float64(tokens)/float64(p)*10) / 10
				}
				for _, k := range []string{"threshold", "claimed_side", "verdict", "fail_level"} {
					delete(pt.Gap, k)
				}
				pt.Against1 = againstMargin(pt.lo, pt.hi)
				tm.Points = append(tm.Points, pt)
			}
			tm.Fits = fitTrend(tm.Points, c.TrendBudgets, c.Train.TokensPerStep())
			tw.Modes = append(tw.Modes, tm)
		}
		res.Widths = append(res.Widths, tw)
	}
	return res, nil
}

// againstMargin says where the one-sided bounds put a gap against +1 %.
func againstMargin(lo, hi float64) string {
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi):
		return "no bounds"
	case hi < MarginA:
		return "below +1 % (upper bound)"
	case lo > MarginA:
		return "above +1 % (lower bound)"
	}
	return "not distinguishable from +1 %"
}

// seedSeries is one seed's gaps at the budgets (tokens).
type seedSeries struct {
	seed   int
	tokens []float64
	gaps   []float64
}

// seriesOf regroups the points' per-seed values by seed.
func seriesOf(points []TrendPoint) []seedSeries {
	var out []seedSeries
	idx := map[int]int{}
	for _, p := range points {
		for i, v := range p.est.Values {
			s := i + 1
			if i < len(p.est.Seeds) {
				s = p.est.Seeds[i]
			}
			k, ok := idx[s]
			if !ok {
				k = len(out)
				idx[s] = k
				out = append(out, seedSeries{seed: s})
			}
			out[k].tokens = append(out[k].tokens, float64(p.Tokens))
			out[k].gaps = append(out[k].gaps, v)
		}
	}
	return out
}

// fitTrend fits both forms to the points, per seed, and finds their crossings of TrendLevels.
func fitTrend(points []TrendPoint, budgets []int, tokensPerStep int64) []TrendFit {
	series := seriesOf(points)
	lo, hi := float64(int64(budgets[0])*tokensPerStep), float64(int64(budgets[len(budgets)-1])*tokensPerStep)
	var out []TrendFit
	for _, form := range []string{FormPowerLaw, FormLogLinear} {
		f := TrendFit{Form: form}
		for _, s := range series {
			f.PerSeed = append(f.PerSeed, fitSeed(form, s))
		}
		var slopes []float64
		var seeds []int
		for _, sf := range f.PerSeed {
			if sf.ok {
				slopes, seeds = append(slopes, sf.b), append(seeds, sf.Seed)
			}
		}
		if len(slopes) == len(f.PerSeed) && len(slopes) > 0 {
			cp := component{est: estimateOf(slopes, seeds, nil)}
			l, h := cp.est.bounds(Level)
			f.Slope = map[string]any{"values": slopes, "mean": sig(cp.est.Mean), "se": sig(cp.est.SE), "df": cp.est.DF,
				"level": Level, "lower": sig(l), "upper": sig(h)}
			f.slope, f.slopeLo, f.slopeHi = cp.est.Mean, l, h
		}
		for _, level := range TrendLevels {
			f.Crossings = append(f.Crossings, crossing(form, f.PerSeed, level, lo, hi))
		}
		if form == FormPowerLaw {
			f.Note = "fitted only to a seed whose gap is > 0 at every budget (ln gap needs it; dropping the other points would bias the fit upwards); never reaches 0"
		}
		out = append(out, f)
	}
	return out
}

// fitSeed fits one form to one seed's gaps by least squares in ln T.
func fitSeed(form string, s seedSeries) TrendSeedFit {
	f := TrendSeedFit{Seed: s.seed, A: nil, B: nil, Points: len(s.gaps)}
	if len(s.gaps) < TrendMinFitPoints {
		f.Note = fmt.Sprintf("%d budgets, fewer than %d", len(s.gaps), TrendMinFitPoints)
		return f
	}
	x := make([]float64, len(s.tokens))
	y := make([]float64, len(s.gaps))
	for i := range s.tokens {
		x[i] = math.Log(s.tokens[i])
		y[i] = s.gaps[i]
		if notFinite(y[i]) {
			f.Note = "a gap is not a finite number"
			return f
		}
		if form == FormPowerLaw {
			if s.gaps[i] <= 0 {
				f.Note = fmt.Sprintf("gap %+.2f %% ≤ 0 at %s tokens: no power law", 100*s.gaps[i], human.Int(int64(s.tokens[i])))
				return f
			}
			y[i] = math.Log(s.gaps[i])
		}
	}
	icpt, slope, ok := leastSquares(x, y)
	if !ok {
		f.Note = "the budgets' tokens are all equal"
		return f
	}
	f.ok = true
	if form == FormPowerLaw {
		f.a, f.b = math.Exp(icpt), -slope
	} else {
		f.a, f.b = icpt, slope
	}
	f.A, f.B = sig(f.a), sig(f.b)
	return f
}

// sig is x rounded to 5 significant digits for the JSON (null when not finite).
func sig(x float64) any {
	if notFinite(x) {
		return nil
	}
	if x == 0 {
		return 0.0
	}
	p := math.Pow(10, 4-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// leastSquares fits y = icpt + slope·x; false when x has no spread.
func leastSquares(x, y []float64) (icpt, slope float64, ok bool) {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx, my = mx+x[i], my+y[i]
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if sxx == 0 {
		return 0, 0, false
	}
	slope = sxy / sxx
	return my - slope*mx, slope, true
}

// lnCross is ln T where a seed's fit equals level (NaN: never).
func lnCross(form string, f TrendSeedFit, level float64) float64 {
	switch form {
	case FormPowerLaw: // ln a − b ln T = ln L
		if level <= 0 || f.b == 0 {
			return math.NaN()
		}
		return (math.Log(f.a) - math.Log(level)) / f.b
	default: // α + β ln T = L
		if f.b == 0 {
			return math.NaN()
		}
		return (level - f.a) / f.b
	}
}

// crossing finds where each seed's fit reaches level and bounds it over the seeds (see the file's comment for
// the statuses); lo and hi are the measured range's tokens.
func crossing(form string, fits []TrendSeedFit, level, lo, hi float64) TrendCrossing {
	cr := TrendCrossing{Level: level, Status: CrossUndetermined}
	name := "0"
	if level != 0 {
		name = fmt.Sprintf("%+g %%", 100*level)
	}
	undetermined := func(why string) TrendCrossing {
		cr.Words = fmt.Sprintf("%s: the data do not determine where the gap would reach %s: %s", form, name, why)
		return cr
	}
	if form == FormPowerLaw && level <= 0 {
		return undetermined("a power law never reaches 0 (its asymptote)")
	}
	var lns []float64
	var seeds []int
	dir := 0
	for _, f := range fits {
		if !f.ok {
			return undetermined(fmt.Sprintf("seed %d has no fit (%s)", f.Seed, f.Note))
		}
		u := lnCross(form, f, level)
		if notFinite(u) {
			return undetermined(fmt.Sprintf("seed %d's fitted gap is flat", f.Seed))
		}
		d := 1 // falling through the level
		if (form == FormPowerLaw && f.b < 0) || (form == FormLogLinear && f.b > 0) {
			d = -1
		}
		if dir != 0 && d != dir {
			return undetermined("the seeds' fitted gaps move in opposite directions")
		}
		dir = d
		lns, seeds = append(lns, u), append(seeds, f.Seed)
		cr.PerSeed = append(cr.PerSeed, sig(math.Exp(u)))
	}
	if len(lns) == 0 {
		return undetermined("no seed")
	}
	if len(lns) < 2 {
		return undetermined(fmt.Sprintf("one seed (crossing at %s tokens): no spread over seeds", human.Int(int64(math.Exp(lns[0])))))
	}
	est := estimateOf(lns, seeds, nil)
	l, h := est.bounds(Level)
	mean := math.Exp(est.Mean)
	perSeed := make([]string, len(lns))
	for i, u := range lns {
		perSeed[i] = human.Int(int64(math.Min(math.Exp(u), 1e18)))
	}
	if notFinite(l) || notFinite(h) {
		return undetermined("no bounds over the seeds")
	}
	if h > math.Log(TrendMaxExtrapolation*hi) || l < math.Log(lo/TrendMaxExtrapolation) {
		return undetermined(fmt.Sprintf("per seed %s tokens; the %.0f %% bounds reach beyond %d× the measured %s–%s tokens",
			strings.Join(perSeed, " / "), 100*Level, TrendMaxExtrapolation, human.Int(int64(lo)), human.Int(int64(hi))))
	}
	cr.Tokens, cr.Lower, cr.Upper = sig(mean), sig(math.Exp(l)), sig(math.Exp(h))
	way := "falling"
	if dir < 0 {
		way = "rising"
	}
	if l >= math.Log(lo) && h <= math.Log(hi) {
		cr.Status = CrossWithin
		cr.Words = fmt.Sprintf("%s: the gap (%s) reaches %s at %s tokens [%s, %s] (one-sided %.0f %% bounds, t over %d seeds: %s), within the "+
			"measured %s–%s tokens", form, way, name, human.Int(int64(mean)), human.Int(int64(math.Exp(l))), human.Int(int64(math.Exp(h))),
			100*Level, len(lns), strings.Join(perSeed, " / "), human.Int(int64(lo)), human.Int(int64(hi)))
		return cr
	}
	cr.Status = CrossExtrapolated
	cr.Words = fmt.Sprintf("%s: extrapolated, the gap (%s) would reach %s at %s tokens, interval [%s, %s] (one-sided %.0f %% bounds, t over "+
		"%d seeds: %s), reaching outside the measured %s–%s tokens", form, way, name, human.Int(int64(mean)), human.Int(int64(math.Exp(l))),
		human.Int(int64(math.Exp(h))), 100*Level, len(lns), strings.Join(perSeed, " / "), human.Int(int64(lo)), human.Int(int64(hi)))
	return cr
}

// writeTrendPlot draws trend.png: per width and mode, each seed's gap against tokens (log axis) with its power
// law (thin; where fitted), the seeds' mean power law and mean log-linear fit (thick), drawn to 2× the last
// budget (beyond it: extrapolated), and the +1 % and 0 lines.
func writeTrendPlot(c Config, r *TrendResult) error {
	var panels []*figure.Panel
	for _, tw := range r.Widths {
		for _, tm := range tw.Modes {
			p := &figure.Panel{Title: fmt.Sprintf("%s: %s vs %s", tw.Size, tm.Candidate, tm.Reference),
				X: figure.Axis{Label: "training tokens", Scale: figure.Log10}, Y: figure.Axis{Label: "relative loss gap (%)"},
				HRefs:   []figure.Ref{{At: 100 * MarginA, Label: "+1 % (claim (a)'s margin)"}, {At: 0, Label: "no gap"}},
				Comment: "thin: each seed and its power law; thick: mean fits (dashed: extrapolated)"}
			series := seriesOf(tm.Points)
			var x0, x1 float64
			for _, pt := range tm.Points {
				if x0 == 0 {
					x0 = float64(pt.Tokens)
				}
				x1 = float64(pt.Tokens)
			}
			grid := func(a, b float64) []float64 {
				var g []float64
				for i := 0; i <= 24; i++ {
					g = append(g, a*math.Pow(b/a, float64(i)/24))
				}
				return g
			}
			for i, s := range series {
				y := make([]float64, len(s.gaps))
				for k, v := range s.gaps {
					y[k] = 100 * v
				}
				p.Lines = append(p.Lines, figure.Line{Name: fmt.Sprintf("seed %d", s.seed), X: s.tokens, Y: y, Color: i, Marker: 1 + i, Faint: true})
			}
			for _, f := range tm.Fits {
				var as, bs []float64
				for i, sf := range f.PerSeed {
					if !sf.ok {
						continue
					}
					as, bs = append(as, sf.a), append(bs, sf.b)
					if f.Form == FormPowerLaw {
						xs := grid(x0, x1)
						p.Lines = append(p.Lines, figure.Line{X: xs, Y: trendCurve(f.Form, sf.a, sf.b, xs), Color: i, Width: 1})
					}
				}
				if len(as) != len(f.PerSeed) || len(as) == 0 {
					continue // the mean fit only where every seed has one
				}
				a, b := meanOf(as), meanOf(bs)
				if f.Form == FormPowerLaw {
					a = math.Exp(meanOf(logs(as)))
				}
				col, name := 7, "mean power law"
				if f.Form == FormLogLinear {
					col, name = 5, "mean log-linear fit"
				}
				xs := grid(x0, x1)
				p.Lines = append(p.Lines, figure.Line{Name: name, X: xs, Y: trendCurve(f.Form, a, b, xs), Color: col, Width: 2.5})
				xe := grid(x1, 2*x1)
				p.Lines = append(p.Lines, figure.Line{X: xe, Y: trendCurve(f.Form, a, b, xe), Color: col, Width: 2, Dash: figure.Dashed})
			}
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return nil
	}
	fig := figure.Figure{Title: fmt.Sprintf("%s: Oryx-TG's loss gap to its baselines against tokens (seeds %v)", trendName(r), r.Seeds),
		Cols: 2, Panels: panels}
	return fig.WritePNG(filepath.Join(c.Out, "trend.png"))
}

// trendCurve is a form's gap in percent at tokens xs.
func trendCurve(form string, a, b float64, xs []float64) []float64 {
	y := make([]float64, len(xs))
	for i, x := range xs {
		if form == FormPowerLaw {
			y[i] = 100 * a * math.Pow(x, -b)
		} else {
			y[i] = 100 * (a + b*math.Log(x))
		}
	}
	return y
}

func meanOf(xs []float64) float64 { m, _ := meanSE(xs); return m }

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// trendName says which language the trend is on.
func trendName(r *TrendResult) string {
	if r.English {
		return "study-trend (English)"
	}
	return "study-trend (synthetic mixture)"
}

// trendMarkdown renders the trend's report.md.
func trendMarkdown(c Config, rep *Report) string {
	r := rep.Trend
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: claim (a)'s gaps against tokens and width\n\n", trendName(r))
	fmt.Fprintf(&b, "Backend %s, %s, %.1f minutes in all. The Transformer, GDN and Oryx-TG (p = 0.5, block-random) at %s, training seeds "+
		"%v (data order, initial weights, mode schedules; matched initialisation), trained %d steps × %d tokens on `%s` with %d warm-up "+
		"steps then a constant learning rate %.0e: a run's first N steps are exactly an N-step run, so every budget (%v steps) is read "+
		"from the same runs. Held-out set: %s (fingerprint %s), scored at each budget sequence by sequence in each single mode.\n\n",
		rep.Backend, rep.Date, rep.Seconds/60, sizesOf(c), r.Seeds, c.Train.Steps, c.Train.TokensPerStep(), c.Data, c.Train.WarmupSteps,
		c.Train.LR, r.Budgets, r.HeldOut, r.SetPrint)
	if c.Quick {
		b.WriteString("**Quick variant (smoke test): the numbers below mean nothing.**\n\n")
	}
	if r.English {
		b.WriteString("Data (docs/data.md, \"The corpora the studies expect\"): the files are not in the repository; the study expects them " +
			"under `" + datasets.DefaultDataDir + "` beside the repository's root. Each file's last " + fmt.Sprintf("%g", TrendHeldOutFraction*100) +
			" % of bytes (cut at a line start) is held out and never trained on.\n\n")
		for _, k := range datasets.KnownCorpora {
			if strings.Contains(c.Data, strings.TrimPrefix(k.Path, datasets.DefaultDataDir+"/")) {
				fmt.Fprintf(&b, "- %s: `%s`, %s bytes, sha256 `%s`; source %s\n", k.Name, k.Path, human.Int(k.Size), k.SHA256, k.Source)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Gaps: (L_oryx − L_base)/L_base on the held-out set, paired by seed (the runs of a seed share data order and "+
		"initial weights) and by sequence; mean over seeds with one-sided %.0f %% bounds (Student t over the seeds, with the set's SE "+
		"shared by every seed added: the verdicts' bounds, recipes/study/verdict.go). The set's SE target is %.1f points.\n\n",
		100*Level, 100*TrendSetSEMax)
	for _, tw := range r.Widths {
		fmt.Fprintf(&b, "## %s (parameters: Transformer %s, GDN %s, Oryx-TG %s)\n\n", tw.Size, human.Int(tw.Params["transformer"]),
			human.Int(tw.Params["gdn"]), human.Int(tw.Params["oryx-tg"]))
		for _, tm := range tw.Modes {
			fmt.Fprintf(&b, "### %s vs %s\n\n| steps | tokens | tokens / Oryx-TG parameter | per seed | mean [bounds] | set SE | against +1 %% |\n"+
				"|---|---|---|---|---|---|---|\n", tm.Candidate, tm.Reference)
			for _, pt := range tm.Points {
				vals := make([]string, len(pt.est.Values))
				for i, v := range pt.est.Values {
					vals[i] = fmt.Sprintf("%+.2f %%", 100*v)
				}
				flag := ""
				if pt.est.SetSE > TrendSetSEMax {
					flag = " (above the target)"
				}
				fmt.Fprintf(&b, "| %d | %s | %.1f | %s | %+.2f %% [%+.2f, %+.2f] | %.2f points%s | %s |\n", pt.Steps, human.Int(pt.Tokens),
					pt.TokensPerParam, strings.Join(vals, " / "), 100*pt.est.Mean, 100*pt.lo, 100*pt.hi, 100*pt.est.SetSE, flag, pt.Against1)
			}
			b.WriteString("\n| fit | per seed | rate over the seeds: mean [bounds] | note |\n|---|---|---|---|\n")
			for _, f := range tm.Fits {
				var parts []string
				for _, sf := range f.PerSeed {
					switch {
					case !sf.ok:
						parts = append(parts, fmt.Sprintf("seed %d: – (%s)", sf.Seed, sf.Note))
					case f.Form == FormPowerLaw:
						parts = append(parts, fmt.Sprintf("seed %d: a = %.4g, b = %.3f", sf.Seed, sf.a, sf.b))
					default:
						parts = append(parts, fmt.Sprintf("seed %d: α = %+.4f, β = %+.5f", sf.Seed, sf.a, sf.b))
					}
				}
				rate := "– (not every seed fitted)"
				switch {
				case f.Slope != nil && f.Form == FormPowerLaw:
					rate = fmt.Sprintf("b = %.3f [%.3f, %.3f]", f.slope, f.slopeLo, f.slopeHi)
				case f.Slope != nil:
					rate = fmt.Sprintf("β = %+.5f [%+.5f, %+.5f] per e-fold of tokens", f.slope, f.slopeLo, f.slopeHi)
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", f.Form, strings.Join(parts, "; "), rate, f.Note)
			}
			b.WriteString("\n")
			for _, f := range tm.Fits {
				for _, cr := range f.Crossings {
					fmt.Fprintf(&b, "- **%s** — %s.\n", cr.Status, cr.Words)
				}
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("![gap against tokens per seed with the fits](trend.png)\n\n")
	fmt.Fprintf(&b, "The fits (fixed in recipes/study/trend.go before any run): per seed, least squares in ln T of ln gap (power law, "+
		"only where every budget's gap is > 0) and of the gap (log-linear); a crossing is the token count where a seed's fit reaches the "+
		"level, bounded over seeds by Student t on its logarithm; a number beyond the measured tokens is labelled extrapolated, and one whose "+
		"bounds reach beyond %d× them is not quoted. The set's error is in the points' bounds, not in the fits' (it is common to every "+
		"seed and ≤ %.1f points where the target holds).\n", TrendMaxExtrapolation, 100*TrendSetSEMax)
	b.WriteString(throughputMarkdown(rep))
	return b.String()
}
