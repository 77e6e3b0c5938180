package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
)

// builtBinaries holds the claude-pi binaries this run has built, one per
// set of go build flags: every test that runs the real binary shares it
// rather than building its own (a build costs seconds of both CPUs).
var builtBinaries struct {
	mu   sync.Mutex
	dir  string // removed by TestMain once the run ends
	bins map[string]builtBinary
}

type builtBinary struct {
	path string
	err  error
}

// claudePi returns the claude-pi binary built from this tree with flags,
// building it on first use in this run. Tests must not change or remove
// it: others run it too. Its folder is readable by everyone, so a test may
// run it as another user (the README's permission check runs it as
// nobody).
func claudePi(t testing.TB, flags ...string) string {
	t.Helper()
	b := buildOnce(flags)
	if b.err != nil {
		t.Fatalf("building claude-pi for this run: %v", b.err)
	}
	return b.path
}

func buildOnce(flags []string) builtBinary {
	builtBinaries.mu.Lock()
	defer builtBinaries.mu.Unlock()
	key := fmt.Sprintf("%q", flags)
	if b, ok := builtBinaries.bins[key]; ok {
		return b // a failed build is not retried: it would fail again
	}
	if builtBinaries.dir == "" {
		dir, err := os.MkdirTemp("", "claude-pi-e2e-")
		if err != nil {
			return builtBinary{err: err}
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			os.RemoveAll(dir)
			return builtBinary{err: err}
		}
		builtBinaries.dir, builtBinaries.bins = dir, map[string]builtBinary{}
	}
	name := "claude-pi"
	if n := len(builtBinaries.bins); n > 0 {
		name = fmt.Sprintf("claude-pi-%d", n)
	}
	b := builtBinary{path: filepath.Join(builtBinaries.dir, name)}
	b.err = appliancetest.GoBuild(b.path, flags...)
	builtBinaries.bins[key] = b
	return b
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinaries.dir != "" {
		os.RemoveAll(builtBinaries.dir)
	}
	os.Exit(code)
}

// TestClaudePiIsBuiltOnce: every caller in a run gets the same binary, and
// it is the program (it answers --version).
func TestClaudePiIsBuiltOnce(t *testing.T) {
	e2e(t)
	first, again := claudePi(t), claudePi(t)
	if first != again {
		t.Fatalf("claudePi built twice: %s and %s", first, again)
	}
	out, err := exec.Command(first, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "claude-pi") {
		t.Errorf("%s --version: %v\n%s", first, err, out)
	}
}
