package procwatch

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
)

// TestStartedOrdersProcesses: a child spawned after this process reports a
// later start, and the same process reports the same start twice.
func TestStartedOrdersProcesses(t *testing.T) {
	if os.Getenv("PROCWATCH_STARTED_CHILD") == "1" {
		ns, ok := Started()
		if !ok {
			os.Exit(3)
		}
		os.Stdout.WriteString(strconv.FormatInt(ns, 10))
		os.Exit(0)
	}
	self, ok := Started()
	if !ok {
		if runtime.GOOS == "linux" || runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
			t.Fatalf("Started() not ok on %s", runtime.GOOS)
		}
		t.Skipf("no process start time on %s", runtime.GOOS)
	}
	if again, _ := Started(); again != self {
		t.Fatalf("Started() = %d, then %d", self, again)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestStartedOrdersProcesses$")
	cmd.Env = append(os.Environ(), "PROCWATCH_STARTED_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	child, err := strconv.ParseInt(string(out), 10, 64)
	if err != nil {
		t.Fatalf("child printed %q", out)
	}
	// Linux counts in 10 ms ticks, so a fast child may share the tick.
	if child < self {
		t.Fatalf("child started at %d, before its parent at %d", child, self)
	}
}
