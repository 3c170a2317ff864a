package hf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/oryx-go/oryx/internal/safefile"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/oryx-go/oryx/internal/atomicfile"
)

// The safetensors format (github.com/huggingface/safetensors): an unsigned little-endian 64-bit header
// length N, N bytes of JSON — for each tensor {"dtype", "shape", "data_offsets": [begin, end]} relative to
// the data section, plus an optional "__metadata__" map of strings — then the data section: every tensor's
// bytes, little-endian, row-major, back to back. The header is padded with spaces to a multiple of 8 bytes
// so that the data section is aligned.

// Tensor is one named tensor of a safetensors file: its dtype name ("F32", "BF16", ...), shape and raw
// little-endian bytes.
type Tensor struct {
	Name  string
	DType string
	Shape []int
	Data  []byte
}

// dtypeSizes are the element sizes of the safetensors dtypes this package reads and writes.
var dtypeSizes = map[string]int{"F64": 8, "F32": 4, "BF16": 2, "F16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
	"U8": 1, "BOOL": 1}

// maxHeader bounds the JSON header a reader accepts (the reference implementation uses 100 MB).
const maxHeader = 100 << 20

type headerEntry struct {
	DType       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// check validates a tensor's dtype and that its byte length matches its shape.
func (t *Tensor) check() error {
	size, ok := dtypeSizes[t.DType]
	if !ok {
		return fmt.Errorf("tensor %q: unsupported dtype %q", t.Name, t.DType)
	}
	n := int64(size)
	for _, d := range t.Shape {
		if d < 0 {
			return fmt.Errorf("tensor %q: negative dimension in shape %v", t.Name, t.Shape)
		}
		if d > 0 && n > math.MaxInt64/int64(d) {
			return fmt.Errorf("tensor %q: shape %v overflows", t.Name, t.Shape)
		}
		n *= int64(d)
	}
	if n != int64(len(t.Data)) {
		return fmt.Errorf("tensor %q: %s %v needs %d bytes, has %d", t.Name, t.DType, t.Shape, n, len(t.Data))
	}
	return nil
}

// WriteSafetensors writes the tensors (sorted by name) and metadata to path atomically.
func WriteSafetensors(path string, tensors []Tensor, metadata map[string]string) error {
	ts := slices.Clone(tensors)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var off int64
	for i := range ts {
		if err := ts[i].check(); err != nil {
			return fmt.Errorf("safetensors %s: %w", path, err)
		}
		if ts[i].Name == "__metadata__" || ts[i].Name == "" {
			return fmt.Errorf("safetensors %s: invalid tensor name %q", path, ts[i].Name)
		}
		if i > 0 && ts[i].Name == ts[i-1].Name {
			return fmt.Errorf("safetensors %s: duplicate tensor name %q", path, ts[i].Name)
		}
		shape := ts[i].Shape
		if shape == nil {
			shape = []int{}
		}
		end := off + int64(len(ts[i].Data))
		header[ts[i].Name] = headerEntry{DType: ts[i].DType, Shape: shape, DataOffsets: [2]int64{off, end}}
		off = end
	}
	hj, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("safetensors %s: %w", path, err)
	}
	if pad := (8 - len(hj)%8) % 8; pad > 0 {
		hj = append(hj, []byte(strings.Repeat(" ", pad))...)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		if err := binary.Write(w, binary.LittleEndian, uint64(len(hj))); err != nil {
			return err
		}
		if _, err := w.Write(hj); err != nil {
			return err
		}
		for _, t := range ts {
			if _, err := w.Write(t.Data); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadSafetensors reads every tensor of a safetensors file (sorted by name) and its metadata. A file that
// is truncated, has a header out of bounds, a tensor name twice, overlapping or gapped data offsets, an
// unknown dtype or a shape that disagrees with its byte range is an error naming the file and the tensor.
func ReadSafetensors(path string) ([]Tensor, map[string]string, error) {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("safetensors %s: %s", path, fmt.Sprintf(format, args...))
	}
	data, err := safefile.ReadFile(path) // a regular file that fits in memory (a FIFO would hang os.ReadFile)
	if err != nil {
		return nil, nil, err
	}
	if len(data) < 8 {
		return nil, nil, errf("%d bytes: too short for the 8-byte header length", len(data))
	}
	n := binary.LittleEndian.Uint64(data[:8])
	if n > maxHeader || n > uint64(len(data)-8) {
		return nil, nil, errf("header length %d does not fit the file (%d bytes)", n, len(data))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+n], &raw); err != nil {
		return nil, nil, errf("header is not a JSON object: %v", err)
	}
	// encoding/json keeps the last of two equal keys: a tensor named twice would silently lose one.
	if err := checkUniqueKeys(bytes.TrimRight(data[8:8+n], " ")); err != nil {
		return nil, nil, errf("header: %v (tensor names must be unique)", err)
	}
	body := data[8+n:]
	var meta map[string]string
	var ts []Tensor
	var spans [][2]int64
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &meta); err != nil {
				return nil, nil, errf("__metadata__ is not a map of strings: %v", err)
			}
			continue
		}
		var e headerEntry
		dec := json.NewDecoder(strings.NewReader(string(msg)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, nil, errf("tensor %q: bad header entry: %v", name, err)
		}
		b, end := e.DataOffsets[0], e.DataOffsets[1]
		if b < 0 || end < b || end > int64(len(body)) {
			return nil, nil, errf("tensor %q: data offsets [%d, %d] outside the data section (%d bytes)", name, b, end, len(body))
		}
		t := Tensor{Name: name, DType: e.DType, Shape: e.Shape, Data: body[b:end]}
		if err := t.check(); err != nil {
			return nil, nil, errf("%v", err)
		}
		ts = append(ts, t)
		spans = append(spans, e.DataOffsets)
	}
	// The tensors must tile the data section exactly (the reference reader's rule): no gaps, no overlaps.
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	var at int64
	for _, s := range spans {
		if s[0] != at {
			return nil, nil, errf("data offsets leave a gap or overlap at byte %d", at)
		}
		at = s[1]
	}
	if at != int64(len(body)) {
		return nil, nil, errf("%d bytes after the last tensor", int64(len(body))-at)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	return ts, meta, nil
}

// errBigEndian is returned on machines whose native byte order is not little-endian: the export copies
// tensor bytes as they are in memory.
var errBigEndian = errors.New("safetensors export needs a little-endian machine")
