package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/oryx-go/oryx/datasets/hfparquet"
	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/stretchr/testify/require"
)

// numberedText writes a file of n lines "L000000 <filler>\n" (each line's number unique, lengths varying) and
// returns its path and content.
func numberedText(t *testing.T, dir, name string, first, n int) (string, string) {
	t.Helper()
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "L%06d %s\n", i, strings.Repeat("abcdefghij", 1+i%5))
	}
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p, b.String()
}

var lineNumber = regexp.MustCompile(`L([0-9]{6})`)

// lineNumbers returns the line numbers a decoded window shows in full.
func lineNumbers(t *testing.T, s string) []int {
	var out []int
	for _, m := range lineNumber.FindAllStringSubmatch(s, -1) {
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		out = append(out, n)
	}
	return out
}

// splitEOS decodes a byte-tokenizer window and splits it at EOS.
func splitEOS(tok tokenizers.Tokenizer, w []int32) []string {
	return strings.Split(tok.Decode(toInts(w)), "<|endoftext|>")
}

// TestTextHeldOutNeverOverlapsTraining: the training sequences of text:PATH (two files through a glob, and
// in a mixture beside the synthetic language) come from the training bytes only, over several epochs; the
// validation set and HeldOut come from the held-out bytes only; the cut is at a line start near 90 %.
func TestTextHeldOutNeverOverlapsTraining(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	dir := t.TempDir()
	_, a := numberedText(t, dir, "a.txt", 0, 400)
	_, b := numberedText(t, dir, "b.txt", 100000, 300)
	glob := filepath.Join(dir, "*.txt")

	// The expected cuts: the first line start at or after 90 % of each file.
	firstHeld := map[int]bool{} // line numbers in the held-out parts
	trainText := map[string]string{}
	heldText := map[string]string{}
	for name, content := range map[string]string{"a": a, "b": b} {
		target := (len(content)*9 + 9) / 10
		cut := strings.IndexByte(content[target-1:], '\n') + target
		require.Equal(t, byte('\n'), content[cut-1])
		got, err := heldOutCut([]byte(content), DefaultHeldOut)
		require.NoError(t, err)
		require.Equal(t, cut, got, name)
		require.InDelta(t, 0.9, float64(cut)/float64(len(content)), 0.01)
		trainText[name], heldText[name] = content[:cut], content[cut:]
		for _, n := range lineNumbers(t, content[cut:]) {
			firstHeld[n] = true
		}
	}
	require.NotEmpty(t, firstHeld)
	inTrain := func(piece string) bool {
		return strings.Contains(trainText["a"], piece) || strings.Contains(trainText["b"], piece)
	}
	inHeld := func(piece string) bool {
		return strings.Contains(heldText["a"], piece) || strings.Contains(heldText["b"], piece)
	}

	const T = 64
	for _, spec := range []string{"text:" + glob, "mix:mqar=1,text:" + glob + "=3,pairs=8"} {
		src, err := OpenTraining(DataSpec{Spec: spec}, tok, T, 5, nil, io.Discard)
		require.NoError(t, err, spec)
		// About 26k training bytes: 400 windows a pass; 3000 sequences are several epochs.
		seqs, err := src.Batch(3000)
		require.NoError(t, err)
		textRows := 0
		seen := map[int]bool{}
		for i, w := range seqs {
			require.Len(t, w, T+1)
			if w[0] >= MQARTokenOffset && w[0] < tokenizers.ByteTokenizerEOS {
				continue // an MQAR row (ids 128–255; the text is ASCII)
			}
			textRows++
			for _, piece := range splitEOS(tok, w) {
				require.True(t, inTrain(piece), "%s: sequence %d is not training text: %q", spec, i, piece)
			}
			for _, n := range lineNumbers(t, tok.Decode(toInts(w))) {
				require.False(t, firstHeld[n], "%s: sequence %d shows held-out line %d", spec, i, n)
				seen[n] = true
			}
		}
		require.Greater(t, textRows, 1000, spec)
		require.Greater(t, len(seen), 600, "%s: the training lines are all visited", spec)
	}

	val, what, err := ValidationSet(DataSpec{Spec: "mix:synth=1,mqar=1,text:" + glob + "=3"}, DataSpec{}, tok, T, 20, io.Discard)
	require.NoError(t, err)
	require.Contains(t, what, "held-out bytes of text:"+glob)
	m, err := HeldOutSequences(DataSpec{Spec: "text:" + glob}, tok, T)
	require.NoError(t, err)
	all, err := HeldOut(DataSpec{Spec: "text:" + glob}, tok, T, m)
	require.NoError(t, err)
	require.Len(t, all, m)
	covered := map[int]bool{}
	for i, w := range all {
		for _, piece := range splitEOS(tok, w) {
			require.True(t, inHeld(piece), "held-out sequence %d is not held-out text: %q", i, piece)
		}
		for _, n := range lineNumbers(t, tok.Decode(toInts(w))) {
			require.True(t, firstHeld[n], "held-out sequence %d shows training line %d", i, n)
			covered[n] = true
		}
	}
	require.Greater(t, len(covered), len(firstHeld)*9/10, "HeldOut(M) covers the held-out text")
	for i, w := range val {
		require.Equal(t, all[i*m/20], w, "the validation set is HeldOut's evenly spread windows")
	}
	_, err = HeldOut(DataSpec{Spec: "text:" + glob}, tok, T, m+1)
	require.ErrorContains(t, err, fmt.Sprintf("holds %d sequences", m))
}

// TestParquetHeldOutByDocument: parquet:PATTERN#COLUMN holds out the last 10 % of the rows; no training
// sequence shows a held-out document, every held-out sequence shows only held-out documents.
func TestParquetHeldOutByDocument(t *testing.T) {
	type row struct {
		Page string `parquet:"page"`
	}
	dir := t.TempDir()
	var rows []row
	for i := 0; i < 200; i++ {
		rows = append(rows, row{Page: fmt.Sprintf("L%06d %s", i, strings.Repeat("xyz ", 5+i%7))})
	}
	pq := filepath.Join(dir, "pages.parquet")
	require.NoError(t, hfparquet.WriteFile(pq, rows))
	tok := tokenizers.NewByteTokenizer()
	spec := "parquet:" + pq + "#page"
	src, err := OpenTraining(DataSpec{Spec: spec}, tok, 32, 1, nil, io.Discard)
	require.NoError(t, err)
	seqs, err := src.Batch(2000)
	require.NoError(t, err)
	seen := map[int]bool{}
	for i, w := range seqs {
		for _, n := range lineNumbers(t, tok.Decode(toInts(w))) {
			require.Less(t, n, 180, "training sequence %d shows held-out row %d", i, n)
			seen[n] = true
		}
	}
	require.Len(t, seen, 180, "every training row is read")
	held, err := HeldOut(DataSpec{Spec: spec}, tok, 32, 10)
	require.NoError(t, err)
	for i, w := range held {
		for _, n := range lineNumbers(t, tok.Decode(toInts(w))) {
			require.GreaterOrEqual(t, n, 180, "held-out sequence %d shows training row %d", i, n)
		}
	}
	_, err = OpenTraining(DataSpec{Spec: "parquet:" + pq + "#text"}, tok, 32, 1, nil, io.Discard)
	require.ErrorContains(t, err, `"text"`)
	require.ErrorContains(t, err, pq)
	_, err = OpenTraining(DataSpec{Spec: "parquet:" + pq, Column: "page"}, tok, 32, 1, nil, io.Discard)
	require.ErrorContains(t, err, "parquet:PATTERN#page")
}

// TestTextMixtureResumeIsExact: a mixture of the synthetic language and two text components, resumed from
// its state (through JSON) at several points, among them past epoch ends of the text components, yields the
// sequences and masks of the uninterrupted source.
func TestTextMixtureResumeIsExact(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	dir := t.TempDir()
	a, _ := numberedText(t, dir, "a.txt", 0, 60)
	type row struct {
		Text string `parquet:"text"`
	}
	var rows []row
	for i := 0; i < 40; i++ {
		rows = append(rows, row{Text: fmt.Sprintf("row %d: %s", i, strings.Repeat("pq ", i%9+3))})
	}
	pq := filepath.Join(dir, "r.parquet")
	require.NoError(t, hfparquet.WriteFile(pq, rows))
	mixed := fmt.Sprintf("mix:synth=1,mqar=1,text:%s=2,parquet:%s=1,pairs=8,heldout=0.2", a, pq)
	const T, total = 48, 400
	for spec, components := range map[string]int{"text:" + a: 1, mixed: 2} {
		full, err := OpenTraining(DataSpec{Spec: spec}, tok, T, 9, nil, io.Discard)
		require.NoError(t, err)
		want, wantMasks, err := full.MaskedBatch(total)
		require.NoError(t, err)
		for _, cut := range []int{1, 37, 150, 333} {
			src, err := OpenTraining(DataSpec{Spec: spec}, tok, T, 9, nil, io.Discard)
			require.NoError(t, err)
			_, _, err = src.MaskedBatch(cut)
			require.NoError(t, err)
			state, err := src.State()
			require.NoError(t, err)
			var st mixState
			require.NoError(t, json.Unmarshal(state, &st))
			require.Len(t, st.Corpora, components)
			resumed, err := OpenTraining(DataSpec{Spec: spec}, tok, T, 9, state, io.Discard)
			require.NoError(t, err)
			got, gotMasks, err := resumed.MaskedBatch(total - cut)
			require.NoError(t, err)
			require.Equal(t, want[cut:], got, "%s: cut at %d", spec, cut)
			require.Equal(t, wantMasks[cut:], gotMasks, "%s: cut at %d", spec, cut)
		}
	}
	spec := mixed
	full, err := OpenTraining(DataSpec{Spec: spec}, tok, T, 9, nil, io.Discard)
	require.NoError(t, err)
	_, err = full.Batch(total)
	require.NoError(t, err)
	// The text component passed its epoch end (about 3,000 training bytes: ~60 windows of 48).
	st := mixState{}
	state, err := full.State()
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(state, &st))
	require.Greater(t, st.Corpora[0].Drawn, int64(2*windowCount(st.Corpora[0].Tokens, 0, T)), "several epochs of the text file")

	// A state with a windows count outside [0, rows] is refused.
	bad := st
	bad.Corpora = append([]corpusState(nil), st.Corpora...)
	bad.Corpora[1].Drawn = -3
	badJSON, err := json.Marshal(bad)
	require.NoError(t, err)
	_, err = OpenTraining(DataSpec{Spec: spec}, tok, T, 9, badJSON, io.Discard)
	require.ErrorContains(t, err, "-3 windows drawn")
	// A far position (a state from a very long run, or a hostile one) resumes at once.
	far := bad
	far.Rows, far.Corpora[0].Drawn, far.Corpora[1].Drawn = 1<<62, 1<<61, 1<<60
	farJSON, err := json.Marshal(far)
	require.NoError(t, err)
	src, err := OpenTraining(DataSpec{Spec: spec}, tok, T, 9, farJSON, io.Discard)
	require.NoError(t, err)
	seqs, err := src.Batch(50)
	require.NoError(t, err)
	require.Len(t, seqs, 50)

	// A changed file is refused on resume.
	require.NoError(t, os.WriteFile(a, []byte(strings.Repeat("changed line\n", 300)), 0o644))
	_, err = OpenTraining(DataSpec{Spec: spec}, tok, T, 9, state, io.Discard)
	require.ErrorContains(t, err, "the files changed")
}

// TestTextWindowsEpochs: each epoch draws ⌊(L−T)/T⌋ distinct windows, all at its offset, in another order;
// epochs after the first start at other offsets; seek(n) equals n draws.
func TestTextWindowsEpochs(t *testing.T) {
	toks := make([]int32, 1000)
	for i := range toks {
		toks[i] = int32(i)
	}
	const T = 30
	w, err := newTextWindows("test", toks, T, 4)
	require.NoError(t, err)
	k := (len(toks) - T) / T
	require.Equal(t, k, w.k)
	var drawn [][]int32
	offsets := map[int]bool{}
	var orders []string
	for e := 0; e < 4; e++ {
		off := w.offset(int64(e))
		starts := map[int32]bool{}
		var order []int32
		for i := 0; i < k; i++ {
			x := w.next()
			require.Len(t, x, T+1)
			require.Equal(t, x[0]+T, x[T], "a contiguous window")
			require.Equal(t, int32(off), x[0]%T, "epoch %d's windows start at its offset", e)
			require.False(t, starts[x[0]], "epoch %d draws window %d twice", e, x[0])
			starts[x[0]] = true
			order = append(order, (x[0]-int32(off))/T)
			drawn = append(drawn, x)
		}
		offsets[off] = true
		orders = append(orders, fmt.Sprint(order))
	}
	require.Greater(t, len(offsets), 1, "epochs start at other offsets")
	require.NotEqual(t, orders[0], orders[1], "epochs draw in other orders")
	for _, n := range []int64{0, 5, 31, 32, 70, int64(len(drawn) - 1)} {
		v, err := newTextWindows("test", toks, T, 4)
		require.NoError(t, err)
		v.seek(n)
		require.Equal(t, drawn[n], v.next(), "seek(%d)", n)
	}
	v, err := newTextWindows("test", toks, T, 4)
	require.NoError(t, err)
	v.seek(1 << 60) // a far position costs nothing to reach
	require.Len(t, v.next(), T+1)
	_, err = newTextWindows("tiny", toks[:50], T, 4)
	require.ErrorContains(t, err, "too little text")
}

// TestTextSpecGrammar: the forms of text components and their errors.
func TestTextSpecGrammar(t *testing.T) {
	m, err := parseMix("mix:synth=1,text:/a/b.txt=2,parquet:/c/*.parquet#page=0.5,parquet:/d.parquet=1,heldout=0.2")
	require.NoError(t, err)
	require.Equal(t, []textItem{{"text", "/a/b.txt", "", 2}, {"parquet", "/c/*.parquet", "page", 0.5},
		{"parquet", "/d.parquet", "text", 1}}, m.texts)
	require.Equal(t, 0.2, m.heldout)
	m, err = parseMix("text:/x=y.txt")
	require.NoError(t, err)
	require.Equal(t, []textItem{{"text", "/x=y.txt", "", 1}}, m.texts)
	require.Equal(t, DefaultHeldOut, m.heldout)
	require.True(t, HasHeldOut("mix:synth=1,text:/a=1"))
	require.True(t, HasHeldOut("parquet:/a.parquet"))
	require.False(t, HasHeldOut("mix:synth=1,mqar=2"))
	require.False(t, HasHeldOut("/a.parquet"))
	for bad, want := range map[string]string{
		"mix:synth=1,text=/a.txt":           "write a text component as text:PATH=W",
		"mix:synth=1,text:/a.txt":           "needs a weight",
		"mix:text:/a.txt=x":                 `the weight of text:/a.txt is "x"`,
		"mix:text:/a.txt=0":                 "want a number > 0",
		"mix:text:/a.txt=1,heldout=0":       "heldout=0",
		"mix:text:/a.txt=1,heldout=0.7":     "(0, 0.5]",
		"mix:parquet:/a.parquet#=1":         "empty column",
		"mix:synth=1,text:=1":               "needs a path",
		"mix:synth=NaN":                     "must be a number ≥ 0",
		"text:":                             "needs a path",
		"mix:synth=1,text:/a.txt=1,wiki=2":  `unknown key "wiki"`,
		"mix:synth=0,mqar=0,text:/a.txt=-1": "want a number > 0",
	} {
		_, err := parseMix(bad)
		require.ErrorContains(t, err, want, bad)
	}
}

// TestTextBadInput: missing files name the path and, for the studies' corpora, where they are expected and
// how to get them; bad files are errors naming the file.
func TestTextBadInput(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	dir := t.TempDir()
	open := func(spec string) error {
		_, err := OpenTraining(DataSpec{Spec: spec}, tok, 32, 1, nil, io.Discard)
		return err
	}
	missing := filepath.Join(dir, "nowhere.txt")
	err := open("text:" + missing)
	require.ErrorContains(t, err, missing+" not found")
	require.ErrorContains(t, err, "docs/data.md")
	// A known corpus under another data directory: where the studies expect it, source, size, sha256.
	err = open("mix:synth=1,text:" + filepath.Join(dir, "data", "tinyshakespeare", "input.txt") + "=1")
	require.ErrorContains(t, err, "tinyshakespeare")
	require.ErrorContains(t, err, "../shared/data/tinyshakespeare/input.txt")
	require.ErrorContains(t, err, "karpathy/char-rnn")
	require.ErrorContains(t, err, "1115394 bytes")
	require.ErrorContains(t, err, KnownCorpora[0].SHA256)
	err = open("parquet:" + filepath.Join(dir, "hf", "wikitext_document_level", "wikitext-2-raw-v1-test.parquet") + "#page")
	require.ErrorContains(t, err, "EleutherAI/wikitext_document_level")
	require.ErrorContains(t, err, "934f92c1")
	err = open("text:" + filepath.Join(dir, "none-*.txt"))
	require.ErrorContains(t, err, "matches no file")

	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	bad := write("latin1.txt", append([]byte(strings.Repeat("ok line\n", 50)), 0xe9, '\n'))
	err = open("text:" + bad)
	require.ErrorContains(t, err, bad)
	require.ErrorContains(t, err, "not UTF-8 text (the first invalid byte is at offset 400)")
	empty := write("empty.txt", nil)
	require.ErrorContains(t, open("text:"+empty), empty+": empty file")
	oneLine := write("oneline.txt", []byte(strings.Repeat("word ", 100)))
	require.ErrorContains(t, open("text:"+oneLine), "no line break")
	small := write("small.txt", []byte("a few words\nand a line\n"))
	err = open("text:" + small)
	require.ErrorContains(t, err, "too little text")
	require.ErrorContains(t, err, small)
	require.ErrorContains(t, open("text:"+dir), "is a directory")
	notPQ := write("not.parquet", []byte("plain text"))
	require.ErrorContains(t, open("parquet:"+notPQ), notPQ)

	_, err = OpenStream(DataSpec{Spec: "text:" + small}, tok, SpecStream{SeqLen: 8, Log: io.Discard})
	require.ErrorContains(t, err, "HeldOut")
	_, err = HeldOut(DataSpec{Spec: "mix:synth=1"}, tok, 8, 2)
	require.ErrorContains(t, err, "has no held-out part")
	big, _ := numberedText(t, dir, "big.txt", 0, 100)
	_, err = HeldOut(DataSpec{Spec: "text:" + big}, tok, 4096, 1)
	require.ErrorContains(t, err, "fewer than seq_len+1")
}

// TestMixtureValidationSetText: the text rows of the mixture's validation set come from the held-out part.
func TestMixtureValidationSetText(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	dir := t.TempDir()
	p, content := numberedText(t, dir, "a.txt", 0, 500)
	cut, err := heldOutCut([]byte(content), DefaultHeldOut)
	require.NoError(t, err)
	held := map[int]bool{}
	for _, n := range lineNumbers(t, content[cut:]) {
		held[n] = true
	}
	seqs, masks, err := MixtureValidationSet("mix:mqar=1,text:"+p+"=1,pairs=8", tok, 64, 60)
	require.NoError(t, err)
	text := 0
	for i, w := range seqs {
		if w[0] >= MQARTokenOffset && w[0] < tokenizers.ByteTokenizerEOS {
			continue
		}
		text++
		require.Nil(t, masks[i], "text rows train every token")
		for _, piece := range splitEOS(tok, w) {
			require.Contains(t, content[cut:], piece, "validation row %d", i)
		}
		for _, n := range lineNumbers(t, tok.Decode(toInts(w))) {
			require.True(t, held[n], "validation row %d shows training line %d", i, n)
		}
	}
	require.Greater(t, text, 15)
}

// sharedData returns shared/data (found walking up from the working directory: ../shared/data beside the
// repository), or skips.
func sharedData(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(filepath.Join(p, "tinyshakespeare")); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	t.Skipf("shared/data (tinyshakespeare, WikiText-2) not found above %s: skipping the test on the real corpora", wd)
	return ""
}

// TestRealCorporaSplit: on the studies' corpora (when present), the known files have the recorded size and
// sha256; tinyshakespeare and WikiText-2 split at a line start near 90 %, and their tokenized parts decode
// to exactly the bytes before and after the cut, with the byte tokenizer and GPT-NeoX's tokenizer.json.
func TestRealCorporaSplit(t *testing.T) {
	root := sharedData(t)
	for _, k := range KnownCorpora {
		p := filepath.Join(root, strings.TrimPrefix(k.Path, DefaultDataDir+"/"))
		data, err := os.ReadFile(p)
		require.NoError(t, err, k.Name)
		sum := sha256.Sum256(data)
		require.Equal(t, k.SHA256, hex.EncodeToString(sum[:]), k.Name)
		require.Equal(t, k.Size, int64(len(data)), k.Name)
	}
	toks := []tokenizers.Tokenizer{tokenizers.NewByteTokenizer()}
	if neox := filepath.Join(root, "tokenizers", "gpt-neox-20b", "tokenizer.json"); fileExists(neox) {
		tok, err := tokenizers.Load(neox)
		require.NoError(t, err)
		toks = append(toks, tok)
	}
	for _, rel := range []string{"tinyshakespeare/input.txt", "wikitext2/wiki.test.raw"} {
		path := filepath.Join(root, rel)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		cut, err := heldOutCut(data, DefaultHeldOut)
		require.NoError(t, err)
		require.Equal(t, byte('\n'), data[cut-1])
		require.InDelta(t, 0.9, float64(cut)/float64(len(data)), 0.001)
		for _, tok := range toks {
			p, err := loadTextItem(textItem{kind: "text", pattern: path, weight: 1}, tok, DefaultHeldOut)
			require.NoError(t, err)
			eos := tok.Decode([]int{tok.EOS()})
			// (Compared as booleans: a failure would print megabytes.)
			require.True(t, string(data[:cut])+eos == tok.Decode(toInts(p.train)), "%s %s: the training part decodes to the bytes before the cut", rel, tok.Name())
			require.True(t, string(data[cut:])+eos == tok.Decode(toInts(p.held)), "%s %s: the held-out part decodes to the bytes from the cut on", rel, tok.Name())
			t.Logf("%s, %s: %d training tokens, %d held out (%d sequences of 257)", rel, tok.Name(), len(p.train), len(p.held),
				windowCount(len(p.held), 0, 256))
		}
	}
	// The studies' default English mixture opens, and its held-out set has hundreds of sequences.
	spec := DataSpec{Spec: fmt.Sprintf("mix:text:%s=1,text:%s=1", filepath.Join(root, "tinyshakespeare", "input.txt"),
		filepath.Join(root, "wikitext2", "wiki.test.raw"))}
	m, err := HeldOutSequences(spec, toks[0], 256)
	require.NoError(t, err)
	require.Greater(t, m, 800)
	pqSpec := DataSpec{Spec: "parquet:" + filepath.Join(root, "hf", "wikitext_document_level", "wikitext-2-raw-v1-test.parquet") + "#page"}
	pm, err := HeldOutSequences(pqSpec, toks[0], 256)
	require.NoError(t, err)
	require.Greater(t, pm, 100)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestTextComponentWeights: rows are drawn from the components in proportion to their weights.
func TestTextComponentWeights(t *testing.T) {
	tok := tokenizers.NewByteTokenizer()
	dir := t.TempDir()
	a, _ := numberedText(t, dir, "a.txt", 0, 300)
	b, _ := numberedText(t, dir, "b.txt", 500000, 300)
	src, err := OpenTraining(DataSpec{Spec: fmt.Sprintf("mix:mqar=2,text:%s=1,text:%s=3,pairs=8", a, b)}, tok, 64, 3, nil, io.Discard)
	require.NoError(t, err)
	seqs, err := src.Batch(3000)
	require.NoError(t, err)
	counts := map[string]int{}
	for _, w := range seqs {
		switch n := lineNumbers(t, tok.Decode(toInts(w))); {
		case w[0] >= MQARTokenOffset && w[0] < tokenizers.ByteTokenizerEOS:
			counts["mqar"]++
		case len(n) > 0 && n[0] < 500000:
			counts["a"]++
		case len(n) > 0:
			counts["b"]++
		default:
			t.Fatalf("a row of neither component: %q", tok.Decode(toInts(w)))
		}
	}
	// Expected 1000, 500 and 1500 rows; binomial SDs about 26, 20 and 27.
	require.InDelta(t, 1000, counts["mqar"], 110, "%v", counts)
	require.InDelta(t, 500, counts["a"], 90, "%v", counts)
	require.InDelta(t, 1500, counts["b"], 110, "%v", counts)
}
