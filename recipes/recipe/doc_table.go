package recipe

import (
	"fmt"
	"strings"

	"github.com/oryx-go/oryx/internal/human"
)

// recipesTable is the recipe table as docs/recipes.md shows it: one row per recipe (table order), from
// MakeSettings of the recipe with its own defaults. TestRecipesDoc keeps the file equal to it
// (`go test ./recipes/recipe -run TestRecipesDoc -update` rewrites it).
func recipesTable() (string, error) {
	var b strings.Builder
	b.WriteString("| Recipe | Parameters | d_model × layers, heads | Vocab | Tokens | Steps | Batch × seq (micro) | " +
		"Peak LR, min ratio, warm-up | AdamW β₁, β₂, ε, wd | Clip | Precision | Mode blocks, p(attn) | Data | Tokenizer |\n")
	b.WriteString("|---|--:|---|--:|--:|--:|---|---|---|--:|---|---|---|---|\n")
	for _, r := range table {
		tc, err := r.Train.Resolve()
		if err != nil {
			return "", fmt.Errorf("%s: training config: %w", r.Name, err)
		}
		s, err := MakeSettings(r, tc, DataSettings{Train: r.Data, Column: "text", Tokenizer: r.Tokenizer})
		if err != nil {
			return "", fmt.Errorf("%s: %w", r.Name, err)
		}
		m := s.Model
		multi := "—"
		if m.Variant.IsMultiMixer() {
			multi = fmt.Sprintf("%d, %g", tc.BlockLen, tc.AttentionProb)
		}
		fmt.Fprintf(&b, "| %s | %s | %d × %d, %d | %d | %s | %d | %d × %d (%d) | %g, %g, %d | %g, %g, %g, %g | %g | %s | %s | %s | %s |\n",
			r.Name, human.Int(s.Params), m.DModel, m.Layers, m.Heads, m.Vocab, human.Int(int64(tc.Steps)*tc.TokensPerStep()),
			tc.Steps, tc.Batch, tc.SeqLen, tc.MicroBatch, tc.LR, tc.MinLRRatio, tc.WarmupSteps,
			tc.Beta1, tc.Beta2, tc.Eps, tc.WeightDecay, tc.ClipNorm, tc.Precision, multi, orGiven(r.Data), orGiven(r.Tokenizer))
	}
	return b.String(), nil
}

// orGiven is a recipe's default --data or --tokenizer for the table.
func orGiven(v string) string {
	if v == "" {
		return "(must be given)"
	}
	return "`" + v + "`"
}
