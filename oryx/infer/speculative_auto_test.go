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
		a := newAutoChooser(x, 256)
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
	b := newAutoChooser(x, 256)
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
	a = newAutoChooser(x, 256)
	a.plan = []int{4, 4}
	a.record(0, ms(10), 0, 0)
	a.record(2, ms(60), 2, 2)
	r = &specRun{stats: &SpeculationStats{}}
	require.Equal(t, 0, a.next(r))
	require.NotContains(t, r.stats.Choice, "K=4")
}
