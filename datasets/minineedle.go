package datasets

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/oryx-go/oryx/datasets/tokenizers"
)

// MiniNeedle is a compact needle-in-a-haystack task for the project's tiny byte-level models, whose contexts
// (a few hundred tokens) cannot hold RULER's ~300-byte instructions: not a RULER task [choice], but the same
// measurement — one key–value needle hidden at a chosen depth in filler text, retrieved by a query at the
// end. The filler is the story task of the synthetic language (SynthLang), so it is in-distribution
// for models trained on it:
//
//	<story sentences> The magic number for <key> is <value>. <story sentences>
//	Q: the magic number for <key>? A: the magic number for <key> is <value>.
//
// key is "<adjective>-<animal>" from small embedded lists, value a 4-digit number. The prompt ends after
// "is"; the answer is " <value>". Sizing is exact in the tokenizer: the haystack is trimmed word by word so
// that the prompt has exactly Length tokens (byte tokenizer) or as close below as possible.
type MiniNeedle struct {
	Length int     // prompt tokens
	Depth  float64 // 0 = needle first, 1 = needle right before the query
	Index  int     // sample index (with Seed, determines key, value and filler)
	Seed   uint64

	Prompt        string // ends with "... is"
	Answer        string // " 4821"
	Value         string // "4821"
	Key           string // "red-owl"
	PromptTokens  []int
	QuestionStart int // token index where "\nQ:" begins
	AnswerStart   int // token index where " A:" begins (the answer prefix; the tiny study's mixed schedule reads from here in attention)
	NeedleToken   int // token index where the needle sentence begins
}

var (
	miniAdjectives = []string{"red", "blue", "green", "small", "quiet", "happy", "brave", "old", "young", "bright", "dark", "swift"}
	miniAnimals    = []string{"owl", "fox", "cat", "dog", "bee", "eel", "yak", "elk", "ant", "bat", "cow", "hen"}
)

// GenerateMiniNeedle builds sample (seed, index) of the given token length and depth with tok.
func GenerateMiniNeedle(tok tokenizers.Tokenizer, length int, depth float64, seed uint64, index int) (MiniNeedle, error) {
	if depth < 0 || depth > 1 {
		return MiniNeedle{}, fmt.Errorf("datasets: mini needle depth %v outside [0, 1]", depth)
	}
	rng := rand.New(rand.NewPCG(seed^0x4d494e49, uint64(index)))
	key := miniAdjectives[rng.IntN(len(miniAdjectives))] + "-" + miniAnimals[rng.IntN(len(miniAnimals))]
	value := fmt.Sprintf("%04d", rng.IntN(10000))
	needle := fmt.Sprintf(" The magic number for %s is %s.", key, value)
	query := fmt.Sprintf("\nQ: the magic number for %s? A: the magic number for %s is", key, key)
	fixed := len(tok.Encode(needle)) + len(tok.Encode(query))
	if fixed >= length {
		return MiniNeedle{}, fmt.Errorf("datasets: mini needle length %d too short for the needle and query (%d tokens)", length, fixed)
	}
	// Filler: story sentences of the synthetic language, drawn until comfortably longer than needed.
	lang, err := NewSynthLang(SynthLangConfig{Seed: seed ^ 0x6e65656465, Mix: SynthMix{Story: 1}, MaxLines: 1})
	if err != nil {
		return MiniNeedle{}, err
	}
	var words []string
	for doc := uint64(index) * 1000; len(words) < 4*length; doc++ {
		words = append(words, strings.Fields(lang.Document(doc))...)
	}
	build := func(n int) (string, int, int) { // prompt from the first n filler words; needle and question starts (bytes)
		cut := int(depth*float64(n) + 0.5)
		before, after := strings.Join(words[:cut], " "), strings.Join(words[cut:n], " ")
		if after != "" {
			after = " " + after
		}
		p := before + needle + after + query
		return p, len(before), len(p) - len(query)
	}
	// The largest n whose prompt fits: token counts grow with n, so binary search.
	lo, hi := 0, len(words)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		p, _, _ := build(mid)
		if len(tok.Encode(p)) <= length {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	prompt, needleAt, questionAt := build(lo)
	s := MiniNeedle{Length: length, Depth: depth, Index: index, Seed: seed, Prompt: prompt, Answer: " " + value,
		Value: value, Key: key, PromptTokens: tok.Encode(prompt)}
	s.QuestionStart = len(tok.Encode(prompt[:questionAt]))
	s.AnswerStart = len(tok.Encode(prompt[:strings.LastIndex(prompt, " A:")]))
	s.NeedleToken = len(tok.Encode(prompt[:needleAt]))
	return s, nil
}
