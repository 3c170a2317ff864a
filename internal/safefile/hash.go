package safefile

import (
	"encoding/binary"
	"fmt"
	"hash"
	"io"
)

// HashInto adds name, the file's length and its bytes to h, each length-prefixed so that no two sequences of
// files hash alike; anything but a regular file is refused (Open: a FIFO must not hang the hash). Content
// hashes of checkpoints (oryx.CheckpointHash) and evaluation data (evalrun.DataHash) are built from it.
func HashInto(h hash.Hash, path, name string) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(name)))
	h.Write(n[:])
	io.WriteString(h, name)
	binary.LittleEndian.PutUint64(n[:], uint64(st.Size()))
	h.Write(n[:])
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
