package infer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/oryxtest"
)

// TestSpeculativeAutoMatchesGenerate: with AutoDraft, greedy decoding — plain steps and rounds of 2 and 4
// drafts while it measures, then its choice — gives Generate's tokens, modes and attention fraction, for a
// ragged batch whose rows drift apart in the rounds (the plain steps then run as rounds without drafts), and
// says its choice once.
func TestSpeculativeAutoMatchesGenerate(t *testing.T) {
	const maxTokens, capacity = 40, 52
	m, ctx := specTestModel(t, oryx.OryxTG)
	vocab := m.Config.Vocab
	prompts := [][]int32{oryxtest.RandomTokens(81, 1, 3, vocab)[0], oryxtest.RandomTokens(82, 1, 9, vocab)[0]}
	opts := GenerateOptions{Schedule: "attention-last:2", MaxTokens: maxTokens}
	plainE, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
	require.NoError(t, err)
	plain, err := plainE.Generate(prompts, opts)
	require.NoError(t, err)
	specE, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
	require.NoError(t, err)
	auto, err := specE.GenerateSpeculative(prompts, AutoDraft, opts)
	require.NoError(t, err)
	require.Equal(t, plain.Tokens, auto.Tokens)
	require.Equal(t, plain.Modes, auto.Modes)
	require.Equal(t, plain.AttentionFraction, auto.AttentionFraction)
	s := auto.Speculation
	t.Logf("%s", s.Choice)
	require.Contains(t, s.Choice, "speculative auto: ")
	require.Contains(t, []int{0, 2, 4}, s.Draft)
	require.GreaterOrEqual(t, s.PlainSteps, autoSteps, "the plain steps were measured")
	require.GreaterOrEqual(t, s.Rounds, autoRounds, "rounds of K = 2 were measured")
}

// TestAutoChooserChoice: the choice is the fastest in tokens per second — plain decoding when a round costs
// more plain steps than it yields tokens, speculation when it costs fewer — rounds of 4 are not measured when
// those of 2 already cost 5 steps, the later check falls back to plain decoding once the acceptance has
// dropped, and an engine's later call at the same cache bucket decides without measuring again.
func TestAutoChooserChoice(t *testing.T) {
	ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
	measured := func(step, round2, round4 float64, drafted, accepted int) (*autoChooser, *specRun, *specExecs) {
		x := &specExecs{auto: map[int]*autoCosts{}}
		a := newAutoChooser(x, 256, false)
		require.Equal(t, []int{0, 0, 0, 2, 2, 4, 4}, a.plan, "a fresh engine measures every unit")
		a.plan = nil
		a.record(0, ms(step), 0, 0)
		a.record(0, ms(step*3), 0, 0) // a compile or a busy moment: the fastest counts
		a.record(2, ms(round2), drafted/2, accepted/2)
		a.record(4, ms(round4), drafted-drafted/2, accepted-accepted/2)
		return a, &specRun{stats: &SpeculationStats{Rounds: 6}}, x
	}
	// Acceptance 0.5: K=2 yields 1.75 tokens, K=4 1.94. Rounds at 3 steps: plain wins.
	a, r, _ := measured(10, 30, 30, 100, 50)
	require.Equal(t, 0, a.next(r))
	require.Contains(t, r.stats.Choice, "plain decoding")
	require.Equal(t, 0, a.next(r), "plain for good")
	// Rounds at 1.2 steps with acceptance 0.9: K=4 (4.1 tokens) beats K=2 (2.7) and plain.
	a, r, x := measured(10, 12, 12, 100, 90)
	require.Equal(t, 4, a.next(r))
	require.Contains(t, r.stats.Choice, "K=4")
	// The engine's next call at this bucket decides at once from what was measured.
	r2 := &specRun{stats: &SpeculationStats{}}
	b := newAutoChooser(x, 256, false)
	require.Empty(t, b.plan)
	require.Equal(t, 4, b.next(r2))
	// The acceptance drops to 0: at the next check plain decoding is faster, used from there on.
	a.costs.accepted, a.costs.drafted = 0, 1000
	for range autoRecheck - 1 {
		require.Equal(t, 4, a.next(r))
	}
	require.Equal(t, 0, a.next(r))
	require.Contains(t, r.stats.Choice, "plain decoding became faster")
	require.Equal(t, 0, a.next(r))
	// Rounds of 2 at 6 steps: rounds of 4 (at most 5 tokens) cannot pay and are not measured.
	x = &specExecs{auto: map[int]*autoCosts{}}
	a = newAutoChooser(x, 256, false)
	a.plan = []int{4, 4}
	a.record(0, ms(10), 0, 0)
	a.record(2, ms(60), 2, 2)
	r = &specRun{stats: &SpeculationStats{}}
	require.Equal(t, 0, a.next(r))
	require.NotContains(t, r.stats.Choice, "K=4")
}

// TestSpeculativeAutoSamplingRepeats: with a random sampler AutoDraft's choice does not depend on the clock
// or on the engine's earlier calls, so one seed gives one output — over repeated calls on one engine (whose
// later calls, when the costs were kept per engine, skipped the probe and decoded with other draft lengths)
// and on fresh engines; the choice says it was not timed. Before, `--speculative auto` with sampling gave 3
// outputs in 6 runs.
func TestSpeculativeAutoSamplingRepeats(t *testing.T) {
	const maxTokens, capacity = 40, 52
	m, ctx := specTestModel(t, oryx.OryxTG)
	vocab := m.Config.Vocab
	prompts := [][]int32{oryxtest.RandomTokens(81, 1, 3, vocab)[0], oryxtest.RandomTokens(82, 1, 9, vocab)[0]}
	generate := func(e *Engine, seed uint64) *Generation {
		s, err := NewSampler(1, 0, 0, seed)
		require.NoError(t, err)
		g, err := e.GenerateSpeculative(prompts, AutoDraft, GenerateOptions{Schedule: "attention-last:2", MaxTokens: maxTokens, Sampler: s})
		require.NoError(t, err)
		return g
	}
	e, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
	require.NoError(t, err)
	first := generate(e, 7)
	t.Logf("%s", first.Speculation.Choice)
	require.Contains(t, first.Speculation.Choice, "not timed")
	for i := range 5 {
		g := generate(e, 7)
		require.Equal(t, first.Tokens, g.Tokens, "call %d on one engine", i+2)
		require.Equal(t, first.Speculation.Choice, g.Speculation.Choice)
	}
	for i := range 2 {
		fresh, err := NewEngine(backend.MustGet(), ctx, m, 2, capacity)
		require.NoError(t, err)
		require.Equal(t, first.Tokens, generate(fresh, 7).Tokens, "fresh engine %d", i+1)
	}
	// The seed matters: another one samples other tokens.
	require.NotEqual(t, first.Tokens, generate(e, 8).Tokens)
}

// TestAutoChooserUntimed: with a random sampler the chooser probes every unit on each call, decides from the
// fixed costs (a round of K: 1 + K/2 plain steps) and the acceptance, whatever the durations recorded, and
// keeps nothing in the engine for later calls.
func TestAutoChooserUntimed(t *testing.T) {
	ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
	for _, c := range []struct {
		step, round  float64 // durations recorded: they must not matter
		accepted     int     // of 100 drafts
		want         int
		wantInChoice string
	}{
		{10, 1, 50, 0, "plain decoding"}, // K=2: 1.75 tokens for 2 steps; K=4: 1.94 for 3
		{10, 1000, 50, 0, "plain decoding"},
		{10, 1000, 70, 2, "K=2"}, // K=2: 2.19 tokens for 2 steps (1.09 per step); K=4: 2.77 for 3 (0.92)
		{10, 1, 70, 2, "K=2"},
		{10, 1000, 90, 4, "K=4"}, // K=4: 4.10 for 3 (1.37 per step); K=2: 2.71 for 2 (1.36)
	} {
		x := &specExecs{auto: map[int]*autoCosts{}}
		x.auto[256] = &autoCosts{fastest: map[int]time.Duration{0: ms(1), 2: ms(1), 4: ms(1)}, drafted: 100, accepted: 100}
		a := newAutoChooser(x, 256, true)
		require.Equal(t, []int{0, 0, 0, 2, 2, 4, 4}, a.plan, "untimed: the whole probe, the engine's costs unused")
		a.plan = nil
		a.record(0, ms(c.step), 0, 0)
		a.record(2, ms(c.round), 50, c.accepted/2)
		a.record(4, ms(c.round), 50, c.accepted-c.accepted/2)
		r := &specRun{stats: &SpeculationStats{}}
		require.Equal(t, c.want, a.next(r), "%+v: %s", c, r.stats.Choice)
		require.Contains(t, r.stats.Choice, c.wantInChoice)
		require.NotContains(t, r.stats.Choice, " ms", "no durations in an untimed choice")
		require.Equal(t, autoCosts{fastest: map[int]time.Duration{0: ms(1), 2: ms(1), 4: ms(1)}, drafted: 100, accepted: 100},
			*x.auto[256], "the engine's costs untouched")
	}
}
