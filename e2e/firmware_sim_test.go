package e2e

// cores3-sim, the firmware's own core on Linux (firmware/sim), as the
// CoreS3 of the end-to-end tests in firmware_e2e_test.go: built once per
// run, started on one pty, bridged to the appliance's --dock-port on
// another, and driven through its unix control socket.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

var (
	simBuildOnce sync.Once
	simBuildPath string
	simBuildSkip string // why the tests skip (no compiler outside CI)
	simBuildErr  error
)

// coreSimBinary returns firmware/build/cores3-sim, built once per test run.
// make decides what is stale (it knows the header dependencies). Without
// g++ a stale or missing binary skips the test, except under CI=true where
// it must build.
func coreSimBinary(t *testing.T) string {
	t.Helper()
	simBuildOnce.Do(func() {
		bin, err := filepath.Abs(filepath.Join("..", "firmware", "build", "cores3-sim"))
		if err != nil {
			simBuildErr = err
			return
		}
		simBuildPath = bin
		if _, err := exec.LookPath("g++"); err != nil {
			if fresh, why := simFresh(bin); fresh {
				return
			} else if os.Getenv("CI") != "true" {
				simBuildSkip = "g++ not installed and " + why
				return
			}
		}
		out, err := exec.Command("make", "-C", filepath.Join("..", "firmware"), "sim").CombinedOutput()
		if err != nil {
			simBuildErr = fmt.Errorf("make -C firmware sim: %v\n%s", err, out)
		}
	})
	switch {
	case simBuildErr != nil:
		t.Fatal(simBuildErr)
	case simBuildSkip != "":
		t.Skip(simBuildSkip)
	}
	return simBuildPath
}

// simFresh says whether bin is newer than every source it is built from.
func simFresh(bin string) (bool, string) {
	st, err := os.Stat(bin)
	if err != nil {
		return false, "cores3-sim is not built"
	}
	srcs, _ := filepath.Glob(filepath.Join("..", "firmware", "core", "*"))
	more, _ := filepath.Glob(filepath.Join("..", "firmware", "sim", "*"))
	for _, s := range append(append(srcs, more...), filepath.Join("..", "firmware", "Makefile")) {
		if si, err := os.Stat(s); err == nil && si.ModTime().After(st.ModTime()) {
			return false, "cores3-sim is older than " + s
		}
	}
	return true, ""
}

// ptyBridge is two ptys joined master to master by a relay: cores3-sim
// opens one slave and the appliance the other, as the two ends of a USB
// cable. Both slaves stay open here too, so a side that closes and reopens
// its end (a dock restart) does not end the relay.
type ptyBridge struct {
	coreM, coreS *os.File // cores3-sim's pty
	hostM, hostS *os.File // the appliance's pty

	toCore, toHost atomic.Int64 // bytes relayed each way
	wg             sync.WaitGroup
}

// newPtyBridge makes the two ptys, both raw from the start so nothing is
// echoed or line-buffered before the ends set their own modes, and starts
// the relay. It is closed at the test's cleanup.
func newPtyBridge(t *testing.T) *ptyBridge {
	t.Helper()
	b := &ptyBridge{}
	var err error
	if b.coreM, b.coreS, err = pty.Open(); err != nil {
		t.Skipf("no pty: %v", err)
	}
	if b.hostM, b.hostS, err = pty.Open(); err != nil {
		b.coreM.Close()
		b.coreS.Close()
		t.Skipf("no pty: %v", err)
	}
	for _, f := range []*os.File{b.coreS, b.hostS} {
		if err := makeRaw(f); err != nil {
			b.close()
			t.Fatalf("raw mode on %s: %v", f.Name(), err)
		}
	}
	b.wg.Add(2)
	go b.relay(b.coreM, b.hostM, &b.toCore)
	go b.relay(b.hostM, b.coreM, &b.toHost)
	t.Cleanup(b.close)
	return b
}

// HostPath is the appliance's --dock-port; CorePath is cores3-sim's --serial.
func (b *ptyBridge) HostPath() string { return b.hostS.Name() }
func (b *ptyBridge) CorePath() string { return b.coreS.Name() }

func (b *ptyBridge) relay(dst, src *os.File, n *atomic.Int64) {
	defer b.wg.Done()
	buf := make([]byte, 16384)
	for {
		k, err := src.Read(buf)
		if k > 0 {
			if _, werr := dst.Write(buf[:k]); werr != nil {
				return
			}
			n.Add(int64(k))
		}
		if err != nil {
			return
		}
	}
}

func (b *ptyBridge) close() {
	for _, f := range []*os.File{b.coreM, b.hostM, b.coreS, b.hostS} {
		if f != nil {
			f.Close()
		}
	}
	b.wg.Wait()
}

// makeRaw is cfmakeraw on f's tty.
func makeRaw(f *os.File) error {
	fd := int(f.Fd())
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	tio.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	tio.Oflag &^= unix.OPOST
	tio.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	tio.Cflag &^= unix.CSIZE | unix.PARENB
	tio.Cflag |= unix.CS8
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 1, 0
	return unix.IoctlSetTermios(fd, unix.TCSETS, tio)
}

// uiLine is one JSON line from the sim's control socket.
type uiLine struct {
	Raw string
	M   map[string]any
}

func (l uiLine) is(key, val string) bool { s, _ := l.M[key].(string); return s == val }
func (l uiLine) str(key string) string   { s, _ := l.M[key].(string); return s }

// coreSim is a running cores3-sim with one control client that records
// every line it emits.
type coreSim struct {
	t      *testing.T
	bridge *ptyBridge
	cmd    *exec.Cmd
	stderr *supervisortest.SyncBuffer
	conn   net.Conn

	mu    sync.Mutex
	lines []uiLine
	bad   []string // lines that were not JSON objects
	done  chan struct{}
}

// startCoreSim builds cores3-sim if needed, plugs it into a fresh bridge
// and connects to its control socket before the host side exists, so the
// record starts with the link's first state. extra are more flags
// (e.g. --caps). Everything stops at the test's cleanup, after the
// appliance if that was started later.
func startCoreSim(t *testing.T, extra ...string) *coreSim {
	t.Helper()
	bin := coreSimBinary(t)
	b := newPtyBridge(t)
	// sun_path is 108 bytes: t.TempDir() under a long test name may not fit.
	dir, err := os.MkdirTemp("", "cs3")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "c.sock")
	args := append([]string{"--serial", b.CorePath(), "--control", "unix:" + sock, "--boot-token", "c0ffee01"}, extra...)
	c := &coreSim{t: t, bridge: b, cmd: exec.Command(bin, args...), stderr: &supervisortest.SyncBuffer{}, done: make(chan struct{})}
	c.cmd.Stdout = io.Discard // the same lines as the control socket
	c.cmd.Stderr = c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	t.Cleanup(func() {
		c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			c.cmd.Process.Kill()
			<-exited
			t.Error("cores3-sim did not exit within 5 s of SIGTERM")
		}
		if c.conn != nil {
			c.conn.Close()
			<-c.done
		}
		if t.Failed() || os.Getenv("CORES3_SIM_TRACE") != "" {
			t.Logf("cores3-sim stderr:\n%s\ncontrol lines:\n%s", c.stderr, c.dump(0))
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.conn, err = net.Dial("unix", sock)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cores3-sim control socket: %v\n%s", err, c.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	go c.read()
	return c
}

func (c *coreSim) read() {
	defer close(c.done)
	sc := bufio.NewScanner(c.conn)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		var m map[string]any
		raw := sc.Text()
		c.mu.Lock()
		if err := json.Unmarshal([]byte(raw), &m); err != nil || m == nil {
			c.bad = append(c.bad, raw)
		} else {
			c.lines = append(c.lines, uiLine{Raw: raw, M: m})
		}
		c.mu.Unlock()
	}
}

// send writes one control line ("touch ok", "swipe forward", ...).
func (c *coreSim) send(cmd string) {
	c.t.Helper()
	if _, err := io.WriteString(c.conn, cmd+"\n"); err != nil {
		c.t.Fatalf("control %q: %v", cmd, err)
	}
}

// mark is the position after the lines so far: await(mark(), ...) only
// looks at what comes next.
func (c *coreSim) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lines)
}

// since returns the lines from position from on.
func (c *coreSim) since(from int) []uiLine {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]uiLine(nil), c.lines[min(from, len(c.lines)):]...)
}

// await waits up to d for a line at position from or later that ok
// accepts, and returns its position and the line.
func (c *coreSim) await(d time.Duration, from int, what string, ok func(uiLine) bool) (int, uiLine) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for {
		for i, l := range c.since(from) {
			if ok(l) {
				return from + i, l
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("cores3-sim showed no %s within %v; its lines from %d:\n%s", what, d, from, c.dump(from))
		}
		select {
		case <-c.done:
			c.t.Fatalf("cores3-sim's control socket closed before %s\n%s", what, c.stderr)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// dump is the lines from position from on, for failure messages; long
// runs of mouth lines are the bulk and are left out.
func (c *coreSim) dump(from int) string {
	var b strings.Builder
	for i, l := range c.since(from) {
		if !l.is("ui", "mouth") {
			fmt.Fprintf(&b, "%4d %s\n", from+i, l.Raw)
		}
	}
	c.mu.Lock()
	for _, s := range c.bad {
		fmt.Fprintf(&b, "not JSON: %q\n", s)
	}
	c.mu.Unlock()
	return b.String()
}

// notJSON lists the control lines that were not JSON objects.
func (c *coreSim) notJSON() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bad) == 0 {
		return nil
	}
	return errors.New(strings.Join(c.bad, "\n"))
}
