package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// streamTestTok is a byte-level test double: ids 0–255 are bytes, 256 is EOS, 257 pad.
type streamTestTok struct{}

func (streamTestTok) Encode(text string) []int {
	ids := make([]int, len(text))
	for i := 0; i < len(text); i++ {
		ids[i] = int(text[i])
	}
	return ids
}

func (streamTestTok) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id == 256 {
			b.WriteString("<|endoftext|>")
		} else if id < 256 {
			b.WriteByte(byte(id))
		}
	}
	return b.String()
}
func (streamTestTok) VocabSize() int { return 258 }
func (streamTestTok) EOS() int       { return 256 }
func (streamTestTok) Name() string   { return "test-bytes" }

// streamTestDocs returns n random documents of length 0..maxLen, some empty and some invalid UTF-8.
func streamTestDocs(seed uint64, n, maxLen int) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	docs := make([]string, n)
	for i := range docs {
		switch r.IntN(10) {
		case 0:
			docs[i] = ""
		case 1:
			docs[i] = "bad\xff\xfeutf8"
		default:
			b := make([]byte, r.IntN(maxLen)+1)
			for j := range b {
				b[j] = byte('a' + r.IntN(26))
			}
			docs[i] = string(b)
		}
	}
	return docs
}

// expectedTokens is the token stream S of docs (skipping empty and invalid documents) over epochs passes.
func expectedTokens(docs []string, epochs int) []int32 {
	var s []int32
	for range epochs {
		for _, d := range docs {
			if d == "" || !utf8.ValidString(d) {
				continue
			}
			for i := 0; i < len(d); i++ {
				s = append(s, int32(d[i]))
			}
			s = append(s, 256)
		}
	}
	return s
}

func drain(t *testing.T, s *Stream) [][]int32 {
	t.Helper()
	var out [][]int32
	for {
		seq, err := s.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, seq)
	}
}

func newTestStream(t *testing.T, cfg StreamConfig, docs []string) *Stream {
	t.Helper()
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s, err := NewStream(cfg, NewSliceSource("test", docs), streamTestTok{})
	require.NoError(t, err)
	return s
}

func TestStreamPackingWindows(t *testing.T) {
	docs := streamTestDocs(1, 200, 40)
	for _, T := range []int{1, 3, 16, 100} {
		s := newTestStream(t, StreamConfig{SeqLen: T, ShuffleBuffer: 1}, docs)
		got := drain(t, s)
		S := expectedTokens(docs, 1)
		K := 0
		if len(S) >= T+1 {
			K = (len(S) - 1) / T
		}
		require.Len(t, got, K, "T=%d", T)
		for k, w := range got {
			require.Equal(t, S[k*T:k*T+T+1], w, "T=%d window %d", T, k)
			if k > 0 {
				// The last target of window k-1 is the first input of window k.
				require.Equal(t, got[k-1][T], w[0])
			}
		}
		st := s.Stats()
		require.Equal(t, int64(len(S)), st.Tokens)
		require.Equal(t, int64(len(docs)), st.Documents)
		require.Equal(t, int64(K), st.Packed)
		require.Equal(t, int64(K), st.Yielded)
		require.Equal(t, int64(len(S)-K*T), st.DroppedTail)
		require.Equal(t, 1, st.Epochs)
	}
}

func TestStreamShuffleDeterministicPermutation(t *testing.T) {
	docs := streamTestDocs(2, 300, 30)
	plain := drain(t, newTestStream(t, StreamConfig{SeqLen: 8, ShuffleBuffer: 1}, docs))
	a := drain(t, newTestStream(t, StreamConfig{SeqLen: 8, ShuffleBuffer: 64, Seed: 7}, docs))
	b := drain(t, newTestStream(t, StreamConfig{SeqLen: 8, ShuffleBuffer: 64, Seed: 7}, docs))
	c := drain(t, newTestStream(t, StreamConfig{SeqLen: 8, ShuffleBuffer: 64, Seed: 8}, docs))
	require.Equal(t, a, b, "same seed, same order")
	require.NotEqual(t, a, c, "different seed, different order")
	require.NotEqual(t, plain, a, "shuffled")
	// A permutation of the unshuffled windows.
	key := func(ws [][]int32) []string {
		out := make([]string, len(ws))
		for i, w := range ws {
			out[i] = fmt.Sprint(w)
		}
		slices.Sort(out)
		return out
	}
	require.Equal(t, key(plain), key(a))
	require.Equal(t, key(plain), key(c))
}

func TestStreamShardingUnion(t *testing.T) {
	docs := streamTestDocs(3, 250, 50)
	for _, world := range []int{2, 3} {
		cfg := StreamConfig{SeqLen: 12, ShuffleBuffer: 17, Seed: 3, Epochs: 2}
		single := drain(t, newTestStream(t, cfg, docs))
		ranks := make([][][]int32, world)
		for r := range world {
			c := cfg
			c.Rank, c.World = r, world
			ranks[r] = drain(t, newTestStream(t, c, docs))
		}
		var union [][]int32
		for g := range single {
			r, i := g%world, g/world
			require.Less(t, i, len(ranks[r]), "world %d rank %d short", world, r)
			union = append(union, ranks[r][i])
		}
		require.Equal(t, single, union, "world %d", world)
		total := 0
		for _, rs := range ranks {
			total += len(rs)
		}
		require.Equal(t, len(single), total)
	}
}

func TestStreamResumeExact(t *testing.T) {
	docs := streamTestDocs(4, 120, 60)
	for _, tc := range []struct {
		name string
		cfg  StreamConfig
	}{
		{"plain", StreamConfig{SeqLen: 10, ShuffleBuffer: 1}},
		{"shuffled", StreamConfig{SeqLen: 10, ShuffleBuffer: 9, Seed: 11}},
		{"shuffled-2-epochs-rank0", StreamConfig{SeqLen: 7, ShuffleBuffer: 13, Seed: 5, World: 2, Epochs: 2}},
		{"shuffled-2-epochs-rank1", StreamConfig{SeqLen: 7, ShuffleBuffer: 13, Seed: 5, Rank: 1, World: 2, Epochs: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full := drain(t, newTestStream(t, tc.cfg, docs))
			require.NotEmpty(t, full)
			// Cut points: the start, early (buffer still filling), middle, near the end, the very end.
			cuts := []int{0, 1, 2, 5, len(full) / 3, len(full) / 2, len(full) - 3, len(full) - 1, len(full)}
			for _, cut := range cuts {
				if cut < 0 || cut > len(full) {
					continue
				}
				s := newTestStream(t, tc.cfg, docs)
				for i := range cut {
					seq, err := s.Next()
					require.NoError(t, err)
					require.Equal(t, full[i], seq)
				}
				raw, err := json.Marshal(s.Cursor())
				require.NoError(t, err)
				var cur StreamCursor
				require.NoError(t, json.Unmarshal(raw, &cur))
				// Resume over a fresh source object, as after a restart.
				cfg := tc.cfg
				cfg.Log = io.Discard
				r, err := ResumeStream(cfg, NewSliceSource("test", docs), streamTestTok{}, cur)
				require.NoError(t, err)
				want := append([][]int32{}, full[cut:]...)
				rest := append([][]int32{}, drain(t, r)...)
				require.Equal(t, want, rest, "cut %d of %d", cut, len(full))
				// The original, not interrupted, continues identically too (Cursor has no side effects).
				require.Equal(t, want, append([][]int32{}, drain(t, s)...), "cut %d original", cut)
				require.Equal(t, s.Stats(), r.Stats())
			}
		})
	}
}

func TestStreamEpochs(t *testing.T) {
	docs := []string{"hello", "", "world!", "abc"}
	T := 4
	got := drain(t, newTestStream(t, StreamConfig{SeqLen: T, ShuffleBuffer: 1, Epochs: 3}, docs))
	S := expectedTokens(docs, 3)
	require.Len(t, got, (len(S)-1)/T)
	for k, w := range got {
		require.Equal(t, S[k*T:k*T+T+1], w)
	}

	// Forever: keeps going well past one pass.
	s := newTestStream(t, StreamConfig{SeqLen: T, ShuffleBuffer: 3, Epochs: EpochsForever}, docs)
	for range 100 {
		_, err := s.Next()
		require.NoError(t, err)
	}
	require.Greater(t, s.Stats().Epochs, 10)

	// Forever over a source with nothing usable is an error, not a hang.
	s = newTestStream(t, StreamConfig{SeqLen: T, Epochs: EpochsForever}, []string{"", "\xff"})
	_, err := s.Next()
	require.ErrorContains(t, err, "no tokens in a whole pass")
	_, err2 := s.Next()
	require.Equal(t, err, err2, "sticky")
}

func TestStreamBadInputCountedAndLogged(t *testing.T) {
	docs := []string{"ok doc", "", "\xff\xfe", "another", ""}
	var log bytes.Buffer
	s := newTestStream(t, StreamConfig{SeqLen: 2, ShuffleBuffer: 1, Log: &log}, docs)
	drain(t, s)
	st := s.Stats()
	require.Equal(t, int64(5), st.Documents)
	require.Equal(t, int64(2), st.SkippedEmpty)
	require.Equal(t, int64(1), st.SkippedInvalidUTF8)
	out := log.String()
	require.Contains(t, out, "skipped invalid UTF-8 document 2 of epoch 0")
	require.Contains(t, out, "skipped empty document 1 of epoch 0")
	require.Contains(t, out, "skipped empty document 4 of epoch 0")
	require.Contains(t, out, "skipped 2 empty and 1 invalid UTF-8")

	// Many skips: the first few individually, then a note, then only counts.
	many := make([]string, 50)
	many[49] = "text"
	log.Reset()
	s = newTestStream(t, StreamConfig{SeqLen: 2, Log: &log}, many)
	drain(t, s)
	require.Equal(t, int64(49), s.Stats().SkippedEmpty)
	require.Equal(t, maxLoggedSkips+1, strings.Count(log.String(), "\n"), log.String())
	require.Contains(t, log.String(), "only counted in Stream.Stats")
}

type badTok struct{ streamTestTok }

func (badTok) Encode(string) []int { return []int{1, 999} }

func TestStreamTokenizerIDOutOfRange(t *testing.T) {
	s, err := NewStream(StreamConfig{SeqLen: 4, Log: io.Discard}, NewSliceSource("x", []string{"a"}), badTok{})
	require.NoError(t, err)
	_, err = s.Next()
	require.ErrorContains(t, err, "returned id 999")
}

func TestStreamBatch(t *testing.T) {
	docs := streamTestDocs(5, 40, 20)
	all := drain(t, newTestStream(t, StreamConfig{SeqLen: 5, ShuffleBuffer: 8, Seed: 1}, docs))
	s := newTestStream(t, StreamConfig{SeqLen: 5, ShuffleBuffer: 8, Seed: 1}, docs)
	var got [][]int32
	for {
		b, err := s.Batch(7)
		got = append(got, b...)
		if err == io.EOF {
			require.Less(t, len(b), 7)
			break
		}
		require.NoError(t, err)
		require.Len(t, b, 7)
	}
	require.Equal(t, all, got)
	_, err := s.Batch(0)
	require.Error(t, err)

	in, tg := InputsTargets(all[0])
	require.Len(t, in, 5)
	require.Equal(t, all[0][1:], tg)
}

func TestStreamConfigValidation(t *testing.T) {
	src := NewSliceSource("x", nil)
	for _, tc := range []struct {
		cfg   StreamConfig
		field string
	}{
		{StreamConfig{SeqLen: 0}, "SeqLen"},
		{StreamConfig{SeqLen: 4, ShuffleBuffer: -1}, "ShuffleBuffer"},
		{StreamConfig{SeqLen: 4, World: -2}, "World"},
		{StreamConfig{SeqLen: 4, Rank: 2, World: 2}, "Rank"},
		{StreamConfig{SeqLen: 4, Rank: -1}, "Rank"},
		{StreamConfig{SeqLen: 4, Epochs: -2}, "Epochs"},
	} {
		_, err := NewStream(tc.cfg, src, streamTestTok{})
		require.ErrorContains(t, err, "StreamConfig."+tc.field, "%+v", tc.cfg)
	}
	_, err := NewStream(StreamConfig{SeqLen: 4}, nil, streamTestTok{})
	require.Error(t, err)
	_, err = NewStream(StreamConfig{SeqLen: 4}, src, nil)
	require.Error(t, err)

	s, err := NewStream(StreamConfig{SeqLen: 4}, src, streamTestTok{})
	require.NoError(t, err)
	require.Equal(t, DefaultShuffleBuffer, s.Config().ShuffleBuffer)
	require.Equal(t, 1, s.Config().World)
	require.Equal(t, 1, s.Config().Epochs)
}

func TestStreamResumeMismatch(t *testing.T) {
	docs := streamTestDocs(6, 30, 20)
	cfg := StreamConfig{SeqLen: 6, ShuffleBuffer: 4, Seed: 2, Log: io.Discard}
	s := newTestStream(t, cfg, docs)
	_, err := s.Next()
	require.NoError(t, err)
	cur := s.Cursor()

	bad := cfg
	bad.Seed = 3
	_, err = ResumeStream(bad, NewSliceSource("test", docs), streamTestTok{}, cur)
	require.ErrorContains(t, err, "StreamConfig.Seed")
	bad = cfg
	bad.World, bad.Rank = 2, 1
	_, err = ResumeStream(bad, NewSliceSource("test", docs), streamTestTok{}, cur)
	require.ErrorContains(t, err, "StreamConfig.Rank")
	_, err = ResumeStream(cfg, NewSliceSource("test", docs), badTok{}, cur)
	require.NoError(t, err, "badTok has the same name") // names identify tokenizers
	c2 := cur
	c2.Tokenizer = "gpt-neox-20b"
	_, err = ResumeStream(cfg, NewSliceSource("test", docs), streamTestTok{}, c2)
	require.ErrorContains(t, err, "tokenizer")
	c2 = cur
	c2.Buffer = [][]int32{{1, 2}}
	_, err = ResumeStream(cfg, NewSliceSource("test", docs), streamTestTok{}, c2)
	require.ErrorContains(t, err, "window 0 has 2 tokens")

	// A different source name is logged, not refused.
	var log bytes.Buffer
	cfg.Log = &log
	_, err = ResumeStream(cfg, NewSliceSource("moved", docs), streamTestTok{}, cur)
	require.NoError(t, err)
	require.Contains(t, log.String(), "cursor was taken over test")
}

type failingSource struct{ SliceSource }

func (f *failingSource) Next() (string, error) { return "", errors.New("disk on fire") }

func TestStreamSourceErrorWrapped(t *testing.T) {
	s, err := NewStream(StreamConfig{SeqLen: 4, Log: io.Discard}, &failingSource{SliceSource{name: "fs"}}, streamTestTok{})
	require.NoError(t, err)
	_, err = s.Next()
	require.ErrorContains(t, err, "disk on fire")
	require.ErrorContains(t, err, "reading fs")
}
