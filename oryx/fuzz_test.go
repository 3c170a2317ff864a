package oryx

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/oryx-go/oryx/internal/guard"
)

// FuzzLoadConfig: any config.json either loads as a valid config within the guard's bounds, which survives
// a save and load unchanged, or is an error — never a panic, never a size that would crash an allocation.
func FuzzLoadConfig(f *testing.F) {
	for _, v := range Variants {
		c, _ := Preset("tiny", v)
		data, _ := json.Marshal(c)
		f.Add(data)
	}
	f.Add([]byte(`{"variant": "oryx-tg", "d_model": 1e9}`))
	f.Add([]byte(`{"variant": "gdn", "linear_mixer": "gdn", "vocab": 2000000000}`))
	f.Add([]byte(`{} {}`))
	f.Add([]byte(`{"variant": "transformer", "heads": -1, "rope": "yes"}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "config.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(path)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("LoadConfig returned an invalid config: %v", err)
		}
		if n := CountParams(c).Total; n <= 0 || n > guard.MaxParams {
			t.Fatalf("parameter count %d outside (0, %d]", n, int64(guard.MaxParams))
		}
		again := filepath.Join(dir, "again.json")
		if err := SaveConfig(c, again); err != nil {
			t.Fatal(err)
		}
		c2, err := LoadConfig(again)
		if err != nil {
			t.Fatalf("a saved valid config does not load: %v", err)
		}
		if !reflect.DeepEqual(c, c2) {
			t.Fatalf("save/load changed the config: %v", c.Diff(c2))
		}
		if ConfigHash(c) != ConfigHash(c2) {
			t.Fatal("the hash of equal configs differs")
		}
	})
}
