package train

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/oryx"
)

// TestAllLinearOryxTrainsLikeGDN: with matched initialisation (oryx/weights.go) Oryx-TG trained at attention
// probability 0 computes GDN's function from GDN's initial weights on GDN's data, so the two training runs
// agree to float noise step by step (the multi-mixer graph also builds the attention readout and selects the
// linear one, which changes no value of the selected path; XLA may fuse the two graphs differently). Paired
// comparisons between Oryx and its baselines thus measure the method, not two draws.
func TestAllLinearOryxTrainsLikeGDN(t *testing.T) {
	gdn := tinyRun(t, oryx.GDN, filepath.Join(t.TempDir(), "gdn"))
	p0 := tinyRun(t, oryx.OryxTG, filepath.Join(t.TempDir(), "p0"))
	p0.Train.AttentionProb = 0
	require.Equal(t, gdn.Model.TiedEmbeddings, p0.Model.TiedEmbeddings)
	_, err := Train(gdn)
	require.NoError(t, err)
	_, err = Train(p0)
	require.NoError(t, err)
	lg, lp := trainLosses(t, gdn.Out), trainLosses(t, p0.Out)
	require.Len(t, lp, len(lg))
	for i := range lg {
		require.InDelta(t, lg[i], lp[i], 1e-5*math.Abs(lg[i]), "step %d: GDN %.7f vs Oryx-TG at p = 0 %.7f", i+1, lg[i], lp[i])
	}
}
