package backend

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guestHelperEnv makes the test binary run guestHelper instead of the tests (a fresh process, in which
// nothing but package initialisation has run).
const guestHelperEnv = "ORYX_BACKEND_GUEST_HELPER"

// TestImportIsAGoodGuest runs a fresh process of this test binary (only the package's initialisation done):
// importing the package leaves GoMLX's default backend configuration and its VJP registry as GoMLX set them,
// and Get creates the backend without a word on standard error or output; after Setup with CommandOptions the
// process's Get announces the backend on standard error, and GoMLX's default is the pure-Go backend.
func TestImportIsAGoodGuest(t *testing.T) {
	if os.Getenv(guestHelperEnv) != "" {
		t.Skip("the helper process")
	}
	for _, mode := range []string{"library", "command"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestGuestHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), guestHelperEnv+"="+mode, EnvVar+"=", CacheDirEnvForTest+"=off")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), "helper: %s %s", stdout.String(), stderr.String())
			require.Contains(t, stdout.String(), "guest: ok", stderr.String())
			switch mode {
			case "library":
				assert.Empty(t, stderr.String(), "an importer that asked for nothing sees nothing on standard error")
				assert.Contains(t, stdout.String(), "before: default \"xla\"-like (not "+DefaultConfig+"), DotGeneral VJP stock")
			case "command":
				// The backend the command announces: pure Go, or with -tags xla the plugin `make xla-cpu` installed.
				assert.Contains(t, stderr.String(), "backend: ")
				if strings.Contains(stdout.String(), "guest: ok (go") {
					assert.Contains(t, stderr.String(), "backend: pure Go ("+DefaultConfig)
				}
				assert.Contains(t, stdout.String(), "after: default "+DefaultConfig)
			}
		})
	}
}

// CacheDirEnvForTest is ORYX_XLA_CACHE (declared here too: xla_cache.go is built only with -tags xla).
const CacheDirEnvForTest = "ORYX_XLA_CACHE"

// TestGuestHelper is the helper process of TestImportIsAGoodGuest.
func TestGuestHelper(t *testing.T) {
	mode := os.Getenv(guestHelperEnv)
	if mode == "" {
		t.Skip("run by TestImportIsAGoodGuest")
	}
	stock := reflect.ValueOf(graph.VJPRegistration[graph.NodeTypeDotGeneral]).Pointer()
	ours := reflect.ValueOf(fixedVJPs[graph.NodeTypeDotGeneral]).Pointer()
	if backends.DefaultConfig == DefaultConfig || stock == ours {
		fmt.Printf("guest: FAILED: importing changed GoMLX: DefaultConfig %q, DotGeneral VJP ours %v\n",
			backends.DefaultConfig, stock == ours)
		os.Exit(1)
	}
	fmt.Printf("before: default \"xla\"-like (not %s), DotGeneral VJP stock\n", DefaultConfig)
	if mode == "command" {
		Setup(CommandOptions())
		fmt.Printf("after: default %s\n", backends.DefaultConfig)
	}
	b, err := Get()
	if err != nil {
		fmt.Println("guest: FAILED:", err)
		os.Exit(1)
	}
	if now := reflect.ValueOf(graph.VJPRegistration[graph.NodeTypeDotGeneral]).Pointer(); now != ours {
		fmt.Println("guest: FAILED: Get did not install the gradient rules")
		os.Exit(1)
	}
	fmt.Printf("guest: ok (%s)\n", strings.Fields(b.Name())[0])
}
