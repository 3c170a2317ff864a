package datasets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oryx-go/oryx/datasets/hfparquet"
)

// SynthColumns are the columns of the synthetic corpora's parquet files, by kind: "mqar" (WriteMQARParquet,
// MQARRow) and "synthlang" (WriteSynthLangParquet, TextRow).
var SynthColumns = map[string][]string{"mqar": {"tokens", "mask"}, "synthlang": {"text"}}

// HasColumns returns nil when path is a parquet file with exactly the columns want, in order; otherwise an
// error saying which columns it has (or why it is not a parquet file).
func HasColumns(path string, want []string) error {
	set, err := hfparquet.Open(path)
	if err != nil {
		return err
	}
	got, err := set.Columns(path)
	if err != nil {
		return err
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("its columns are %s", strings.Join(got, ", "))
	}
	return nil
}
