package oryx

// What the external tests (package oryx_test: they import oryx/oryxtest and the inference and schedule
// packages, which import oryx) read of the package's unexported constants and helpers.

const (
	ScoreLiveArrays     = scoreLiveArrays
	MinScoreChunk       = minScoreChunk
	AttentionLiveArrays = attentionLiveArrays
)

// ShapeInt is shapeInt: the shape of an int32 tensor of dims.
var ShapeInt = shapeInt
