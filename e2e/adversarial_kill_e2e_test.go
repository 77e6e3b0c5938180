package e2e

// Issue 19's kill cases: the appliance's process SIGKILLed during pack
// installs and while approving, and its services killed one by one
// (supervisorctl's "signal KILL") while prompts are answered. Each has a
// bounded number of rounds; none asserts a duration.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// process is the real binary running the sim board, which a test may
// SIGKILL and start again on the same data directory.
type killableRun struct {
	*rig   // WebURL and NUS only: the tree is in the other process
	cmd    *exec.Cmd
	exited chan error
	stderr *supervisortest.SyncBuffer
}

var bannerWeb = regexp.MustCompile(`web (http://\S+)`)
var bannerNUS = regexp.MustCompile(`^sim BLE link on (\S+)`)

// startProcess runs bin on the sim board with its data in data and every
// listener on a free loopback port, and waits for its banner.
func startProcess(t *testing.T, bin, data string) *killableRun {
	t.Helper()
	cfg := filepath.Join(data, "test.toml")
	if _, err := os.Stat(cfg); err != nil {
		writeFile(t, cfg, "")
	}
	cmd := exec.Command(bin, "run", "--config", cfg, "--board", "sim", "--data-dir", data,
		"--control-socket", filepath.Join(data, "s.sock"), "--http", "127.0.0.1:0", "--nus-listen", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &killableRun{rig: &rig{&appliancetest.Appliance{}}, cmd: cmd, exited: make(chan error, 1), stderr: &supervisortest.SyncBuffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("claude-pi stderr:\n%s", p.stderr.String())
		}
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := bannerWeb.FindStringSubmatch(sc.Text()); m != nil {
				p.WebURL = m[1]
			}
			if m := bannerNUS.FindStringSubmatch(sc.Text()); m != nil {
				p.NUS = m[1]
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case err := <-p.exited:
		t.Fatalf("claude-pi exited at start-up: %v\n%s", err, p.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("claude-pi did not start within 30 s\n%s", p.stderr.String())
	}
	return p
}

// kill SIGKILLs the process and waits until it is gone.
func (p *killableRun) kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// shownPrompt is the prompt the buttons act on, from /api/state; "" while
// there is none or it is already decided or not answerable.
func (p *killableRun) shownPrompt(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(p.WebURL + "/api/state")
	if err != nil {
		return ""
	}
	resp.Body.Close()
	pr, _ := p.APIState(t)["prompt"].(map[string]any)
	if pr == nil || pr["decided"] == true || pr["reconnecting"] == true {
		return ""
	}
	id, _ := pr["id"].(string)
	return id
}

// TestHostileSIGKILL kills the real process at points of a pack install
// and of an approval, and starts it again on the same data.
func TestHostileSIGKILL(t *testing.T) {
	e2e(t)
	bin := claudePi(t)
	t.Run("during pack installs", func(t *testing.T) { killDuringPackInstalls(t, bin) })
	t.Run("while approving", func(t *testing.T) { killWhileApproving(t, bin) })
}

// killDuringPackInstalls: whatever point of a push the kill hits, the
// restarted appliance has the old pack intact or the new one complete,
// never a mix, and no staging left behind; a pack whose char_end was
// acked is the one installed.
func killDuringPackInstalls(t *testing.T, bin string) {
	data := t.TempDir()
	packs := t.TempDir()
	pack := func(name string) (string, map[string][]byte) {
		dir := filepath.Join(packs, name)
		writeGIFPack(t, dir, name, 2)
		files := map[string][]byte{}
		for _, n := range []string{"manifest.json", "idle_0.gif", "idle_1.gif"} {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			files[n] = b
		}
		return dir, files
	}
	p := startProcess(t, bin, data)
	d := p.Dial(t, &fakedesktop.Options{StatusEvery: -1})
	dir, installed := pack("p0")
	before := d.Counters().LinesSent
	if err := d.PushPack(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	pushLines := d.Counters().LinesSent - before
	checkInstalled(t, data, installed, installed)

	// Kill points: after a share of the push's lines, after its last
	// line (char_end, which installs the pack) and a delay, and after
	// its ack.
	type point struct {
		share float64
		after time.Duration
		acked bool
	}
	points := []point{{share: 0.1}, {share: 0.5}, {share: 0.9}, {share: 1}, {share: 1, after: time.Millisecond},
		{share: 1, after: 3 * time.Millisecond}, {share: 1, after: 10 * time.Millisecond}, {acked: true}}
	for i, at := range points {
		dir, next := pack(fmt.Sprintf("p%d", i+1))
		start := d.Counters().LinesSent
		pushed := make(chan error, 1)
		go func() { pushed <- d.PushPack(context.Background(), dir) }()
		acked := false
		for done := false; !done; {
			select {
			case err := <-pushed:
				if err != nil {
					t.Fatalf("push %d: %v", i+1, err)
				}
				acked, done = true, true
			case <-time.After(100 * time.Microsecond):
				if !at.acked && float64(d.Counters().LinesSent-start) >= at.share*float64(pushLines) {
					time.Sleep(at.after)
					done = true
				}
			}
		}
		p.kill()
		d.Close()
		if !acked {
			<-pushed // fails: the link is gone
		}
		p = startProcess(t, bin, data)
		d = p.Dial(t, &fakedesktop.Options{StatusEvery: -1})
		got := checkInstalled(t, data, installed, next)
		switch {
		case acked && !maps.EqualFunc(got, next, bytes.Equal):
			t.Fatalf("kill %d, after char_end was acked: the new pack is not the installed one", i+1)
		case maps.EqualFunc(got, next, bytes.Equal):
			installed = next
			t.Logf("kill %d (%+v, acked %v): the new pack is installed", i+1, at, acked)
		default:
			t.Logf("kill %d (%+v): the old pack is intact", i+1, at)
		}
	}
}

// checkInstalled fails unless packs/ holds exactly one pack, current,
// equal to old or to next, and returns it.
func checkInstalled(t *testing.T, data string, old, next map[string][]byte) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(data, "packs"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "current" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("packs/ holds %v, want current only", names)
	}
	got := map[string][]byte{}
	dir := filepath.Join(data, "packs", "current")
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[f.Name()] = b
	}
	// The name the pack was pushed under is swapped in with its files
	// (storage.PackStore's label), so it must name the same pack: old
	// files under the new name would be a torn install too.
	label, ok := got[".pack.json"]
	if !ok {
		t.Fatalf("the installed pack has no .pack.json: %d files", len(got))
	}
	delete(got, ".pack.json")
	var want map[string][]byte
	switch {
	case maps.EqualFunc(got, old, bytes.Equal):
		want = old
	case maps.EqualFunc(got, next, bytes.Equal):
		want = next
	default:
		t.Fatalf("the installed pack is neither the old one nor the new one: %d files besides .pack.json", len(got))
	}
	if labelled, pushed := packNameOf(t, label), packNameOf(t, want["manifest.json"]); labelled != pushed {
		t.Fatalf("the installed pack's files are %q's but .pack.json names %q", pushed, labelled)
	}
	return got
}

// packNameOf is the "name" of a manifest.json or a .pack.json.
func packNameOf(t *testing.T, b []byte) string {
	t.Helper()
	var v struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Name == "" {
		t.Fatalf("no name in %q: %v", b, err)
	}
	return v.Name
}

// decisionLog counts the permission lines every desktop connection got,
// per prompt id.
type decisionLog struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *decisionLog) watch(d *fakedesktop.Desktop) {
	go func() {
		for {
			select {
			case p := <-d.Decisions():
				l.mu.Lock()
				if l.n == nil {
					l.n = map[string]int{}
				}
				l.n[p.ID]++
				l.mu.Unlock()
			case <-d.Done():
				return
			}
		}
	}()
}

func (l *decisionLog) count(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[id]
}

// check fails unless each id got exactly one permission line, and no
// other id got any.
func (l *decisionLog) check(t *testing.T, ids []string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		if n := l.n[id]; n != 1 {
			t.Errorf("%s answered %d times, want once", id, n)
		}
	}
	if len(l.n) != len(ids) {
		t.Errorf("permission lines for %d ids, want %d: %v", len(l.n), len(ids), l.n)
	}
}

// killWhileApproving: the process is SIGKILLed right after A, at a
// different moment each round. The desktop keeps a prompt it got no
// answer for and shows it again after the restart, where A answers it:
// every prompt is answered exactly once.
func killWhileApproving(t *testing.T, bin string) {
	data := t.TempDir()
	p := startProcess(t, bin, data)
	opts := func(r *fakedesktop.Resume) *fakedesktop.Options {
		return &fakedesktop.Options{Owner: "Ada", StatusEvery: -1, Keepalive: 300 * time.Millisecond, Resume: r}
	}
	var log decisionLog
	d := p.Dial(t, opts(nil))
	log.watch(d)
	var ids []string
	for i, wait := range []time.Duration{0, 250 * time.Microsecond, 500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond} {
		id := fmt.Sprintf("req_kill_%d", i)
		ids = append(ids, id)
		d.SetPrompt(id, "Bash", "make -j4")
		supervisortest.Within(t, 10*time.Second, id+" on the screen", func() bool { return p.shownPrompt(t) == id })
		p.Press(t, "A")
		time.Sleep(wait) // where the kill lands
		p.kill()
		// The desktop reads what reached it before the link broke.
		<-d.Done()
		resume := d.Resume()
		p = startProcess(t, bin, data)
		d = p.Dial(t, opts(resume))
		log.watch(d)
		if log.count(id) == 0 {
			supervisortest.Within(t, 10*time.Second, id+" shown again after the restart", func() bool { return p.shownPrompt(t) == id })
			p.Press(t, "A")
			supervisortest.Within(t, 10*time.Second, "the answer to "+id, func() bool { return log.count(id) > 0 })
			t.Logf("kill %d: the answer was lost with the process; answered again after the restart", i)
		} else {
			t.Logf("kill %d: the answer had reached the desktop", i)
		}
	}
	d.ClearPrompt()
	time.Sleep(300 * time.Millisecond) // any late or repeated answer would arrive now
	log.check(t, ids)
}

// TestHostileServiceKillsWhileAnswering: prompts are answered while ble,
// buddy, approvals and ui are killed in turn (supervisorctl's "signal
// KILL": the actor crashes and restarts), at a different point of each
// answer. Every prompt is answered exactly once.
func TestHostileServiceKillsWhileAnswering(t *testing.T) {
	e2e(t)
	services := []string{"ble", "buddy", "approvals", "ui"}
	a := startApplianceWith(t, func(c *Config) {
		c.Services = map[string]ServiceConfig{}
		restarts, lo, hi := 1000, Duration(10*time.Millisecond), Duration(50*time.Millisecond)
		for _, s := range services {
			c.Services[s] = ServiceConfig{MaxRestarts: &restarts, BackoffMin: &lo, BackoffMax: &hi}
		}
	})
	opts := func(r *fakedesktop.Resume) *fakedesktop.Options {
		return &fakedesktop.Options{Owner: "Ada", StatusEvery: -1, Keepalive: 200 * time.Millisecond, Resume: r}
	}
	var log decisionLog
	d := a.Dial(t, opts(nil))
	log.watch(d)
	// redial replaces a desktop whose link a killed ble dropped.
	redial := func() {
		select {
		case <-d.Done():
		default:
			return
		}
		r := d.Resume()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			nd, err := fakedesktop.DialOptions(context.Background(), a.NUS, opts(r))
			if err == nil {
				t.Cleanup(func() { nd.Close() })
				d = nd
				log.watch(d)
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the sim link did not come back after ble was killed: %v", err)
			}
		}
	}
	shown := func(id string) bool {
		v, err := supervisortest.TryAsk[ui.View](a.Tree, "ui", ui.GetView{})
		if err != nil {
			return false
		}
		for _, p := range v.Prompts {
			if p.ID == id && !p.Decided {
				return v.Screen == "approval" && v.Shown.ID == id && !v.Reconnecting && !v.Sent
			}
		}
		return false
	}
	var ids []string
	const rounds = 12
	for i := range rounds {
		id := fmt.Sprintf("req_svc_%d", i)
		ids = append(ids, id)
		victim := services[i%len(services)]
		d.SetPrompt(id, "Bash", "go test ./...")
		kill := func() {
			if err := a.Tree.SignalProcess(victim, "KILL"); err != nil {
				t.Logf("signal KILL %s: %v", victim, err) // in BACKOFF still: fine
			}
		}
		if i%3 == 0 {
			kill() // before the prompt is on the screen
		}
		for deadline := time.Now().Add(20 * time.Second); log.count(id) == 0; {
			if time.Now().After(deadline) {
				t.Fatalf("%s never answered (%s killed)", id, victim)
			}
			redial()
			if !shown(id) {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			a.Press(t, "A")
			if i%3 == 1 {
				kill() // right after the press
			}
			for end := time.Now().Add(time.Second); log.count(id) == 0 && time.Now().Before(end); {
				time.Sleep(5 * time.Millisecond)
				redial()
			}
		}
		if i%3 == 2 {
			kill() // after the answer arrived
		}
	}
	redial()
	d.ClearPrompt()
	time.Sleep(300 * time.Millisecond) // any repeated answer would arrive now
	log.check(t, ids)
}
