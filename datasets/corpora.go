package datasets

import (
	"fmt"
	"path/filepath"
	"strings"
)

// KnownCorpus is a real-text corpus the project's studies read: where they expect it and how to get it. The
// files are never in the repository: a user gives their path in a data spec (text:PATH, parquet:PATTERN).
// When such a path is missing, the error names the corpus it looks like and says where to get it.
type KnownCorpus struct {
	Name string // e.g. "tinyshakespeare"
	// Path is where the studies expect the file, relative to the repository root: the machines of this project
	// have the data folder beside the checkout (DefaultDataDir).
	Path   string
	Spec   string // the data-spec item that reads it, e.g. "text:../shared/data/tinyshakespeare/input.txt"
	Source string // where to get it
	Size   int64  // bytes
	SHA256 string // of the file as the studies read it
}

// DefaultDataDir is where the studies look for the corpora of KnownCorpora, relative to the repository root.
const DefaultDataDir = "../shared/data"

// KnownCorpora are the real-text corpora the studies use (see docs/data.md, "Real text").
var KnownCorpora = []KnownCorpus{
	{
		Name: "tinyshakespeare", Path: DefaultDataDir + "/tinyshakespeare/input.txt",
		Spec:   "text:" + DefaultDataDir + "/tinyshakespeare/input.txt",
		Source: "https://raw.githubusercontent.com/karpathy/char-rnn/6f9487a6fe5b420b7ca9afb0d7c078e37c1d1b4e/data/tinyshakespeare/input.txt",
		Size:   1115394, SHA256: "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed",
	},
	{
		Name: "WikiText-2 (raw) test", Path: DefaultDataDir + "/wikitext2/wiki.test.raw",
		Spec: "text:" + DefaultDataDir + "/wikitext2/wiki.test.raw",
		Source: "wikitext-2-raw/wiki.test.raw in the WikiText-2 raw archive " +
			"(https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-2-raw-v1.zip; the same text is the test split " +
			"of the Hugging Face dataset Salesforce/wikitext, config wikitext-2-raw-v1)",
		Size: 1290590, SHA256: "173c87a53759e0201f33e0ccf978e510c2042d7f2cb78229d9a50d79b9e7dd08",
	},
	{
		Name: "WikiText-2 (raw) test, one row per article", Path: DefaultDataDir + "/hf/wikitext_document_level/wikitext-2-raw-v1-test.parquet",
		Spec: "parquet:" + DefaultDataDir + "/hf/wikitext_document_level/wikitext-2-raw-v1-test.parquet#page",
		Source: "the test split of the Hugging Face dataset EleutherAI/wikitext_document_level, config wikitext-2-raw-v1 " +
			"(column \"page\"; the Hub's parquet file has the same 62 rows in other bytes, so another sha256)",
		Size: 611380, SHA256: "934f92c1f3f6337609bd2c12a3dd8341c64408fe43db730e40c89698bb42b0a1",
	},
	{
		Name: "WikiText-2 (raw) test, one row per line", Path: DefaultDataDir + "/hf/wikitext/wikitext-2-raw-v1-test.parquet",
		Spec: "parquet:" + DefaultDataDir + "/hf/wikitext/wikitext-2-raw-v1-test.parquet#text",
		Source: "the test split of the Hugging Face dataset Salesforce/wikitext, config wikitext-2-raw-v1 " +
			"(column \"text\"; the Hub's parquet file has the same 4,358 rows in other bytes, so another sha256)",
		Size: 611843, SHA256: "5bc4ff420e0bf053fc9af5d6b9b9ff134d72756e8b88ca9252cee74ab546d24b",
	},
	{
		Name: "tinyshakespeare, one row per paragraph", Path: DefaultDataDir + "/hf/tinyshakespeare/train.parquet",
		Spec: "parquet:" + DefaultDataDir + "/hf/tinyshakespeare/train.parquet#text",
		Source: "tinyshakespeare's input.txt (above) split at its blank lines into 7,222 rows of a \"text\" column " +
			"(the Hugging Face dataset karpathy/tiny_shakespeare has the same text in another row layout); " +
			"text:input.txt reads the same text without the parquet file",
		Size: 622258, SHA256: "48b7514de21183363fd512f1ce731c47a413c9831be35886d1f5734b7dd33ab3",
	},
}

// knownCorpusFor returns the known corpus whose expected path ends like path (the same file under another
// data directory), if any.
func knownCorpusFor(path string) (KnownCorpus, bool) {
	p := filepath.ToSlash(filepath.Clean(path))
	for _, k := range KnownCorpora {
		suffix := strings.TrimPrefix(k.Path, DefaultDataDir+"/")
		if p == suffix || strings.HasSuffix(p, "/"+suffix) {
			return k, true
		}
	}
	return KnownCorpus{}, false
}

// missingHint is what an error about a missing path adds: for a known corpus, where the studies expect it and
// where to get it (source, size, sha256); else where the list of corpora is.
func missingHint(path string) string {
	k, ok := knownCorpusFor(path)
	if !ok {
		return "give the path of an existing file (the real-text corpora the studies use, and where to get them: docs/data.md)"
	}
	return fmt.Sprintf("it looks like %s, which the studies expect at %s (relative to the repository root); get it from %s "+
		"(%d bytes, sha256 %s)", k.Name, k.Path, k.Source, k.Size, k.SHA256)
}
