package infer

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/backend"
	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/oryx"
)

// decodeWorstEnv makes TestDecodeMemoryWorstCaseUnderRlimit's test binary the child.
const decodeWorstEnv = "ORYX_DECODE_WORST_CASE"

// TestDecodeMemoryWorstCaseUnderRlimit: decoding at the largest KV-cache capacity CheckDecodeMemory admits runs
// under the limit it was admitted against. The child (this test binary under `ulimit -v`, 2.5 GiB of address
// space, ~1.5 GiB of which the process holds before it allocates anything) takes that capacity for the tiny
// Oryx-TG, prefills a prompt and runs decode steps that read the whole cache (the estimate's worst case: the
// pure-Go product copies each layer's keys into blocks and the heap grows by the collector's slack). With the
// estimate of 768 B per token that counted the state once, and the limit not less the address space in use,
// the check admitted ~3.1M tokens, whose state alone (2.4 GB) the process could not map.
func TestDecodeMemoryWorstCaseUnderRlimit(t *testing.T) {
	cfg, err := oryx.Preset("tiny", oryx.OryxTG)
	require.NoError(t, err)
	if os.Getenv(decodeWorstEnv) == "1" {
		decodeWorstCaseChild(t, cfg)
		return
	}
	if testing.Short() {
		t.Skip("decode steps over a cache of ~10^5 tokens in a child process (~15 s)")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for ulimit")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	const limitKiB = 5 << 19 // 2.5 GiB
	cmd := exec.Command("sh", "-c", `ulimit -v `+strconv.Itoa(limitKiB)+` && exec "$0" -test.run '^TestDecodeMemoryWorstCaseUnderRlimit$' -test.v`, exe)
	cmd.Env = append(os.Environ(), decodeWorstEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the child died under its limit:\n%s", out)
	i := strings.Index(string(out), "capacity ")
	require.GreaterOrEqual(t, i, 0, string(out))
	var capacity int
	_, err = fmt.Sscanf(string(out[i:]), "capacity %d", &capacity)
	require.NoError(t, err, string(out))
	perToken, _ := oryx.StateMemory(cfg, 4)
	// The worst case is a real one: the state alone is a sizeable part of what the limit leaves.
	require.Greater(t, perToken*int64(capacity), int64(64<<20), string(out))
	require.Contains(t, string(out), "decoded ok", string(out))
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "capacity ") || strings.Contains(line, "decoded ok") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

// decodeWorstCaseChild runs the worst case admitted under this process's limit.
func decodeWorstCaseChild(t *testing.T, cfg oryx.Config) {
	be := backend.MustGet() // before the check: the backend's threads are part of the baseline
	// The largest capacity the check admits (it is monotone in the capacity).
	capacity := sort.Search(guard.MaxSeqLen, func(c int) bool { return oryx.CheckDecodeMemory(cfg, 1, c+1) != nil })
	require.Less(t, capacity, guard.MaxSeqLen, "no limit applies")
	require.Error(t, oryx.CheckDecodeMemory(cfg, 1, capacity+1))
	t.Logf("capacity %d tokens: estimate %s", capacity, guard.HumanBytes(oryx.DecodeMemory(cfg, 1, capacity)))
	m, err := oryx.New(cfg)
	require.NoError(t, err)
	e, err := NewEngine(be, context.New(), m, 1, capacity)
	require.NoError(t, err)
	_, err = e.Prefill([][]int32{{1, 2, 3}}, [][]oryx.Mode{{oryx.Attention, oryx.Attention, oryx.Attention}})
	require.NoError(t, err)
	whole, err := e.stepExec(0) // a step that reads the whole cache, as the last tokens of a full cache do
	require.NoError(t, err)
	for i := range 5 {
		args := []any{tensors.FromFlatDataAndDimensions([]int32{int32(4 + i)}, 1),
			tensors.FromFlatDataAndDimensions([]int32{int32(oryx.Attention)}, 1)}
		args, err = e.appendDonated(args, e.state)
		require.NoError(t, err)
		outs, err := whole.Exec(args...)
		e.state = nil
		require.NoError(t, err)
		e.setState(outs[1:])
		outs[0].FinalizeAll()
	}
	_, err = e.Step([]int32{9}, []oryx.Mode{oryx.Attention})
	require.NoError(t, err)
	require.Equal(t, []int{9}, e.Positions())
	t.Logf("decoded ok: peak RSS %s", guard.HumanBytes(guard.PeakRSS()))
}
