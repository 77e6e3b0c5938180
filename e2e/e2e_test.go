package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestEndToEnd builds the real binary, runs it on the sim board, and drives
// it with Debian's real supervisorctl: the compatibility promise is with
// that program, not with our own client. It also reports the binary's size
// and the idle appliance's memory, which the Pi Zero 2 W (512 MB) cares about.
func TestEndToEnd(t *testing.T) {
	ctl := needBinaryAndSupervisorctl(t)

	dir := t.TempDir()
	bin := claudePi(t)
	stripped := claudePi(t, `-ldflags=-s -w`) // only measured: the size the .deb ships
	for _, b := range []string{bin, stripped} {
		if fi, err := os.Stat(b); err == nil {
			t.Logf("binary size %s: %.1f MiB", filepath.Base(b), float64(fi.Size())/(1<<20))
		}
	}

	sock := filepath.Join(dir, "s.sock")
	cfg := filepath.Join(dir, "config.toml")
	// A first backoff of 2 s, so that ble's restart changes its start
	// time, which the control socket reports in whole seconds.
	writeFile(t, cfg, "[services.ble]\nbackoff_min = \"2s\"\n")
	cmd := exec.Command(bin, "run", "--config", cfg, "--board", "sim", "--data-dir", filepath.Join(dir, "data"),
		"--control-socket", sock, "--http", "127.0.0.1:0", "--nus-listen", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr supervisortest.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("claude-pi stderr:\n%s", stderr.String())
		}
	})
	banner := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "Claude_Pi on board") {
				banner <- sc.Text()
			}
		}
	}()
	select {
	case line := <-banner:
		t.Log(line)
		if !strings.Contains(line, "supervisorctl -s unix://"+sock+" status") {
			t.Errorf("banner does not say how to reach it: %q", line)
		}
	case err := <-exited:
		t.Fatalf("claude-pi exited at start-up: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("claude-pi did not start within 30 s")
	}

	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(ctl, append([]string{"-s", "unix://" + sock}, args...)...).CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("supervisorctl %v: %v", args, err)
		}
		return string(out)
	}
	want := func(out, pattern string) {
		t.Helper()
		if !regexp.MustCompile(pattern).MatchString(out) {
			t.Errorf("supervisorctl output does not match %q:\n%s", pattern, out)
		}
	}

	names := []string{"ble", "buddy", "approvals", "dock", "ui", "audio"}
	out := run("status")
	for _, n := range names {
		want(out, `(?m)^`+n+` +RUNNING `)
	}

	before := starts(t, sock)
	want(run("signal", "KILL", "ble"), `ble: signalled`)
	// KILL is delivered to the actor's mailbox, and BACKOFF lasts only
	// backoff_min: on a loaded machine a status poll may miss it, so the
	// test asserts what stays: the supervisor's log line and the new start
	// time (unix seconds; backoff_min = 2 s makes it change).
	backoffLine := regexp.MustCompile(`(?m)entered BACKOFF state.*service=ble`)
	supervisortest.Within(t, 20*time.Second, "the main log's line that ble entered BACKOFF", func() bool {
		return backoffLine.MatchString(stderr.String())
	})
	supervisortest.Within(t, 20*time.Second, "ble restarted (new start time) and RUNNING", func() bool {
		return starts(t, sock)["ble"] != before["ble"] &&
			regexp.MustCompile(`(?m)^ble +RUNNING `).MatchString(run("status", "ble"))
	})
	after := starts(t, sock)
	for _, n := range names {
		switch {
		case n == "ble" && after[n] == before[n]:
			t.Errorf("ble's start time did not change after KILL (%d)", after[n])
		case n != "ble" && after[n] != before[n]:
			t.Errorf("%s restarted when ble was killed: start %d -> %d", n, before[n], after[n])
		}
	}

	want(run("stop", "dock"), `dock: stopped`)
	want(run("status", "dock"), `(?m)^dock +STOPPED `)
	want(run("start", "dock"), `dock: started`)
	want(run("restart", "ui"), `(?s)ui: stopped.*ui: started`)
	want(run("tail", "audio"), `stand-in`)

	cpStatus, err := exec.Command(bin, "status", "--control-socket", sock).CombinedOutput()
	if err != nil {
		t.Fatalf("claude-pi status: %v\n%s", err, cpStatus)
	}
	for _, n := range names {
		want(string(cpStatus), `(?m)^`+n+` +RUNNING `)
	}

	time.Sleep(2 * time.Second) // let start-up garbage go before measuring idle memory
	if rss, err := vmRSS(cmd.Process.Pid); err == nil {
		t.Logf("idle RSS: %.1f MB", rss)
	} else {
		t.Logf("idle RSS: %v", err)
	}

	began := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v, want status 0", err)
		}
		t.Logf("stopped %v after SIGTERM", time.Since(began).Round(time.Millisecond))
	case <-time.After(appliance.ShutdownDeadline):
		t.Fatalf("still running %v after SIGTERM", appliance.ShutdownDeadline)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("control socket left behind: %v", err)
	}
}

// needBinaryAndSupervisorctl skips a test that builds and runs the binary
// under -short, and returns Debian's supervisorctl, which CI must have.
func needBinaryAndSupervisorctl(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	ctl, err := exec.LookPath("supervisorctl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("supervisorctl not installed (apt-get install supervisor); CI must run this test")
		}
		t.Skip("supervisorctl not installed (apt-get install supervisor)")
	}
	return ctl
}

// starts returns each process's start time (unix seconds) as the control
// socket reports it: a restart is the only thing that changes it.
func starts(t *testing.T, sock string) map[string]int64 {
	t.Helper()
	c := ctlsock.NewClient(sock)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, err := c.CallContext(ctx, "supervisor.getAllProcessInfo")
	if err != nil {
		t.Fatal(err)
	}
	list, _ := v.([]any)
	m := map[string]int64{}
	for _, e := range list {
		info, _ := e.(map[string]any)
		name, _ := info["name"].(string)
		m[name] = toInt64(info["start"])
	}
	return m
}

func toInt64(v any) int64 {
	switch n := v.(type) {
	case int:
		return int64(n)
	case int32:
		return int64(n)
	case int64:
		return n
	}
	return -1
}

// vmRSS is a process's resident set in MB, from /proc/PID/status.
func vmRSS(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, errors.New("no VmRSS line")
}
