package pjrt

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

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
// host's processor model and instruction-set flags (the compiled code targets them). A file that fails to
// load is removed and the program compiled again.
func SetCompilationCache(dir string, minCompileTime time.Duration, maxBytes int64) {
	compilationCache.mu.Lock()
	defer compilationCache.mu.Unlock()
	compilationCache.dir, compilationCache.minTime, compilationCache.maxBytes = dir, minCompileTime, maxBytes
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
	fmt.Fprintf(h, "go-xla compilation cache v1\x00%s\x00%s\x00%s\x00", plugin.Path(), client.platform, client.platformVersion)
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

// loadCachedExecutable returns the cached executable of key, or nil (a file that fails to load is removed).
func loadCachedExecutable(client *Client, dir, key string) *LoadedExecutable {
	path := filepath.Join(dir, key+compilationCacheSuffix)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	exec, err := client.DeserializeAndLoad(data)
	if err != nil {
		klog.Warningf("pjrt compilation cache: removing %s, which failed to load: %v", path, err)
		_ = os.Remove(path)
		return nil
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now) // recently used
	return exec
}

// storeCachedExecutable writes exec to the cache (atomically: other processes may read it) and trims the cache
// to maxBytes. Failures are logged: the cache is an optimisation.
func storeCachedExecutable(exec *LoadedExecutable, dir, key string, maxBytes int64) {
	data, err := exec.Serialize()
	if err != nil {
		klog.Warningf("pjrt compilation cache: not storing %q: %v", exec.Name, err)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		klog.Warningf("pjrt compilation cache: %v", err)
		return
	}
	tmp, err := os.CreateTemp(dir, key+".tmp*")
	if err != nil {
		klog.Warningf("pjrt compilation cache: %v", err)
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
		klog.Warningf("pjrt compilation cache: %v", err)
		return
	}
	if maxBytes > 0 {
		trimCompilationCache(dir, maxBytes)
	}
}

// trimCompilationCache removes the least recently used cached executables until the rest fit in maxBytes.
func trimCompilationCache(dir string, maxBytes int64) {
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, compilationCacheSuffix) {
			return nil
		}
		if info, err := d.Info(); err == nil {
			files = append(files, file{path, info.Size(), info.ModTime()})
			total += info.Size()
		}
		return nil
	})
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
