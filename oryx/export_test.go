package oryx

import "github.com/gomlx/gomlx/pkg/ml/context"

// What the external tests (package oryx_test: they import oryx/oryxtest and the inference and schedule
// packages, which import oryx) read of the package's unexported constants and helpers.

const (
	ScoreLiveArrays     = scoreLiveArrays
	MinScoreTile        = minScoreTile
	AttentionLiveArrays = attentionLiveArrays
)

// ShapeInt is shapeInt: the shape of an int32 tensor of dims.
var ShapeInt = shapeInt

// SetLoadForHash replaces the load of LoadCheckpointHashed until restore is called.
func SetLoadForHash(load func(dir string, want *Config) (*Model, *context.Context, error)) (restore func()) {
	loadForHash = load
	return func() { loadForHash = LoadCheckpoint }
}
