package dock

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/drivers/serial"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestUnacceptedDockGetsNothing: a CoreS3 found by its USB ids stays
// closed (no HELLO, no prompt) until the Pi's screen accepts it by its
// serial number; a refusal holds until it is unplugged; the acceptance is
// remembered in the data dir.
func TestUnacceptedDockGetsNothing(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, wire.FirmwareCaps, nil, Options{MutePrompts: true, DataDir: dir})
	states := func() []State { return supervisortest.Of[State](&r.bud.Recorder) }
	r.send(supervisor.Subscribe{PID: supervisor.ServicePID(r.tree.System(), "buddy")})
	r.core.plug()
	waitFor(t, "the dock asking", func() bool { return r.state().NewDock.Asking })
	s := r.state()
	if s.Connected || s.NewDock.Serial != fakeSerial || s.NewDock.Shown != fakeSerial || s.Path != "" || s.Serial != "" ||
		!strings.Contains(s.Description, "waiting to be accepted on the Pi's screen") {
		t.Fatalf("unaccepted dock state %+v", s)
	}
	if ss := states(); !ss[len(ss)-1].NewDock.Asking {
		t.Errorf("subscribers were not told a dock asks: %+v", ss[len(ss)-1])
	}
	r.send(approvals.PromptAppeared{Prompt: prompt})
	time.Sleep(100 * time.Millisecond) // room for a wrong open and handshake
	if n := len(eventsOf[appevent.ApprovalRequest](r.core)); n != 0 || r.state().Connected {
		t.Fatalf("unaccepted dock got %d approval requests (connected %v)", n, r.state().Connected)
	}

	// A press meant for another dock accepts nothing; B refuses until unplugged.
	r.send(AcceptDock{Serial: "AAAA"})
	r.send(RefuseDock{Serial: fakeSerial})
	waitFor(t, "refused", func() bool { return !r.state().NewDock.Asking })
	if d := r.description(); !strings.Contains(d, "refused") || r.state().Connected {
		t.Errorf("refused dock: %q, connected %v", d, r.state().Connected)
	}
	r.send(AcceptDock{Serial: fakeSerial}) // a refused dock is not asking: a stale A does nothing
	time.Sleep(50 * time.Millisecond)
	if r.state().Connected {
		t.Fatal("a refused dock was accepted by a stale press")
	}
	r.core.unplug()
	waitFor(t, "unplugged", func() bool { return r.description() == "waiting for a CoreS3" })
	r.core.plug()
	waitFor(t, "asking again after a replug", func() bool { return r.state().NewDock.Asking })

	r.send(AcceptDock{Serial: fakeSerial})
	waitFor(t, "EVENT ready once accepted", func() bool { return r.state().Event })
	waitFor(t, "the pending prompt on the CoreS3", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) > 0 })
	if r.state().NewDock.Asking {
		t.Error("an accepted dock still asks")
	}
	b, err := os.ReadFile(filepath.Join(dir, TrustFile))
	if err != nil || !strings.Contains(string(b), `"serial": "`+fakeSerial+`"`) {
		t.Fatalf("%s = %s, %v; want the accepted serial", TrustFile, b, err)
	}
	tr, err := loadTrust(dir, Options{}, time.Now())
	mine := serial.Plugged{Serial: fakeSerial, Product: fakeProduct, Manufacturer: fakeManufacturer}
	other := mine
	other.Serial = "3C84CE0012AC"
	if err != nil || !tr.trusted(mine) || tr.trusted(other) {
		t.Errorf("reloaded trust: %v; want %s trusted and no other", err, fakeSerial)
	}
	noViolations(t, r.core)
}

func TestTrustFile(t *testing.T) {
	now := time.Unix(1700000000, 0)
	dir := t.TempDir()
	path := filepath.Join(dir, TrustFile)
	// A directory in the file's place ("dir") is damage like the rest.
	for _, bad := range []string{"{", `{"docks":"x"}`, `{"docks":[` + strings.Repeat(`{"serial":"a"},`, maxTrusted) + `{"serial":"b"}]}`, "", "dir"} {
		var err error
		if bad == "dir" {
			err = os.MkdirAll(filepath.Join(path, "x"), 0o755)
		} else {
			err = os.WriteFile(path, []byte(bad), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		tr, err := loadTrust(dir, Options{}, now)
		if err == nil || !strings.Contains(err.Error(), "accept the dock again") || tr.trusted(serial.Plugged{Serial: "a"}) {
			t.Errorf("corrupt %q: err %v; want a set-aside file and nothing trusted", bad[:min(len(bad), 20)], err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("corrupt file left in place: %v", err)
		}
	}
	// Every damage kept its own copy, though all came in one second.
	if copies, err := statefile.List(dir); err != nil || len(copies) != 5 {
		t.Errorf("set-aside copies: %+v, %v; want 5", copies, err)
	}
	tr, err := loadTrust(dir, Options{}, now)
	if err != nil {
		t.Fatal(err)
	}
	// No serial: accepted until unplugged, never written.
	if err := tr.accept(serial.Plugged{}, now); err != nil || !tr.trusted(serial.Plugged{}) {
		t.Fatalf("accept(no serial) = %v", err)
	}
	tr.unplugged(serial.Plugged{})
	if tr.trusted(serial.Plugged{}) {
		t.Error("a dock without a serial number stayed accepted after its unplug")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a dock without a serial number was written: %v", err)
	}
	// Configured docks are accepted: the named port, the pinned serial.
	if tr, _ := loadTrust("", Options{Port: "/dev/ttyACM0"}, now); !tr.trusted(serial.Plugged{Path: "/dev/ttyACM0"}) {
		t.Error("dock.port not trusted")
	}
	if tr, _ := loadTrust("", Options{Serial: serial.Opts{Serial: "X1"}}, now); !tr.trusted(serial.Plugged{Serial: "X1"}) || tr.trusted(serial.Plugged{Serial: "X2"}) {
		t.Error("dock.serial pin: want X1 trusted and X2 not")
	}
}

// TestShownSerial: the screen shows the whole serial that trust compares,
// and two serials that differ never look the same.
func TestShownSerial(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "(no serial number)",
		"3C:84:CE:00:12:AB":     "3C:84:CE:00:12:AB",
		"ok\u202eevil\n":        `ok\u202eevil\n`,
		"ok?evil":               "ok?evil",
		`a\u0041`:               `a\\u0041`,
		"\xff":                  `\xff`,
		strings.Repeat("A", 40): strings.Repeat("A", 40),
	} {
		if got := shownSerial(in); got != want {
			t.Errorf("shownSerial(%q) = %q, want %q", in, got, want)
		}
	}
	if shownSerial("ok\u202eevil") == shownSerial("ok?evil") || shownSerial(`\xff`) == shownSerial("\xff") {
		t.Error("two different serials are shown the same")
	}
	// What cannot be shown whole is never asked about, so never accepted
	// on the screen: trust compares nothing the person did not read.
	tr, _ := loadTrust("", Options{}, time.Now())
	for _, sn := range []string{strings.Repeat("A", maxShownSerial+1), strings.Repeat("\u00e9", 11), strings.Repeat("A", maxSerial+1)} {
		if v, _ := tr.check(serial.Plugged{Serial: sn}); v != unshowable {
			t.Errorf("serial of %d bytes shown as %d characters: verdict %d, want unshowable", len(sn), len(shownSerial(sn)), v)
		}
	}
	if v, _ := tr.check(serial.Plugged{Serial: strings.Repeat("A", maxShownSerial)}); v != unknown {
		t.Errorf("a %d-character serial: verdict %d, want unknown (asked)", maxShownSerial, v)
	}
}

// TestKnownSerialLookingDifferent: a dock is remembered with its USB
// product and manufacturer; its serial under other strings is asked about
// again, saying how it looked; a record from before the strings were kept
// is filled in on first use.
func TestKnownSerialLookingDifferent(t *testing.T) {
	now := time.Unix(1700000000, 0)
	dir := t.TempDir()
	mine := serial.Plugged{Serial: fakeSerial, Product: "USB JTAG/serial debug unit", Manufacturer: "Espressif"}
	copycat := mine
	copycat.Product = "Totally a CoreS3"
	tr, _ := loadTrust(dir, Options{}, now)
	if err := tr.accept(mine, now); err != nil {
		t.Fatal(err)
	}
	tr, err := loadTrust(dir, Options{}, now)
	if err != nil || !tr.trusted(mine) {
		t.Fatalf("reloaded: %v, mine trusted %v", err, tr.trusted(mine))
	}
	v, was := tr.check(copycat)
	if v != different || was != looksOf(mine) {
		t.Fatalf("copied serial: verdict %d, was %+v; want different, %+v", v, was, looksOf(mine))
	}
	if got := shownLooks(was); got != `"USB JTAG/serial debug unit" by "Espressif"` {
		t.Errorf("shownLooks = %q", got)
	}
	// Accepting it again replaces the record: now the copy is the one known.
	if err := tr.accept(copycat, now); err != nil || !tr.trusted(copycat) {
		t.Fatalf("accept(copycat) = %v", err)
	}
	if tr, _ := loadTrust(dir, Options{}, now); len(tr.docks) != 1 || !tr.trusted(copycat) || tr.trusted(mine) {
		t.Errorf("after re-accepting: %+v", tr.docks)
	}

	// An old record (serial only) trusts any strings, and keeps the first seen.
	path := filepath.Join(dir, TrustFile)
	if err := os.WriteFile(path, []byte(`{"docks":[{"serial":"`+fakeSerial+`","accepted":"2026-01-01T00:00:00Z"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, _ = loadTrust(dir, Options{}, now)
	if !tr.trusted(mine) {
		t.Fatal("an old record does not trust its serial")
	}
	if err := tr.recordLooks(mine, now); err != nil {
		t.Fatal(err)
	}
	if tr, _ := loadTrust(dir, Options{}, now); !tr.trusted(mine) || tr.trusted(copycat) {
		t.Errorf("after recording: %+v; want mine only", tr.docks)
	}
	// Accepted for this run only (no data dir): the strings count too.
	tr, _ = loadTrust("", Options{}, now)
	_ = tr.accept(mine, now)
	if tr.trusted(copycat) {
		t.Error("accepted this run: a copied serial under other strings is trusted")
	}
}

func TestRetryDelay(t *testing.T) {
	var got []time.Duration
	for i := range 8 {
		got = append(got, retryDelay(i, 2*time.Second))
	}
	want := []time.Duration{50, 100, 200, 400, 800, 1600, 2000, 2000}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("retry delays %v, want %v ms", got, want)
		}
	}
	if d := retryDelay(1000, 2*time.Second); d != 2*time.Second {
		t.Errorf("retryDelay(1000) = %v", d)
	}
}

// TestVolumeAndTerminalsThroughTheActor: dock.volume reaches the CoreS3 at
// the handshake and again on Reload when the config changed it; a running
// terminal session from the lan service lights task.status.
func TestVolumeAndTerminalsThroughTheActor(t *testing.T) {
	volume := new(40)
	var mu sync.Mutex
	read := func() (*int, error) { mu.Lock(); defer mu.Unlock(); return volume, nil }
	r := newRig(t, wire.FirmwareCaps, nil, Options{MutePrompts: true, Volume: new(40), ReadVolume: read})
	r.core.plug()
	waitFor(t, "the volume at EVENT ready", func() bool { return len(r.core.Settings()) == 1 })
	if s := r.core.Settings()[0]; s.Volume != 40 {
		t.Fatalf("settings %+v, want volume 40", s)
	}
	r.send(supervisor.Reload{}) // unchanged: nothing sent
	mu.Lock()
	volume = new(85)
	mu.Unlock()
	r.send(supervisor.Reload{})
	waitFor(t, "the changed volume", func() bool { return len(r.core.Settings()) == 2 })
	if s := r.core.Settings(); s[1].Volume != 85 || s[1].EventID == s[0].EventID {
		t.Errorf("settings after reload %+v, want volume 85 with a new event_id", s)
	}

	running := func() int {
		n := 0
		for _, s := range eventsOf[appevent.TaskStatus](r.core) {
			if s.State == appevent.TaskRunning {
				n++
			}
		}
		return n
	}
	r.send(lan.State{Sessions: []lan.Session{{ID: "s1", Client: "ada", State: "running", Updated: time.Now()}}})
	waitFor(t, "task.status running for the terminal session", func() bool { return running() > 0 })
	noViolations(t, r.core)
}

// TestStrangerBesideTheAcceptedDock (issue 32.4): every ESP32-S3 reports
// 303a:1001. A never-accepted board plugged beside the working CoreS3 is
// only the "New dock" question: the state keeps naming the accepted dock,
// which keeps its port and session; pulling the stranger changes nothing
// for it. A stranger that copied its serial asks too, saying so.
func TestStrangerBesideTheAcceptedDock(t *testing.T) {
	dir := t.TempDir()
	accepted := serial.Plugged{Serial: fakeSerial, Product: fakeProduct, Manufacturer: fakeManufacturer}
	if tr, _ := loadTrust(dir, Options{}, time.Now()); tr.accept(accepted, time.Now()) != nil {
		t.Fatal("cannot pre-accept the fake CoreS3")
	}
	r := newRig(t, wire.FirmwareCaps, nil, Options{MutePrompts: true, DataDir: dir})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return r.state().Event })
	path := r.state().Path
	r.send(approvals.PromptAppeared{Prompt: prompt})
	waitFor(t, "the prompt on the CoreS3", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) == 1 })

	// The stranger sorts first ("/dev/a…" < "/dev/pts/…"): order must not matter.
	r.core.setOthers(stranger("/dev/aaaACM9", "STRANGER1"))
	waitFor(t, "the stranger asking", func() bool { return r.state().NewDock.Asking })
	s := r.state()
	if s.NewDock.Serial != "STRANGER1" || s.NewDock.Was != "" || s.NewDock.Looks != `"`+fakeProduct+`" by "`+fakeManufacturer+`"` {
		t.Errorf("question %+v, want STRANGER1 as a new dock", s.NewDock)
	}
	if s.Path != path || s.Serial != fakeSerial || !s.Connected || !s.Event || !strings.Contains(s.Description, "SN 3C84") {
		t.Errorf("with a stranger plugged the state is %+v; want the accepted dock at %s, connected and ready", s, path)
	}

	r.core.setOthers()
	waitFor(t, "the stranger gone", func() bool { return !r.state().NewDock.Asking })
	second := approvals.Prompt{Source: "desktop", ID: "toolu_02", Tool: "Bash", Hint: "make"}
	r.send(approvals.PromptAppeared{Prompt: second})
	waitFor(t, "the next prompt on the same session", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) == 2 })
	if s := r.state(); s.Path != path || !s.Event || r.core.Hellos() != 1 {
		t.Errorf("after the stranger left: %+v, %d HELLOs; want the same port and session (1 HELLO)", s, r.core.Hellos())
	}

	// A board that copied the accepted serial under other USB strings.
	copycat := stranger("/dev/aaaACM8", fakeSerial)
	copycat.Product = "Totally a CoreS3"
	r.core.setOthers(copycat)
	waitFor(t, "the copy asking", func() bool { return r.state().NewDock.Asking })
	if nd := r.state().NewDock; nd.Was != `"`+fakeProduct+`" by "`+fakeManufacturer+`"` || !strings.Contains(nd.Looks, "Totally a CoreS3") {
		t.Errorf("copied serial question %+v; want it to say how the accepted dock looked", nd)
	}
	r.send(RefuseDock{Serial: fakeSerial})
	waitFor(t, "the copy refused", func() bool { return !r.state().NewDock.Asking })
	if s := r.state(); s.Path != path || !s.Event {
		t.Errorf("refusing the copy touched the accepted dock: %+v", s)
	}
	r.core.setOthers()
	r.send(approvals.PromptResolved{Prompt: second, How: approvals.AnsweredElsewhere})
	waitFor(t, "resolved on the same session", func() bool { return len(eventsOf[appevent.ApprovalResolved](r.core)) == 1 })
	if r.core.Hellos() != 1 {
		t.Errorf("%d HELLOs; the accepted dock's session was restarted", r.core.Hellos())
	}
	noViolations(t, r.core)
}
