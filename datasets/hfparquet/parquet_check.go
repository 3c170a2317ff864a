package hfparquet

// Checks of parquet structures before parquet-go decodes them.
//
// parquet-go trusts the sizes written in a file: a corrupt footer length, page size or thrift list length makes it
// allocate that much, and its thrift decoder ignores end-of-input while skipping DOUBLE fields, so a corrupt
// list of 2^31 doubles makes it spin for minutes. A training run must fail fast with an error instead. So, before
// parquet-go reads them, the footer, the page index and every page header of a column chunk are walked here
// with a bounds-checked thrift compact-protocol reader, and page sizes are checked against the column chunk.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// errThriftShort reports a thrift struct that does not end within the bytes given.
var errThriftShort = errors.New("thrift struct runs past the end of its bytes")

// thriftWalker walks thrift compact-protocol data, checking that every value fits in b.
type thriftWalker struct {
	b     []byte
	i     int
	depth int
}

// thriftCheck walks one thrift struct at the start of b and returns its length. Every step consumes at least
// one byte, so the walk is linear in len(b).
func thriftCheck(b []byte) (int, error) {
	w := thriftWalker{b: b}
	if err := w.structBody(); err != nil {
		return 0, err
	}
	return w.i, nil
}

func (w *thriftWalker) byte1() (byte, error) {
	if w.i >= len(w.b) {
		return 0, errThriftShort
	}
	w.i++
	return w.b[w.i-1], nil
}

func (w *thriftWalker) skip(n uint64) error {
	if n > uint64(len(w.b)-w.i) {
		return errThriftShort
	}
	w.i += int(n)
	return nil
}

func (w *thriftWalker) varint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := w.byte1()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("thrift varint longer than 10 bytes")
}

func (w *thriftWalker) structBody() error {
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > 64 {
		return errors.New("thrift structs nested deeper than 64 levels")
	}
	for {
		h, err := w.byte1()
		if err != nil {
			return err
		}
		if h == 0 { // STOP
			return nil
		}
		if h>>4 == 0 { // long form: the field id follows as a zigzag varint
			if _, err := w.varint(); err != nil {
				return err
			}
		}
		if err := w.value(h&0x0f, true); err != nil {
			return err
		}
	}
}

// value skips one value of compact type t; inField tells whether a boolean's value is in the field header.
func (w *thriftWalker) value(t byte, inField bool) error {
	switch t {
	case 1, 2: // BOOLEAN_TRUE, BOOLEAN_FALSE
		if inField {
			return nil
		}
		return w.skip(1)
	case 3: // BYTE
		return w.skip(1)
	case 4, 5, 6: // I16, I32, I64
		_, err := w.varint()
		return err
	case 7: // DOUBLE
		return w.skip(8)
	case 8: // BINARY
		n, err := w.varint()
		if err != nil {
			return err
		}
		return w.skip(n)
	case 9, 10: // LIST, SET
		h, err := w.byte1()
		if err != nil {
			return err
		}
		n, et := uint64(h>>4), h&0x0f
		if n == 15 {
			if n, err = w.varint(); err != nil {
				return err
			}
		}
		if n > uint64(len(w.b)-w.i) { // every element takes at least one byte
			return errThriftShort
		}
		for range n {
			if err := w.value(et, false); err != nil {
				return err
			}
		}
		return nil
	case 11: // MAP
		n, err := w.varint()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		kv, err := w.byte1()
		if err != nil {
			return err
		}
		if n > uint64(len(w.b)-w.i)/2 {
			return errThriftShort
		}
		for range n {
			if err := w.value(kv>>4, false); err != nil {
				return err
			}
			if err := w.value(kv&0x0f, false); err != nil {
				return err
			}
		}
		return nil
	case 12: // STRUCT
		return w.structBody()
	case 13: // UUID
		return w.skip(16)
	default:
		return fmt.Errorf("unknown thrift type %d", t)
	}
}

// checkFooter checks the footer of a file whose size is at least 12 bytes, before parquet-go reads it.
func checkFooter(f *os.File, size int64) error {
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return errors.New("no PAR1 magic at the end")
	}
	n := int64(uint32(tail[0]) | uint32(tail[1])<<8 | uint32(tail[2])<<16 | uint32(tail[3])<<24)
	if n > size-12 {
		return fmt.Errorf("footer length %d exceeds the file size %d", n, size)
	}
	footer := make([]byte, n)
	if _, err := f.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	used, err := thriftCheck(footer)
	if err != nil {
		return fmt.Errorf("corrupt footer: %w", err)
	}
	if int64(used) != n {
		return fmt.Errorf("corrupt footer: %d bytes after the file metadata (encrypted files are not supported)", n-int64(used))
	}
	return nil
}

// maxPageSize bounds the uncompressed size of one page (parquet-go allocates it before decompressing).
const maxPageSize = 1 << 30

// chunkInfo is what checkChunk needs to know of a column chunk besides its metadata.
type chunkInfo struct {
	group    int   // row group index
	rows     int64 // rows of the row group
	repeated bool  // the leaf has a repetition level (lists): pages may hold more values than rows
	useIndex bool  // check and load the offset index
}

// checkChunk walks the page headers of column chunk cc before parquet-go reads it:
//   - every page header is well-formed thrift and every page lies inside the chunk;
//   - sizes are plausible: uncompressed size at most 1 GiB, value counts bounded by the row group's rows (flat
//     columns) or the page size (lists), the decoded length announced by a SNAPPY block or the first ZSTD frame
//     at most the page's uncompressed size (parquet-go's decoders allocate what those announce);
//   - LZ4_RAW is refused: parquet-go v0.32.0's LZ4 decoder doubles its buffer without bound on corrupt data;
//   - with useIndex, the chunk's offset index is checked (page offsets are page starts, first rows increase)
//     and loaded, so that parquet-go seeks inside the row group by it. A malformed offset index is not loaded:
//     seeking then reads the pages before the target instead of jumping to it.
func checkChunk(r io.ReaderAt, size int64, rg *format.RowGroup, cc *format.ColumnChunk, chunk parquet.ColumnChunk, info chunkInfo) error {
	md := &cc.MetaData
	if md.Codec == format.Lz4Raw {
		return errors.New("LZ4_RAW compression is not supported (parquet-go v0.32.0 cannot decode corrupt LZ4 data safely); rewrite the file with SNAPPY or ZSTD")
	}
	// parquet-go reads the chunk from the dictionary page offset when there is one, else from the data page offset.
	base := md.DataPageOffset
	if md.DictionaryPageOffset != 0 {
		base = md.DictionaryPageOffset
	}
	if base < 4 || md.TotalCompressedSize < 0 || base > size || md.TotalCompressedSize > size-base {
		return fmt.Errorf("column chunk at offset %d, %d bytes, lies outside the file (%d bytes)", base, md.TotalCompressedSize, size)
	}
	end := base + md.TotalCompressedSize
	var starts []int64
	hr := &pageHeaderReader{r: r}
	var flatValues int64
	for off := base; off < end; {
		h, n, err := hr.read(off, end)
		if err != nil {
			return err
		}
		if err := checkPage(r, md, info, &h, off, n, end, &flatValues); err != nil {
			return err
		}
		starts = append(starts, off)
		off += int64(n) + int64(h.CompressedPageSize)
	}
	if _, found := slices.BinarySearch(starts, md.DataPageOffset); !found && len(starts) > 0 {
		return fmt.Errorf("data page offset %d is not the start of a page", md.DataPageOffset)
	}
	return checkOffsetIndex(r, size, rg, cc, chunk, info, starts)
}

// pageHeaderReader reads page headers of a column chunk, reusing its buffer.
type pageHeaderReader struct {
	r     io.ReaderAt
	buf   []byte
	proto thrift.CompactProtocol
}

// read reads the page header at off (the chunk ending at end), growing its window until the header's
// thrift is complete, and returns it with its length in bytes.
func (hr *pageHeaderReader) read(off, end int64) (h format.PageHeader, n int, err error) {
	window := min(end-off, 1024)
	for {
		if int64(cap(hr.buf)) < window {
			hr.buf = make([]byte, window)
		}
		b := hr.buf[:window]
		if _, err := hr.r.ReadAt(b, off); err != nil {
			return h, 0, fmt.Errorf("reading the page header at offset %d: %w", off, err)
		}
		var err error
		n, err = thriftCheck(b)
		if err == nil {
			break
		}
		if err != errThriftShort || window == end-off {
			return h, 0, fmt.Errorf("corrupt page header at offset %d: %w", off, err)
		}
		window = min(end-off, window*8)
	}
	if err := thrift.Unmarshal(&hr.proto, hr.buf[:n], &h); err != nil {
		return h, 0, fmt.Errorf("corrupt page header at offset %d: %w", off, err)
	}
	return h, n, nil
}

// checkPage checks the page whose n-byte header h starts at off: its sizes against the chunk (ending at end)
// and the bounds, its value count (added to *flatValues, the chunk's count so far, for a flat column), and
// for SNAPPY and ZSTD the size its compressed data announces.
func checkPage(r io.ReaderAt, md *format.ColumnMetaData, info chunkInfo, h *format.PageHeader, off int64, n int, end int64,
	flatValues *int64) error {
	if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > end-off-int64(n) {
		return fmt.Errorf("page at offset %d: compressed size %d exceeds the column chunk", off, h.CompressedPageSize)
	}
	if h.UncompressedPageSize < 0 || h.UncompressedPageSize > maxPageSize {
		return fmt.Errorf("page at offset %d: uncompressed size %d out of range", off, h.UncompressedPageSize)
	}
	// Bound the value counts, which parquet-go sizes its level and value buffers by.
	maxValues := int64(h.UncompressedPageSize)*8 + 1024
	if !info.repeated {
		maxValues = info.rows
	} else {
		maxValues += info.rows
	}
	var numValues int64
	dataStart := off + int64(n) // where the compressed bytes start
	compressed := md.Codec != format.Uncompressed
	switch {
	case h.DataPageHeader.Valid:
		numValues = int64(h.DataPageHeader.V.NumValues)
	case h.DataPageHeaderV2.Valid:
		v2 := &h.DataPageHeaderV2.V
		numValues = int64(v2.NumValues)
		levels := int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
		if v2.RepetitionLevelsByteLength < 0 || v2.DefinitionLevelsByteLength < 0 || levels > int64(h.CompressedPageSize) {
			return fmt.Errorf("page at offset %d: level lengths out of range", off)
		}
		dataStart += levels
		compressed = compressed && (!v2.IsCompressed.Valid || v2.IsCompressed.V)
	case h.DictionaryPageHeader.Valid:
		if d := int64(h.DictionaryPageHeader.V.NumValues); d < 0 || d > int64(h.UncompressedPageSize)+1024 {
			return fmt.Errorf("dictionary page at offset %d: %d values in %d bytes", off, d, h.UncompressedPageSize)
		}
	}
	if numValues < 0 || numValues > maxValues {
		return fmt.Errorf("page at offset %d: %d values out of range", off, numValues)
	}
	if !info.repeated {
		if *flatValues += numValues; *flatValues > info.rows {
			return fmt.Errorf("pages hold more values than the row group's %d rows", info.rows)
		}
	}
	if compressed && (md.Codec == format.Snappy || md.Codec == format.Zstd) {
		pageEnd := off + int64(n) + int64(h.CompressedPageSize)
		head := make([]byte, min(pageEnd-dataStart, 18))
		if _, err := r.ReadAt(head, dataStart); err != nil {
			return fmt.Errorf("reading page at offset %d: %w", off, err)
		}
		if announced, ok := announcedSize(md.Codec, head); ok && announced > uint64(h.UncompressedPageSize) {
			return fmt.Errorf("page at offset %d: compressed data announces %d bytes, the page header %d", off, announced, h.UncompressedPageSize)
		}
	}
	return nil
}

// checkOffsetIndex checks the chunk's offset index against its page starts and loads it (with
// info.useIndex): page offsets are page starts, first rows increase. A malformed index is not loaded.
func checkOffsetIndex(r io.ReaderAt, size int64, rg *format.RowGroup, cc *format.ColumnChunk, chunk parquet.ColumnChunk,
	info chunkInfo, starts []int64) error {
	// parquet-go finds a chunk's offset index through the row group's ordinal: use it only when that is right.
	fc, ok := chunk.(*parquet.FileColumnChunk)
	off, l := cc.OffsetIndexOffset, int64(cc.OffsetIndexLength)
	if !info.useIndex || !ok || int(rg.Ordinal) != info.group || off < 4 || l <= 0 || off > size || l > size-off {
		return nil
	}
	b := make([]byte, l)
	if _, err := r.ReadAt(b, off); err != nil {
		return nil
	}
	if n, err := thriftCheck(b); err != nil || int64(n) != l {
		return nil
	}
	oi, err := fc.OffsetIndex() // loads and keeps the index for SeekToRow
	if err != nil || oi == nil {
		return nil
	}
	last := int64(-1)
	for i := range oi.NumPages() {
		if _, found := slices.BinarySearch(starts, oi.Offset(i)); !found {
			return fmt.Errorf("offset index: page %d offset %d is not the start of a page", i, oi.Offset(i))
		}
		row := oi.FirstRowIndex(i)
		if row <= last || (i == 0 && row != 0) || row >= max(info.rows, 1) {
			return fmt.Errorf("offset index: page %d first row %d out of order", i, row)
		}
		last = row
	}
	return nil
}

// announcedSize returns the decoded size announced at the start of compressed data: a SNAPPY block's length
// prefix, or the content size of a ZSTD frame header (ok is false when it announces none).
func announcedSize(codec format.CompressionCodec, b []byte) (size uint64, ok bool) {
	switch codec {
	case format.Snappy:
		v, n := binary.Uvarint(b)
		return v, n > 0
	case format.Zstd:
		if len(b) < 6 || binary.LittleEndian.Uint32(b) != 0xFD2FB528 {
			return 0, false
		}
		fhd := b[4]
		single := fhd>>5&1 == 1
		pos := 5
		if !single {
			pos++ // window descriptor
		}
		pos += []int{0, 1, 2, 4}[fhd&3] // dictionary id
		fcsSize := []int{0, 2, 4, 8}[fhd>>6]
		if fcsSize == 0 && single {
			fcsSize = 1
		}
		if fcsSize == 0 || pos+fcsSize > len(b) {
			return 0, false
		}
		var v uint64
		for i := fcsSize - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[pos+i])
		}
		if fcsSize == 2 {
			v += 256
		}
		return v, true
	}
	return 0, false
}
