package safefile

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oryx-go/oryx/internal/guard"
)

// readBigEnv makes TestReadFileWithinItsAdmission's test binary the child.
const readBigEnv = "SAFEFILE_READ_BIG"

// vmSize is this process's address space in bytes (VmSize), 0 where it is unknown.
func vmSize() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmSize:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestReadFileWithinItsAdmission: a file ReadFile admits is read within the memory it was admitted against.
// The child (this test binary under a 2 GiB RLIMIT_AS) reads a sparse file of 85 % of the address space it
// has left, which guard.CheckMemory admits; io.ReadAll, growing its buffer by reallocation, needed about twice
// the file and died with a fatal out-of-memory error (`evals merge` on a 2.4 GB file under 4 GB).
func TestReadFileWithinItsAdmission(t *testing.T) {
	if os.Getenv(readBigEnv) == "1" {
		var l syscall.Rlimit
		require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_AS, &l))
		size := int64(float64(int64(l.Cur)-vmSize()) * 0.85)
		p := filepath.Join(t.TempDir(), "big.json")
		f, err := os.Create(p)
		require.NoError(t, err)
		require.NoError(t, f.Truncate(size)) // sparse: no disk
		require.NoError(t, f.Close())
		require.NoError(t, guard.CheckMemory("the test", size+1), "the file must be one ReadFile admits")
		data, err := ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, size, int64(len(data)))
		os.Stdout.WriteString("read " + strconv.FormatInt(size, 10) + " bytes\n")
		return
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for ulimit")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command("sh", "-c", `ulimit -v 2097152 && exec "$0" -test.run '^TestReadFileWithinItsAdmission$'`, exe)
	cmd.Env = append(os.Environ(), readBigEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the child died reading the file:\n%s", out)
	require.Contains(t, string(out), "read ", string(out))
	t.Log(strings.SplitN(string(out), "\n", 2)[0])
}

// TestReadFileMax: a file over the bound is refused naming it and both sizes; a file within it is read whole.
func TestReadFileMax(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(p, []byte("0123456789"), 0o644))
	data, err := ReadFileMax(p, 10)
	require.NoError(t, err)
	require.Equal(t, "0123456789", string(data))
	_, err = ReadFileMax(p, 9)
	require.ErrorContains(t, err, p)
	require.ErrorContains(t, err, "larger than")
	empty := filepath.Join(t.TempDir(), "empty")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	data, err = ReadFile(empty)
	require.NoError(t, err)
	require.Empty(t, data)
}
