package evalsetup

import (
	"fmt"
	"path/filepath"

	"github.com/oryx-go/oryx/internal/guard"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/oryx/infer"
)

// CheckLengthMemory refuses n sequences of seqLen tokens (named by what and count) whose memory would not
// fit this process (internal/guard), before they are generated: the forward of rows of them at that
// length with the checkpoint's config (infer.PrefillBytes, attention in query blocks under scoreMemMB, the
// --score-mem-mb flag, 0 for the default; checked first, since one huge sequence is the likelier mistake) and
// the sequences' host buffers (ids, text and per-token outputs: hostBytesPerToken a token). A checkpoint
// whose config cannot be read is left to the model's loading to report.
func CheckLengthMemory(checkpoint string, scoreMemMB int, what, count string, n, rows, seqLen int) error {
	if cfg, err := oryx.LoadConfig(filepath.Join(checkpoint, oryx.ConfigFileName)); err == nil {
		attnMem := oryx.DefaultScoreMemBytes
		if scoreMemMB > 0 {
			attnMem = int64(scoreMemMB) << 20
		}
		if err := guard.CheckMemory(fmt.Sprintf("%s: the forward of %d row(s)", what, rows),
			infer.PrefillBytes(cfg, rows, seqLen+8, seqLen+8, 4, attnMem)); err != nil {
			return err
		}
	}
	b, ok := guard.MulAll(int64(n), int64(seqLen), hostBytesPerToken)
	if !ok {
		b = -1
	}
	return guard.CheckMemory(fmt.Sprintf("%s × %s", what, count), b)
}

// hostBytesPerToken bounds the host memory of one generated token of an MQAR example or a mini needle:
// ids, the needle's text and scratch (GenerateMiniNeedle grew a 47-byte-per-token buffer for a 16,777,216-token
// needle) and the per-token outputs.
const hostBytesPerToken = 64
