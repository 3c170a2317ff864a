package study

import (
	"testing"

	"github.com/oryx-go/oryx/internal/testutil"
	"github.com/stretchr/testify/require"
)

// TestJSONKeysSnakeCase: study.json's keys are snake_case, the claims' comparison keys included.
func TestJSONKeysSnakeCase(t *testing.T) {
	testutil.CheckSnakeCaseJSON(t, nil, Report{}, Claim{}, Comparison{})
	require.Equal(t, "oryx_tg_attention_vs_transformer", snakeKey("oryx-tg attention vs transformer"))
	cl := claimA(Default(), []Comparison{{Name: "oryx-tg linear vs gdn", Loss: 1, RefLoss: 1}, {Name: "oryx-tg attention vs transformer"}})
	require.Contains(t, cl.Numbers, "oryx_tg_linear_vs_gdn_gap")
	testutil.CheckSnakeCaseJSON(t, nil, cl.Numbers)
}
