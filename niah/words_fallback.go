package niah

// The fallback key words, used only when Config.WordsPath is "" (a fresh machine without
// <data root>/ruler_words/words.parquet). They are NOT RULER's lists: keys are drawn the same way
// (random.choice over the sorted adjective-noun set), but from these 48 × 64 = 3072 keys instead of
// wonderwords' 6,171,620, so the keys (and everything the random stream draws after them) differ from RULER's.
// Task difficulty is comparable (same "adjective-noun" shape); for numbers comparable with published ones,
// pass the words parquet. Written for this package: common English words, one per field.
const (
	fallbackAdjectives = `
able bitter brave bright broad busy calm careful cheap clean clever cold
curious dark deep eager early empty fair famous fancy fast fresh gentle
glad golden happy heavy hollow honest huge kind large lazy little loud
lucky modern narrow nervous noble plain quiet rapid silent simple
smooth steady`

	fallbackNouns = `
anchor apple arrow basket beacon bicycle blanket bottle bridge bucket button
candle canvas castle cellar chair circle cloud compass copper cottage
crystal curtain desert dragon engine feather forest fountain garden glacier
hammer harbor helmet island jacket kettle ladder lantern lemon marble meadow
mirror needle orchard pebble pepper pillow planet pocket rabbit ribbon
saddle shadow silver spiral stone thimble tunnel valley violin wagon
window zipper`
)
