package procwatch

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatchKilledProcess: a real child is SIGKILLed and not reaped (a
// zombie, as a CLI whose own parent is slow to wait); the watch reports it.
func TestWatchKilledProcess(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is Unix")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gone := Watch(ctx, Interval, map[string]int{"CLAUDE_PID": cmd.Process.Pid})
	select {
	case g := <-gone:
		t.Fatalf("reported %+v while it runs", g)
	case <-time.After(3 * Interval):
	}
	killed := time.Now()
	cmd.Process.Signal(syscall.SIGKILL)
	select {
	case g := <-gone:
		if g.PID != cmd.Process.Pid || g.What != "CLAUDE_PID" {
			t.Fatalf("reported %+v, want pid %d", g, cmd.Process.Pid)
		}
		t.Logf("SIGKILL → reported after %v", time.Since(killed))
	case <-time.After(10 * time.Second):
		if runtime.GOOS != "linux" {
			t.Skip("a zombie still answers kill(pid, 0) here")
		}
		t.Fatal("the killed process was not reported")
	}
}

// TestWatchSkipsUnknown: a pid that is not running when the watch starts
// is no reason to withdraw anything.
func TestWatchSkipsUnknown(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gone := Watch(ctx, 10*time.Millisecond, map[string]int{"CLAUDE_PID": cmd.Process.Pid, "zero": 0, "init": 1})
	select {
	case g := <-gone:
		t.Fatalf("reported %+v", g)
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	if _, ok := <-gone; ok {
		t.Fatal("reported after the watch ended")
	}
	if EnvPID("PROCWATCH_NOT_SET") != 0 {
		t.Fatal("EnvPID of an unset variable")
	}
	t.Setenv("PROCWATCH_PID", "x12")
	if EnvPID("PROCWATCH_PID") != 0 {
		t.Fatal("EnvPID of a non-number")
	}
}

// TestWatchParentKilled: the hook's shell is SIGKILLed; the hook,
// reparented, notices. The helper is this test binary run under sh.
func TestWatchParentKilled(t *testing.T) {
	if os.Getenv("PROCWATCH_HELPER") == "1" {
		helper()
		return
	}
	if runtime.GOOS == "windows" {
		t.Skip("needs sh and SIGKILL")
	}
	// "; exit" keeps sh from exec'ing the helper in its place.
	cmd := exec.Command("sh", "-c", `"$0" -test.run='^TestWatchParentKilled$'; exit $?`, os.Args[0])
	cmd.Env = append(os.Environ(), "PROCWATCH_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 4)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	next := func(what string) string {
		select {
		case l := <-lines:
			return l
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s from the helper", what)
		}
		return ""
	}
	if l := next("start"); !strings.HasPrefix(l, "watching ") {
		t.Fatalf("helper said %q", l)
	}
	killed := time.Now()
	cmd.Process.Signal(syscall.SIGKILL)
	// Wait would close the pipe under the scanner: reap sh at the end.
	defer cmd.Wait()
	if l, want := next("report"), fmt.Sprintf("gone parent %d", cmd.Process.Pid); l != want {
		t.Fatalf("helper said %q, want %q", l, want)
	}
	t.Logf("parent SIGKILL → reported after %v", time.Since(killed))
}

func helper() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	gone := Watch(ctx, Interval, nil)
	fmt.Printf("watching %d\n", os.Getppid())
	select {
	case g := <-gone:
		fmt.Printf("gone %s %d\n", g.What, g.PID)
	case <-ctx.Done():
		fmt.Println("timeout")
	}
	os.Exit(0)
}
