package pjrt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/pkg/errors"
	"k8s.io/klog/v2"
)

// The persistent compilation cache: CompileConfig.Done keeps the executables it compiles in a directory, as
// serialized by the plugin (LoadedExecutable.Serialize), and loads them from there when the same program is
// compiled again with the same options by the same plugin on the same kind of machine — in another process
// too. Compiling a large program on a CPU takes seconds to minutes; loading it takes milliseconds.
var compilationCache struct {
	mu       sync.Mutex
	dir      string
	minTime  time.Duration
	maxBytes int64
	trust    func(path string, info fs.FileInfo) error
}

// compilationCacheSuffix names the files of the cache.
const compilationCacheSuffix = ".pjrt-executable"

// SetCompilationCache enables the persistent compilation cache in dir (created when needed), or disables it
// when dir is "". Executables whose compilation took less than minCompileTime are not stored (recompiling
// them costs about as much as loading them). When the cached files exceed maxBytes (≤ 0: no limit), the least
// recently used are removed.
//
// The key of an executable is the SHA-256 of the program, the compile options, the plugin (path, size,
// modification time, platform and its version), the XLA_FLAGS environment variable and, for the CPU, the
// host's processor model and instruction-set flags (the compiled code targets them).
//
// The cache heals itself: a file is verified before the plugin reads it (its key and a checksum of its
// contents, see compilationCacheMagic); one that fails verification, is not a regular file, exceeds the entry
// bound (maxBytes, or 4 GiB without a limit) or fails to load is removed with a warning and the program
// compiled again; an executable loaded from the cache whose first execution fails is removed, compiled again
// and run once more. Temporary files of writers killed mid-write are removed after an hour and counted in
// maxBytes until then.
func SetCompilationCache(dir string, minCompileTime time.Duration, maxBytes int64) {
	compilationCache.mu.Lock()
	defer compilationCache.mu.Unlock()
	compilationCache.dir, compilationCache.minTime, compilationCache.maxBytes = dir, minCompileTime, maxBytes
}

// SetCompilationCacheTrust sets the rule a cache file must pass before a byte of it is read (nil: none): fn
// gets the file's path and the Stat of the file as opened (without following a link), and returns an error
// saying why the file is not to be run — e.g. that another user owns it or could write it, in a cache
// directory shared with others. Such a file is left in place with a warning naming it and the reason, and the
// program compiled again (its executable then replaces the file where the directory allows it).
func SetCompilationCacheTrust(fn func(path string, info fs.FileInfo) error) {
	compilationCache.mu.Lock()
	defer compilationCache.mu.Unlock()
	compilationCache.trust = fn
}

func compilationCacheTrust() func(path string, info fs.FileInfo) error {
	compilationCache.mu.Lock()
	defer compilationCache.mu.Unlock()
	return compilationCache.trust
}

// CompilationCacheDir returns the directory of the persistent compilation cache, "" when disabled.
func CompilationCacheDir() string {
	compilationCache.mu.Lock()
	defer compilationCache.mu.Unlock()
	return compilationCache.dir
}

func compilationCacheSettings() (dir string, minTime time.Duration, maxBytes int64) {
	compilationCache.mu.Lock()
	defer compilationCache.mu.Unlock()
	return compilationCache.dir, compilationCache.minTime, compilationCache.maxBytes
}

// compilationCacheKey identifies a compilation: see SetCompilationCache.
func compilationCacheKey(plugin *Plugin, client *Client, format string, program, options []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "go-xla compilation cache v2\x00%s\x00%s\x00%s\x00", plugin.Path(), client.platform, client.platformVersion)
	if fi, err := os.Stat(plugin.Path()); err == nil {
		fmt.Fprintf(h, "%d\x00%d\x00", fi.Size(), fi.ModTime().UnixNano())
	}
	fmt.Fprintf(h, "%s\x00%s\x00", os.Getenv("XLA_FLAGS"), hostFingerprint())
	fmt.Fprintf(h, "%s\x00%d\x00", format, len(program))
	h.Write(program)
	h.Write(options)
	return hex.EncodeToString(h.Sum(nil))
}

var hostFingerprint = sync.OnceValue(func() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	var keep []string
	for _, line := range strings.Split(string(data), "\n") {
		name, _, _ := strings.Cut(line, ":")
		switch strings.TrimSpace(name) {
		case "vendor_id", "model name", "flags":
			keep = append(keep, line)
		case "":
			if len(keep) > 0 {
				return strings.Join(keep, "\n") // the first processor's
			}
		}
	}
	return strings.Join(keep, "\n")
})

// compilationCacheMagic starts every cache file. A file is the magic, two header lines and the plugin's
// serialization of the executable:
//
//	go-xla pjrt executable v2
//	key <the key, 64 hex digits>
//	sha256 <SHA-256 of the serialization, 64 hex digits>
//	<serialization>
//
// Both are checked before the plugin sees a byte: an executable deserialized from corrupt bytes can crash the
// process when it runs (SIGSEGV, SIGILL: one changed byte did), and one stored under another program's key
// fails to run or computes the other program.
const compilationCacheMagic = "go-xla pjrt executable v2\n"

const (
	// defaultMaxCacheEntryBytes bounds a cache file when the cache has no size limit.
	defaultMaxCacheEntryBytes = 4 << 30
	// staleCacheTempAge: a temporary file older than this is a killed writer's (writing takes seconds at most).
	staleCacheTempAge = time.Hour
)

// cacheWarnf reports what the cache removes or fails to store (a variable for the tests).
var cacheWarnf = klog.Warningf

// cacheEntryBound is the largest cache file read or written.
func cacheEntryBound(maxBytes int64) int64 {
	if maxBytes > 0 {
		return maxBytes
	}
	return defaultMaxCacheEntryBytes
}

// isHexKey reports whether s is a key: 64 lower-case hex digits.
func isHexKey(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// isCacheEntryName: <key>.pjrt-executable. The cache touches no other name than these and isCacheTempName's.
func isCacheEntryName(name string) bool {
	key, ok := strings.CutSuffix(name, compilationCacheSuffix)
	return ok && isHexKey(key)
}

// isCacheTempName: <key>.tmp<digits>, what storeCachedExecutable writes before renaming it.
func isCacheTempName(name string) bool {
	key, digits, ok := strings.Cut(name, ".tmp")
	if !ok || !isHexKey(key) || digits == "" {
		return false
	}
	return strings.Trim(digits, "0123456789") == ""
}

// encodeCacheEntry returns the cache file of key holding the serialized executable.
func encodeCacheEntry(key string, serialized []byte) []byte {
	sum := sha256.Sum256(serialized)
	header := fmt.Sprintf("%skey %s\nsha256 %s\n", compilationCacheMagic, key, hex.EncodeToString(sum[:]))
	return append([]byte(header), serialized...)
}

// cacheHeaderLen is the length of a cache file's header: the magic and the key and checksum lines.
const cacheHeaderLen = len(compilationCacheMagic) + len("key \n") + 2*sha256.Size + len("sha256 \n") + 2*sha256.Size

// decodeCacheHeader checks that header (cacheHeaderLen bytes) is the header of key's cache file and returns
// the checksum it records.
func decodeCacheHeader(header []byte, key string) (string, error) {
	rest, ok := bytes.CutPrefix(header, []byte(compilationCacheMagic))
	if !ok {
		return "", errors.New("not a cache file of this version (no header)")
	}
	field := func(name string) (string, bool) {
		var line []byte
		line, rest, ok = bytes.Cut(rest, []byte("\n"))
		value, found := bytes.CutPrefix(line, []byte(name+" "))
		return string(value), ok && found
	}
	gotKey, ok := field("key")
	if !ok {
		return "", errors.New("no key in its header")
	}
	if gotKey != key {
		return "", errors.Errorf("it holds the executable of another program (key %.64q)", gotKey)
	}
	sum, ok := field("sha256")
	if !ok || !isHexKey(sum) {
		return "", errors.New("no checksum in its header")
	}
	return sum, nil
}

// untrustedCacheFile is the error of a cache file the trust rule (SetCompilationCacheTrust) refused.
type untrustedCacheFile struct{ err error }

func (e untrustedCacheFile) Error() string { return e.err.Error() }

// readCacheEntry returns the serialized executable of key's cache file path, which must be a regular file of
// at most bound bytes: it is checked before it is opened (Lstat: a symbolic link to /dev/zero is not
// followed, a 20 GB sparse file is not read), opened without following a link nor blocking on a FIFO (either
// may replace the file in between), checked again — and by the trust rule, if any (an untrustedCacheFile
// error) — and its header read and checked before the rest: a file that is not key's costs its header, not
// its size. The rest is read into one buffer of the size Stat gave, and its checksum compared. An absent file
// is fs.ErrNotExist.
func readCacheEntry(path string, bound int64, key string) ([]byte, error) {
	check := func(info fs.FileInfo) error {
		if !info.Mode().IsRegular() {
			return errors.Errorf("not a regular file (%s)", info.Mode().Type())
		}
		if info.Size() > bound {
			return errors.Errorf("%d bytes, larger than the bound of %d", info.Size(), bound)
		}
		return nil
	}
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := check(info); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollowNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := check(info); err != nil {
		return nil, err
	}
	if trust := compilationCacheTrust(); trust != nil {
		if err := trust(path, info); err != nil {
			return nil, untrustedCacheFile{err}
		}
	}
	if info.Size() < int64(cacheHeaderLen) {
		return nil, errors.Errorf("%d bytes, shorter than a cache file's header", info.Size())
	}
	header := make([]byte, cacheHeaderLen)
	if _, err := io.ReadFull(f, header); err != nil {
		return nil, errors.WithMessage(err, "reading its header")
	}
	wantSum, err := decodeCacheHeader(header, key)
	if err != nil {
		return nil, err
	}
	// One byte more than Stat said, to see a file that grew.
	serialized := make([]byte, info.Size()-int64(cacheHeaderLen)+1)
	n, err := io.ReadFull(f, serialized)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	if n == len(serialized) {
		return nil, errors.New("it grew while it was read")
	}
	serialized = serialized[:n]
	if sum := sha256.Sum256(serialized); hex.EncodeToString(sum[:]) != wantSum {
		return nil, errors.Errorf("its contents (%d bytes) do not match their checksum: the file is corrupt", len(serialized))
	}
	return serialized, nil
}

// removeCacheEntry removes a cache file that cannot be used, with a warning saying why.
func removeCacheEntry(path string, why error) {
	cacheWarnf("pjrt compilation cache: removing %s and compiling the program again: %v", path, why)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		cacheWarnf("pjrt compilation cache: %v", err)
	}
}

// loadCachedExecutable returns the cached executable of key, or nil: when there is none, or the file fails
// verification or fails to load (it is then removed).
func loadCachedExecutable(client *Client, dir, key string, maxBytes int64) *LoadedExecutable {
	path := filepath.Join(dir, key+compilationCacheSuffix)
	serialized, err := readCacheEntry(path, cacheEntryBound(maxBytes), key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var untrusted untrustedCacheFile
	if errors.As(err, &untrusted) {
		cacheWarnf("pjrt compilation cache: not loading %s, compiling the program again: %v", path, err)
		return nil
	}
	var exec *LoadedExecutable
	if err == nil {
		if exec, err = client.DeserializeAndLoad(serialized); err != nil {
			err = errors.WithMessage(err, "it failed to load")
		}
	}
	if err != nil {
		removeCacheEntry(path, err)
		return nil
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now) // recently used
	return exec
}

// storeCachedExecutable writes exec to the cache (atomically: other processes may read it) and trims the cache
// to maxBytes. Failures are logged: the cache is an optimisation.
func storeCachedExecutable(exec *LoadedExecutable, dir, key string, maxBytes int64) {
	serialized, err := exec.Serialize()
	if err != nil {
		cacheWarnf("pjrt compilation cache: not storing %q: %v", exec.Name, err)
		return
	}
	data := encodeCacheEntry(key, serialized)
	if bound := cacheEntryBound(maxBytes); int64(len(data)) > bound {
		cacheWarnf("pjrt compilation cache: not storing %q: %d bytes, larger than the bound of %d", exec.Name, len(data), bound)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		cacheWarnf("pjrt compilation cache: %v", err)
		return
	}
	tmp, err := os.CreateTemp(dir, key+".tmp*")
	if err != nil {
		cacheWarnf("pjrt compilation cache: %v", err)
		return
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, key+compilationCacheSuffix))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		cacheWarnf("pjrt compilation cache: %v", err)
		return
	}
	trimCompilationCache(dir, maxBytes)
}

// trimCompilationCache removes the temporary files of killed writers and what is not a regular file under an
// entry's name, then the least recently used cached executables until they and the temporary files of
// writers at work fit in maxBytes (≤ 0: no limit). It touches no name but the cache's own.
func trimCompilationCache(dir string, maxBytes int64) {
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	entries, _ := os.ReadDir(dir)
	for _, entry := range entries {
		name := entry.Name()
		isTemp := isCacheTempName(name)
		if !isTemp && !isCacheEntryName(name) {
			continue
		}
		info, err := entry.Info() // of the name itself, as Lstat
		if err != nil {
			continue
		}
		path := filepath.Join(dir, name)
		switch {
		case !info.Mode().IsRegular():
			cacheWarnf("pjrt compilation cache: removing %s: not a regular file (%s)", path, info.Mode().Type())
			_ = os.Remove(path)
		case isTemp && time.Since(info.ModTime()) > staleCacheTempAge:
			klog.V(1).Infof("pjrt compilation cache: removing %s, left by a writer that did not finish", path)
			_ = os.Remove(path)
		case isTemp:
			total += info.Size() // being written: counted, kept
		default:
			files = append(files, file{path, info.Size(), info.ModTime()})
			total += info.Size()
		}
	}
	if maxBytes <= 0 {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return a.used.Compare(b.used) })
	for _, f := range files {
		if total <= maxBytes {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}

// cacheOrigin is what an executable loaded from the cache needs to be compiled again if its first execution
// fails (LoadedExecutable.recompileCached): a file can pass verification and still be wrong (an entry written
// for another program under this key). It is dropped after the first successful execution.
type cacheOrigin struct {
	dir, key  string
	maxBytes  int64
	recompile func() (*LoadedExecutable, error)
}

// newCacheOrigin keeps copies of the program and options of cc (its program may be freed when Done returns).
func newCacheOrigin(cc *CompileConfig, options []byte, dir, key string, maxBytes int64) *cacheOrigin {
	plugin, client, format := cc.plugin, cc.client, cc.programFormat
	program, options := bytes.Clone(cc.program), bytes.Clone(options)
	return &cacheOrigin{dir: dir, key: key, maxBytes: maxBytes, recompile: func() (*LoadedExecutable, error) {
		var pinner runtime.Pinner
		pinner.Pin(unsafe.SliceData(program))
		pinner.Pin(unsafe.SliceData(options))
		defer pinner.Unpin()
		return pjrtClientCompile(plugin, client, program, format, options)
	}}
}

// recompileCached is called when e, loaded from the cache (origin), failed its first execution with runErr:
// it removes the cache file, compiles the program again into e (in place: callers hold e) and stores it.
func (e *LoadedExecutable) recompileCached(origin *cacheOrigin, runErr error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cacheOrigin != origin {
		return nil // another execution did it
	}
	e.cacheOrigin = nil
	path := filepath.Join(origin.dir, origin.key+compilationCacheSuffix)
	removeCacheEntry(path, errors.WithMessagef(runErr, "the executable %q it holds failed to run", e.Name))
	fresh, err := origin.recompile()
	if err != nil {
		return err
	}
	e.adopt(fresh)
	storeCachedExecutable(e, origin.dir, origin.key, origin.maxBytes)
	return nil
}

// ranFromCache: e, loaded from the cache (origin), ran: it will not be compiled again.
func (e *LoadedExecutable) ranFromCache(origin *cacheOrigin) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cacheOrigin == origin {
		e.cacheOrigin = nil
	}
}
