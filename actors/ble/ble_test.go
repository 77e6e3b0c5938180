package ble

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
	"github.com/claude-pi/claude-pi/drivers/ble/bletest"
	"github.com/claude-pi/claude-pi/protocols/nus"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// flaky fails Notify number failAt (1-based) and only that one, to cut a
// line in the middle; the fake's FailNotify fails every call.
type flaky struct {
	*bletest.Fake
	mu      sync.Mutex
	n       int
	failAt  int
	runErrs []error // returned by the first Runs, one each
}

func (f *flaky) Notify(p []byte) error {
	f.mu.Lock()
	f.n++
	fail := f.n == f.failAt
	f.mu.Unlock()
	if fail {
		return errors.New("flaky: radio busy")
	}
	return f.Fake.Notify(p)
}

func (f *flaky) Run(ctx context.Context, events chan<- drv.Event) error {
	f.mu.Lock()
	var err error
	if len(f.runErrs) > 0 {
		err, f.runErrs = f.runErrs[0], f.runErrs[1:]
	}
	f.mu.Unlock()
	if err != nil {
		return err
	}
	return f.Fake.Run(ctx, events)
}

type rig struct {
	t     *testing.T
	tree  *supervisor.Tree
	sys   *actor.ActorSystem
	fake  *bletest.Fake
	p     *flaky
	buddy *supervisortest.Recorder
	ble   *actor.PID
}

func newRig(t *testing.T, cfg Config, runErrs ...error) *rig {
	if cfg.Lines == "" {
		cfg.Lines = "buddy"
	}
	fake := bletest.NewFake(true)
	r := &rig{t: t, fake: fake, p: &flaky{Fake: fake, runErrs: runErrs}, buddy: &supervisortest.Recorder{}}
	pol := supervisor.DefaultPolicy
	pol.BackoffMin, pol.BackoffMax = 10*time.Millisecond, 10*time.Millisecond
	tree := supervisortest.Start(t,
		supervisor.Service{Name: "buddy", Policy: pol, New: r.buddy.New},
		supervisor.Service{Name: "ble", Policy: pol, New: New(r.p, cfg)},
	)
	r.tree, r.sys, r.ble = tree, tree.System(), supervisor.ServicePID(tree.System(), "ble")
	// Resubscribe until it sticks: with runErrs the first incarnations fail
	// at once, and a Subscribe sent while ble is in BACKOFF is lost.
	supervisortest.WaitFor(t, "ble advertising", func() bool {
		r.sys.Root.Send(r.ble, supervisor.Subscribe{PID: supervisor.ServicePID(r.sys, "buddy")})
		time.Sleep(20 * time.Millisecond)
		return r.link().Advertising
	})
	return r
}

// sync returns once ble has handled everything sent to it so far: a
// repeated Subscribe is answered with one more LinkState.
func (r *rig) sync() {
	r.t.Helper()
	count := func() int {
		n := 0
		for _, m := range r.buddy.All() {
			if _, ok := m.(LinkState); ok {
				n++
			}
		}
		return n
	}
	before := count()
	r.sys.Root.Send(r.ble, supervisor.Subscribe{PID: supervisor.ServicePID(r.sys, "buddy")})
	r.waitFor(func() bool { return count() > before }, "ble to catch up")
}

func (r *rig) waitFor(ok func() bool, what string) {
	r.t.Helper()
	supervisortest.WaitFor(r.t, what, ok)
}

func (r *rig) link() LinkState {
	var last LinkState
	for _, m := range r.buddy.All() {
		if s, ok := m.(LinkState); ok {
			last = s
		}
	}
	return last
}

func (r *rig) waitLink(ok func(LinkState) bool, what string) {
	r.t.Helper()
	r.waitFor(func() bool { return ok(r.link()) }, "link state: "+what)
}

// lines returns what buddy got from the link: Line data as strings and
// LineError as "ERR".
func (r *rig) lines() []string {
	var out []string
	for _, m := range r.buddy.All() {
		switch m := m.(type) {
		case Line:
			out = append(out, string(m.Take()))
		case LineError:
			out = append(out, "ERR")
		}
	}
	return out
}

func (r *rig) waitLines(n int) []string {
	r.t.Helper()
	r.waitFor(func() bool { return len(r.lines()) >= n }, "lines")
	return r.lines()
}

// connect brings up a subscribed, encrypted link at mtu.
func (r *rig) connect(mtu int) {
	r.t.Helper()
	must(r.t, r.fake.Connect("AA:BB:CC:DD:EE:FF"))
	must(r.t, r.fake.ExchangeMTU(mtu))
	must(r.t, r.fake.Subscribe(true))
	must(r.t, r.fake.Secure())
	r.waitLink(func(s LinkState) bool { return s.Subscribed && s.Secured && s.MTU == mtu }, "subscribed and secured")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRXLinesReachBuddy(t *testing.T) {
	r := newRig(t, Config{})
	r.connect(185)
	if p, _ := r.tree.Process("ble"); p.Description != "advertising as Claude_Pi · 1 central · link encrypted · security bonded · MTU 185" {
		t.Errorf("description %q", p.Description)
	}
	uni := `{"msg":"` + strings.Repeat("é漢🐙", 40) + `"}`
	must(t, r.fake.WriteChunks([]byte(uni+"\n"), 180))
	// 70 KiB without a newline, then its end and a good line in one write.
	must(t, r.fake.WriteChunks(append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), 70<<10)...), 180))
	must(t, r.fake.Write([]byte("\"}\n{\"total\":1}\n")))
	// Half a line, then the link drops: it must not prefix the next line.
	must(t, r.fake.Write([]byte(`{"total":`)))
	must(t, r.fake.Disconnect())
	r.waitLink(func(s LinkState) bool { return !s.Connected && !s.Secured && !s.Subscribed }, "disconnected")
	r.connect(185)
	must(t, r.fake.Write([]byte("{\"total\":2}\r\n")))
	got := r.waitLines(4)
	want := []string{uni, "ERR", `{"total":1}`, `{"total":2}`}
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %.60q, want %.60q", i, got[i], want[i])
		}
	}
}

func TestPairingShowsPasskey(t *testing.T) {
	r := newRig(t, Config{})
	must(t, r.fake.Connect("AA"))
	r.fake.Push(drv.Passkey{Code: 42})
	r.waitLink(func(s LinkState) bool { return s.Passkey == "000042" }, "passkey")
	if p, _ := r.tree.Process("ble"); !strings.HasSuffix(p.Description, "pairing: passkey shown") {
		t.Errorf("description %q", p.Description)
	}
	r.fake.Push(drv.PairingDone{OK: true})
	r.waitLink(func(s LinkState) bool { return s.Passkey == "" }, "passkey hidden")
	if s := r.link(); !s.CanPair || s.Security != "bonded" {
		t.Errorf("link %+v: want CanPair and bonded", s)
	}
}

// notes splits what the desktop received into lines, as its reassembler
// does.
func (r *rig) desktopLines() []string {
	return strings.Split(string(r.fake.Sent()), "\n")
}

func TestSendChunksInOrderAndDropsWhenUnsubscribed(t *testing.T) {
	r := newRig(t, Config{})
	r.sys.Root.Send(r.ble, Send{Line: []byte("{\"dropped\":true}\n")}) // no central yet
	r.sync()
	r.connect(185)
	long := `{"ack":"status","data":"` + strings.Repeat("x", 1000) + "\"}\n"
	lines := []string{"{\"a\":1}\n", long, "{\"b\":\"ü\"}\n"}
	for _, l := range lines {
		r.sys.Root.Send(r.ble, Send{Line: []byte(l)})
	}
	want := strings.Join(lines, "")
	r.waitFor(func() bool { return len(r.fake.Sent()) >= len(want) }, "notifications")
	if got := string(r.fake.Sent()); got != want {
		t.Fatalf("desktop received %q\nwant %q", got, want)
	}
	for i, n := range r.fake.Notifications() {
		if len(n) > 185-3 {
			t.Errorf("notification %d is %d bytes, over MTU-3", i, len(n))
		}
	}
	if n := len(r.fake.Notifications()); n != 1+(len(long)+181)/182+1 {
		t.Errorf("%d notifications, want every line in as few as MTU-3 allows", n)
	}
}

func TestCutLineIsEndedBeforeTheNext(t *testing.T) {
	r := newRig(t, Config{})
	r.connect(drv.DefaultMTU) // 20-byte chunks
	r.p.mu.Lock()
	r.p.failAt = 2
	r.p.mu.Unlock()
	first := `{"cmd":"permission","id":"req_1","decision":"once"}` + "\n"
	second := `{"cmd":"permission","id":"req_2","decision":"deny"}` + "\n"
	r.sys.Root.Send(r.ble, Send{Line: []byte(first)})
	r.sys.Root.Send(r.ble, Send{Line: []byte(second)})
	r.sys.Root.Send(r.ble, Send{Line: []byte("{}\n")})
	r.waitFor(func() bool { return bytes.HasSuffix(r.fake.Sent(), []byte("{}\n")) }, "the last line")
	got := r.desktopLines()
	want := []string{first[:20], second[:len(second)-1], "{}", ""}
	if len(got) != len(want) {
		t.Fatalf("desktop lines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("desktop line %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestMalformedLineRefused(t *testing.T) {
	r := newRig(t, Config{})
	r.connect(185)
	r.sys.Root.Send(r.ble, Send{Line: []byte(`{"no":"newline"}`)})
	r.sys.Root.Send(r.ble, Send{Line: []byte("{\"a\":1}\n{\"b\":2}\n")})
	r.sys.Root.Send(r.ble, Send{Line: []byte("{\"ok\":1}\n")})
	r.waitFor(func() bool { return len(r.fake.Sent()) > 0 }, "a notification")
	if got := string(r.fake.Sent()); got != "{\"ok\":1}\n" {
		t.Fatalf("sent %q: malformed lines must not go out", got)
	}
}

func TestUnpairRemovesBonds(t *testing.T) {
	r := newRig(t, Config{})
	r.sys.Root.Send(r.ble, Unpair{})
	r.waitFor(func() bool { return r.fake.BondsRemoved() == 1 }, "RemoveBonds")
}

// forget asks the ble service to ForgetBonds, as the ui does.
func (r *rig) forget() BondsForgotten {
	r.t.Helper()
	res, err := r.sys.Root.RequestFuture(r.ble, ForgetBonds{}, supervisortest.Patience).Result()
	if err != nil {
		r.t.Fatalf("ForgetBonds: %v", err)
	}
	got, ok := res.(BondsForgotten)
	if !ok {
		r.t.Fatalf("ForgetBonds answered %T, want BondsForgotten", res)
	}
	return got
}

// The Pi's "Forget Bluetooth pairing?" with the desktop connected and
// bonded: the bond goes, the link drops, and the answer says how many.
func TestForgetBondsRemovesTheBondsAndAnswers(t *testing.T) {
	r := newRig(t, Config{})
	r.connect(185) // paired: bonded
	if got := r.forget(); got != (BondsForgotten{Removed: 1}) {
		t.Fatalf("ForgetBonds = %+v, want 1 removed", got)
	}
	if len(r.fake.Bonds()) != 0 {
		t.Fatalf("bonds left %v", r.fake.Bonds())
	}
	r.waitLink(func(s LinkState) bool { return !s.Connected && !s.Secured && s.Advertising }, "the desktop dropped, still advertising")

	boom := errors.New("bluez: removing the bond of AA: org.bluez.Error.Failed")
	r.fake.FailRemoveBonds(boom)
	if got := r.forget(); got.Err != boom.Error() || got.NoBonds {
		t.Fatalf("ForgetBonds with RemoveDevice failing = %+v, want its error", got)
	}
}

// A link that cannot pair says so: nothing to forget is not an error.
func TestForgetBondsOnAnOpenLinkSaysNoBonds(t *testing.T) {
	fake := bletest.NewFake(false)
	tree := supervisortest.Start(t, supervisor.Service{Name: "ble", Policy: supervisor.DefaultPolicy,
		New: New(fake, Config{Security: drv.Open, Lines: "buddy"})})
	sys := tree.System()
	res, err := sys.Root.RequestFuture(supervisor.ServicePID(sys, "ble"), ForgetBonds{}, supervisortest.Patience).Result()
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(BondsForgotten); got != (BondsForgotten{NoBonds: true}) {
		t.Fatalf("ForgetBonds on an open link = %+v, want NoBonds", got)
	}
}

func TestRunErrorRestartsWithoutLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		r := newRig(t, Config{Security: drv.Open}, errors.New("adapter hci0 missing"))
		// newRig waited for advertising, so a later incarnation runs.
		p, _ := r.tree.Process("ble")
		if p.State != supervisor.Running {
			t.Fatalf("state %v", p.State)
		}
		r.connect(185)
		r.sys.Root.Send(r.ble, Send{Line: []byte("{}\n")})
		r.waitFor(func() bool { return string(r.fake.Sent()) == "{}\n" }, "send after restart")
		ctx, cancel := context.WithTimeout(context.Background(), supervisortest.Patience)
		defer cancel()
		if err := r.tree.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after shutdown, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// sink is a subscribed peripheral that only counts, so the benchmark
// measures the actor's TX path and not a fake's recording.
type sink struct{ n int }

func (s *sink) Run(ctx context.Context, _ chan<- drv.Event) error { <-ctx.Done(); return nil }
func (s *sink) Notify(p []byte) error                             { s.n += len(p); return nil }
func (s *sink) MTU() int                                          { return 185 }
func (s *sink) RemoveBonds() (int, error)                         { return 0, drv.ErrNoBonds }
func (s *sink) CanPair() bool                                     { return false }

// BenchmarkSendLine is the TX path of a typical 300-byte ack at MTU 185
// (two notifications).
func BenchmarkSendLine(b *testing.B) {
	p := &sink{}
	a := New(p, Config{})(nil).(*Actor)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	line := []byte(`{"ack":"status","ok":true,"n":0,"data":"` + strings.Repeat("x", 250) + "\"}\n")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		a.sendWith(log, line)
	}
	if p.n == 0 {
		b.Fatal("nothing sent")
	}
}

// BenchmarkFeedLines is the RX path: a 400-byte heartbeat in 180-byte
// writes, assembled and handed on (to a nil context: only the copy).
func BenchmarkFeedLines(b *testing.B) {
	asm := nus.NewAssembler(0)
	line := []byte(`{"total":3,"running":1,"waiting":1,"msg":"` + strings.Repeat("y", 330) + "\"}\n")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	var got int
	for b.Loop() {
		for p := line; len(p) > 0; {
			n := min(180, len(p))
			asm.Feed(p[:n], func(l []byte, err error) { got += len(append([]byte(nil), l...)) })
			p = p[n:]
		}
	}
	if got == 0 {
		b.Fatal("no lines")
	}
}

// peekLines is every Line buddy got, read without taking it (a Line the
// link sent stays open until taken).
func (r *rig) peekLines() []string {
	var out []string
	for _, l := range supervisortest.Of[Line](r.buddy) {
		l.s.w.mu.Lock()
		out = append(out, string(l.s.data))
		l.s.w.mu.Unlock()
	}
	return out
}

func (r *rig) waitPeek(what string, ok func([]string) bool) []string {
	r.t.Helper()
	r.waitFor(func() bool { return ok(r.peekLines()) }, what)
	return r.peekLines()
}

func lastIs(want string) func([]string) bool {
	return func(got []string) bool { return len(got) > 0 && got[len(got)-1] == want }
}

// TestHeartbeatsFoldWhileBuddyIsBehind: while buddy has taken nothing,
// each run of heartbeats is one Line, holding the run's newest, and
// every other line keeps its place between them.
func TestHeartbeatsFoldWhileBuddyIsBehind(t *testing.T) {
	r := newRig(t, Config{})
	r.connect(185)
	hb := func(i int) string {
		return `{"total":1,"waiting":1,"msg":"approve: Bash","prompt":{"id":"p` + strconv.Itoa(i) + `","tool":"Bash"}}`
	}
	var want []string
	for i := range 300 {
		must(t, r.fake.WriteChunks([]byte(hb(i)+"\n"), 180))
	}
	want = append(want, hb(299), `{"cmd":"status"}`)
	must(t, r.fake.Write([]byte(want[1]+"\n")))
	for i := 300; i < 600; i++ {
		must(t, r.fake.Write([]byte(hb(i)+"\n")))
	}
	// A heartbeat does not replace one whose "tokens" was higher (the
	// count would re-baseline), nor one that set a field it lacks (the
	// field would be lost).
	entries := `{"total":1,"entries":["10:40 hi"],"tokens":5}`
	lower := `{"total":1,"entries":[],"tokens":4}`
	turn := `{"evt":"turn","role":"assistant","content":"hi"}`
	sentinel := `{"cmd":"name","name":"end"}`
	for _, l := range []string{turn, entries, lower, `{"total":2}`, `{}`, hb(600), hb(601), sentinel} {
		must(t, r.fake.Write([]byte(l+"\n")))
	}
	want = append(want, hb(599), turn, entries, lower, `{"total":2}`, `{}`, hb(601), sentinel)
	got := r.waitPeek("the sentinel line", lastIs(sentinel))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("buddy got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Once taken, a Line is closed: the next heartbeat is a Line of its own.
	if l := supervisortest.Of[Line](r.buddy); string(l[len(l)-2].Take()) != hb(601) {
		t.Fatal("Take did not return the newest heartbeat of the run")
	}
	must(t, r.fake.Write([]byte(hb(602)+"\n"+hb(603)+"\n")))
	got = r.waitPeek("the last heartbeat", lastIs(hb(603)))
	if len(got) != len(want)+1 {
		t.Fatalf("after the last Take, %d lines, want %d", len(got), len(want)+1)
	}
}

// TestRXBackpressureHoldsWritesAndLosesNone: a buddy that takes nothing
// holds the central back once a quarter MiB of lines waits for it; the
// writes wait at the driver, and once buddy takes them (or restarts and
// subscribes again) every line arrives, in order.
func TestRXBackpressureHoldsWritesAndLosesNone(t *testing.T) {
	r := newRig(t, Config{})
	r.connect(185)
	const n = 12_000
	for i := range n {
		must(t, r.fake.Write([]byte(`{"n":`+strconv.Itoa(i)+"}\n")))
	}
	lightest, heaviest := len(`{"n":0}`)+slotOverhead, len(`{"n":11999}`)+slotOverhead
	limit := maxHeld/lightest + maxInflight + 1
	r.waitFor(func() bool { return len(supervisortest.Of[Line](r.buddy)) >= maxHeld/heaviest }, "the window to fill")
	if got := len(supervisortest.Of[Line](r.buddy)); got > limit {
		t.Fatalf("%d lines reached buddy without being taken, want at most %d", got, limit)
	}
	if r.fake.Pending() == 0 {
		t.Fatal("every write was taken from the driver although buddy took no line")
	}
	// A restarted buddy subscribes again: what the dead one left untaken
	// no longer holds the link back.
	before := len(supervisortest.Of[Line](r.buddy))
	r.sys.Root.Send(r.ble, supervisor.Subscribe{PID: supervisor.ServicePID(r.sys, "buddy")})
	r.waitFor(func() bool { return len(supervisortest.Of[Line](r.buddy)) > before+maxInflight }, "lines after the resubscribe")
	// Taking frees the rest.
	taken := 0
	r.waitFor(func() bool {
		lines := supervisortest.Of[Line](r.buddy)
		for _, l := range lines[taken:] {
			if want := `{"n":` + strconv.Itoa(taken) + `}`; string(l.Take()) != want {
				t.Fatalf("line %d is %q, want %q", taken, l.Take(), want)
			}
			taken++
		}
		return taken == n
	}, "every line")
}

// A Send with a Receipt is answered with a Sent to the Lines service:
// dropped while no central is subscribed, OK once notified whole, not OK
// when cut. And a heartbeat the link reads after a report never folds
// into a Line sent before it, so buddy hears of the permission line
// before it hears what the desktop did next.
func TestSendReceiptsSayWhetherTheLineWentOut(t *testing.T) {
	r := newRig(t, Config{})
	perm := func(id string) []byte {
		return []byte(`{"cmd":"permission","id":"` + id + `","decision":"once"}` + "\n")
	}
	receipts := func() []Sent { return supervisortest.Of[Sent](r.buddy) }
	r.sys.Root.Send(r.ble, Send{Line: perm("req_0"), Receipt: "unsubscribed"})
	r.waitFor(func() bool { return len(receipts()) == 1 }, "the first receipt")
	r.connect(drv.DefaultMTU) // 20-byte chunks: a permission line is 3
	hb := func(i int) string {
		return `{"total":1,"waiting":1,"msg":"approve: Bash","prompt":{"id":"p` + strconv.Itoa(i) + `","tool":"Bash"}}`
	}
	must(t, r.fake.Write([]byte(hb(1)+"\n")))
	r.waitPeek("the first heartbeat", lastIs(hb(1))) // buddy has not taken it
	r.sys.Root.Send(r.ble, Send{Line: perm("req_1"), Receipt: "whole"})
	r.waitFor(func() bool { return len(receipts()) == 2 }, "the second receipt")
	r.p.mu.Lock()
	r.p.failAt = r.p.n + 2
	r.p.mu.Unlock()
	r.sys.Root.Send(r.ble, Send{Line: perm("req_2"), Receipt: "cut"})
	r.waitFor(func() bool { return len(receipts()) == 3 }, "the third receipt")
	must(t, r.fake.Write([]byte(hb(2)+"\n")))
	got := r.waitPeek("the second heartbeat", lastIs(hb(2)))
	if want := []string{hb(1), hb(2)}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("buddy got lines\n%s\nwant\n%s (a heartbeat folded over a receipt)", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rs := receipts()
	if rs[0].Receipt != "unsubscribed" || rs[0].OK || !strings.Contains(rs[0].Err, "no central subscribed") {
		t.Errorf("receipt before any central = %+v", rs[0])
	}
	if rs[1] != (Sent{Receipt: "whole", OK: true}) {
		t.Errorf("receipt of a line notified whole = %+v", rs[1])
	}
	if rs[2].Receipt != "cut" || rs[2].OK || !strings.Contains(rs[2].Err, "cut after 1 of 3") {
		t.Errorf("receipt of a cut line = %+v", rs[2])
	}
	if sent := string(r.fake.Sent()); !strings.HasPrefix(sent, string(perm("req_1"))) {
		t.Errorf("desktop received %q, want the whole line first", sent)
	}
}
