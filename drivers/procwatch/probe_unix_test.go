//go:build unix

package procwatch

import (
	"os/exec"
	"testing"
)

// TestKillProbe covers the kill(pid, 0) probe Linux uses without pidfd
// and the other Unixes always use.
func TestKillProbe(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p, ok := killProbe(cmd.Process.Pid)
	if !ok || !p.alive() {
		t.Fatal("a running process not alive")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if p.alive() {
		t.Fatal("a reaped process still alive")
	}
	if _, ok := killProbe(cmd.Process.Pid); ok {
		t.Fatal("a probe for a process that is gone")
	}
}
