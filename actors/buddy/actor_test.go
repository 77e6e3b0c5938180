package buddy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/supervisor"
)

func TestActorStatusRoundTrip(t *testing.T) {
	h := newHarness(t, t.TempDir())
	h.line(`{"cmd":"owner","name":"Felix"}`)
	if l := h.nextLine(); string(l) != `{"ack":"owner","ok":true,"n":0}`+"\n" {
		t.Fatalf("owner ack = %q", l)
	}
	h.line(`{"cmd":"status"}`)
	l := h.nextLine()
	if err := pbuddy.ValidateStatusAck(l); err != nil {
		t.Fatalf("%v in %s", err, l)
	}
	a, _ := pbuddy.Decode(bytes.TrimSuffix(l, []byte("\n")))
	st, err := a.(pbuddy.Ack).Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "Claude_Pi" || st.Owner != "Felix" || !st.Sec || st.Sys.Up != 8412 || st.Sys.Heap != 412_000_000 || st.Sys.FSTotal == 0 || st.Sys.FSFree > st.Sys.FSTotal {
		t.Fatalf("status = %+v", st)
	}
}

// The 200-character mixed-Unicode id reaches approvals verbatim and the
// permission line carries it byte for byte as the desktop sent it.
func TestActorPromptIDVerbatim(t *testing.T) {
	h := newHarness(t, t.TempDir())
	id := strings.Repeat("é🙂\"\\a", 40)
	quoted := jsonQuote(id)
	h.line(`{"total":1,"running":1,"waiting":1,"msg":"approve: Bash","entries":[],"tokens":1,"tokens_today":1,"prompt":{"id":` + quoted + `,"tool":"Bash","hint":"ls"}}`)
	p := h.nextPrompts()
	if len(p.Prompts) != 1 || p.Prompts[0].ID != id || p.Prompts[0].Source != Source || !p.LinkUp {
		t.Fatalf("SetPrompts = %+v", p)
	}
	h.send(approvals.Decided{Source: Source, ID: id, Decision: approvals.AllowOnce, By: "Claude_Pi"})
	l := h.nextLine()
	if want := `{"cmd":"permission","id":` + quoted + `,"decision":"once"}` + "\n"; string(l) != want {
		t.Fatalf("permission line\n got %q\nwant %q", l, want)
	}
}

func TestActorTurnEventNeverClearsPrompt(t *testing.T) {
	h := newHarness(t, t.TempDir())
	hb := `{"total":1,"running":1,"waiting":1,"msg":"approve: Bash","entries":[],"tokens":1,"tokens_today":1,"prompt":{"id":"req_7c1e","tool":"Bash","hint":"cargo test"}}`
	h.line(hb)
	h.nextPrompts()
	h.line(`{"evt":"turn","role":"assistant","content":[{"type":"text","text":"hello"}]}`)
	h.line(`{"evt":"turn","role":"user","content":"plain"}`)
	st := h.mustState() // the mailbox is ordered: the turns are handled
	if st.Snapshot.Prompt == nil || st.Snapshot.Prompt.ID != "req_7c1e" {
		t.Fatalf("prompt after turn events = %+v", st.Snapshot.Prompt)
	}
	select {
	case p := <-h.prompts:
		t.Fatalf("turn event sent %+v", p)
	default:
	}
}

func TestActorLivenessTimeoutClearsPrompt(t *testing.T) {
	h := newHarness(t, t.TempDir())
	h.line(`{"total":1,"running":0,"waiting":1,"msg":"m","entries":["kept"],"tokens":1,"tokens_today":1,"prompt":{"id":"p1","tool":"Bash","hint":""}}`)
	h.nextPrompts()
	h.clock.Add(29 * time.Second)
	h.send(tick{})
	h.clock.Add(time.Second)
	h.send(tick{})
	p := h.nextPrompts()
	if p.LinkUp || p.Prompts != nil {
		t.Fatalf("SetPrompts = %+v, want LinkUp:false", p)
	}
	st := h.mustState()
	if st.Connected || st.Snapshot.Prompt != nil || st.Snapshot.Msg != noClaude || st.Snapshot.Entries[0] != "kept" {
		t.Fatalf("state = %+v %+v", st, st.Snapshot)
	}
	// A decision now is dropped, not written into a dead link, and
	// approvals hears so.
	h.send(approvals.Decided{Source: Source, ID: "p1", Decision: approvals.AllowOnce, Attempt: 1})
	if r := h.nextReport(); r.ID != "p1" || r.Attempt != 1 || r.Sent || r.Err == "" {
		t.Fatalf("report = %+v, want attempt 1 of p1 dropped", r)
	}
	select {
	case l := <-h.sent:
		t.Fatalf("sent %q with no desktop", l)
	default:
	}
}

// A permission line the link could not notify (no central subscribed) is
// reported to approvals as dropped, one it notified as sent: the screen
// must not say "approved here" when the desktop answered the prompt
// itself.
func TestActorReportsWhetherPermissionLineWentOut(t *testing.T) {
	h := newHarness(t, t.TempDir())
	h.line(`{"total":1,"running":1,"waiting":1,"msg":"approve: Bash","entries":[],"tokens":1,"tokens_today":1,"prompt":{"id":"req_9","tool":"Bash","hint":"ls"}}`)
	h.nextPrompts()
	h.drop.Store(true)
	h.send(approvals.Decided{Source: Source, ID: "req_9", Decision: approvals.AllowOnce, By: "Claude_Pi", Attempt: 1})
	h.nextLine()
	if r := h.nextReport(); r != (approvals.Delivery{Source: Source, ID: "req_9", Attempt: 1,
		Err: "ble: no central subscribed to TX notifications"}) {
		t.Fatalf("report = %+v, want attempt 1 dropped with the link's reason", r)
	}
	h.drop.Store(false)
	h.send(approvals.Decided{Source: Source, ID: "req_9", Decision: approvals.Deny, By: "CoreS3", Attempt: 2})
	if l := h.nextLine(); string(l) != string(pbuddy.EncodePermission("req_9", pbuddy.Deny)) {
		t.Fatalf("line = %q", l)
	}
	if r := h.nextReport(); r != (approvals.Delivery{Source: Source, ID: "req_9", Attempt: 2, Sent: true}) {
		t.Fatalf("report = %+v, want attempt 2 sent", r)
	}
}

func TestActorUnpairAcksFirst(t *testing.T) {
	h := newHarness(t, t.TempDir())
	h.line(`{"cmd":"unpair"}`)
	if l := h.nextLine(); string(l) != `{"ack":"unpair","ok":true,"n":0}`+"\n" {
		t.Fatalf("ack = %q", l)
	}
	select {
	case <-h.unpair:
	case <-time.After(5 * time.Second):
		t.Fatal("no ble.Unpair")
	}
}

// gifPack is a multi-file GIF pack with a manifest.
func gifPack(tag string) map[string][]byte {
	m := map[string][]byte{
		"manifest.json": []byte(`{"name":"` + tag + `","colors":{"body":"#6B8E23"},"states":{"idle":["idle_0.gif","idle_1.gif"],"busy":"busy.gif"}}`),
		"README.md":     []byte("third-party test art\n"),
	}
	for i, n := range []string{"idle_0.gif", "idle_1.gif", "busy.gif"} {
		b := bytes.Repeat([]byte{byte(i), 0xff, 0x21, 0xf9}, 300+i*97)
		m[n] = append([]byte("GIF89a"+tag), b...)
	}
	return m
}

// pushLines is the desktop's line sequence for a pack; stopAfter > 0
// cuts it after that many lines.
func pushLines(name string, files map[string][]byte) []string {
	var total int
	for _, b := range files {
		total += len(b)
	}
	out := []string{fmt.Sprintf(`{"cmd":"char_begin","name":%q,"total":%d}`, name, total)}
	for _, n := range slices.Sorted(maps.Keys(files)) {
		b := files[n]
		out = append(out, fmt.Sprintf(`{"cmd":"file","path":%q,"size":%d}`, n, len(b)))
		for off := 0; off < len(b); off += 256 {
			out = append(out, `{"cmd":"chunk","d":"`+base64.StdEncoding.EncodeToString(b[off:min(off+256, len(b))])+`"}`)
		}
		out = append(out, `{"cmd":"file_end"}`)
	}
	return append(out, `{"cmd":"char_end"}`)
}

// sendAcked sends each line and waits for its ok ack, as the desktop does.
func (h *harness) sendAcked(ls []string) {
	h.tb.Helper()
	for _, l := range ls {
		h.line(l)
		ack := h.nextLine()
		if !bytes.Contains(ack, []byte(`"ok":true`)) {
			h.tb.Fatalf("%.60s… → %s", l, ack)
		}
	}
}

func installed(t *testing.T, data string) map[string][]byte {
	t.Helper()
	dir := filepath.Join(data, "packs", "current")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string][]byte)
	for _, e := range entries {
		if e.Name() == ".pack.json" {
			continue // the pack's name (storage.PackStore.InstalledName)
		}
		m[e.Name()], _ = os.ReadFile(filepath.Join(dir, e.Name()))
	}
	return m
}

func equalPack(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, bytes.Equal)
}

func TestActorPushInstallsAndKillKeepsOldPack(t *testing.T) {
	data := t.TempDir()
	h := newHarness(t, data)
	h.sendAcked(pushLines("bufo", gifPack("old")))
	if !equalPack(installed(t, data), gifPack("old")) {
		t.Fatal("installed pack differs from the one pushed")
	}
	if st := h.mustState(); st.Pack != "bufo" || st.Push != nil {
		t.Fatalf("state after push: pack %q push %+v", st.Pack, st.Push)
	}
	// Half of a second push, then the actor is killed and restarted.
	ls := pushLines("frog", gifPack("new"))
	h.sendAcked(ls[:len(ls)/2])
	if st := h.mustState(); st.Push == nil || st.Push.Name != "frog" {
		t.Fatalf("progress mid-push = %+v", st.Push)
	}
	if err := h.tree.SignalProcess("buddy", "KILL"); err != nil {
		t.Fatal(err)
	}
	waitRunningAgain(t, h)
	if !equalPack(installed(t, data), gifPack("old")) {
		t.Fatal("old pack damaged by a killed push")
	}
	entries, _ := os.ReadDir(filepath.Join(data, "packs"))
	if len(entries) != 1 || entries[0].Name() != "current" {
		t.Fatalf("packs/ after restart holds %v", entries)
	}
	// The restarted actor remembers the installed pack's name.
	if st := h.mustState(); st.Pack != "bufo" {
		t.Fatalf("pack name after restart = %q", st.Pack)
	}
}

func waitRunningAgain(t *testing.T, h *harness) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if p, _ := h.tree.Process("buddy"); p.State.String() == "RUNNING" {
			if _, err := h.state(); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("buddy not RUNNING after KILL")
		}
	}
	h.ready()
}

// Stats survive a restart; level-ups come at 50k-token boundaries counted
// from heartbeat deltas.
func TestActorStatsSurviveRestart(t *testing.T) {
	data := t.TempDir()
	h := newHarness(t, data)
	hb := func(tok int) {
		h.line(fmt.Sprintf(`{"total":1,"running":1,"waiting":1,"msg":"m","entries":[],"tokens":%d,"tokens_today":0,"prompt":{"id":"p%d","tool":"Bash","hint":""}}`, tok, tok))
		h.nextPrompts()
	}
	hb(7_000) // baseline only
	hb(56_999)
	if st := h.mustState(); st.Stats.Lvl != 0 || st.Stats.Tokens != 49_999 {
		t.Fatalf("after 49,999: %+v", st.Stats)
	}
	hb(57_000)
	if st := h.mustState(); st.Stats.Lvl != 1 {
		t.Fatalf("after 50,000: %+v", st.Stats)
	}
	h.send(approvals.Decided{Source: Source, ID: "p57000", Decision: approvals.AllowOnce, By: "Claude_Pi", Attempt: 1})
	h.nextLine()
	h.nextReport() // the approval counts once the link's receipt is handled
	h.restart()
	h.line(`{"cmd":"status"}`)
	a, _ := pbuddy.Decode(bytes.TrimSpace(h.nextLine()))
	st, err := a.(pbuddy.Ack).Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.Stats.Lvl != 1 || st.Stats.Appr != 1 {
		t.Fatalf("stats after restart = %+v", st.Stats)
	}
	// The first heartbeat after the restart is a baseline again.
	hb(1_000_000)
	if s := h.mustState(); s.Stats.Tokens != 50_000 {
		t.Fatalf("tokens = %d, want 50,000", s.Stats.Tokens)
	}
}

func TestActorCorruptStatsSetAside(t *testing.T) {
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, StatsFile), []byte(`{"v":1,"appr":"lots"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, data)
	if st := h.mustState(); st.Stats.Appr != 0 {
		t.Fatalf("stats = %+v", st.Stats)
	}
	aside, _ := filepath.Glob(filepath.Join(data, StatsFile+".damaged-*-wrong-type"))
	if len(aside) != 1 {
		t.Fatalf("damaged file kept as %v, want one copy named wrong-type", aside)
	}
	if b, _ := os.ReadFile(aside[0]); !json.Valid(b) || !bytes.Contains(b, []byte("lots")) {
		t.Fatalf("set-aside content = %q", b)
	}
}

func TestActorNoGoroutineLeakAcrossRestarts(t *testing.T) {
	h := newHarness(t, t.TempDir())
	h.line(`{"cmd":"char_begin","total":100}`)
	h.nextLine()
	settle := func() int {
		n := runtime.NumGoroutine()
		for range 50 {
			time.Sleep(20 * time.Millisecond)
			runtime.GC()
			m := runtime.NumGoroutine()
			if m == n {
				return n
			}
			n = m
		}
		return n
	}
	before := settle()
	for range 5 {
		h.restart()
	}
	if after := settle(); after > before+2 {
		t.Fatalf("goroutines %d → %d across 5 restarts", before, after)
	}
}

// A subscriber gets State at once, on change, and still after a restart.
func TestActorSubscribersSurviveRestart(t *testing.T) {
	h := newHarness(t, t.TempDir())
	got := make(chan State, 64)
	sub := h.tree.System().Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if s, ok := c.Message().(State); ok {
			got <- s
		}
	}))
	h.send(supervisor.Subscribe{PID: sub})
	next := func() State {
		select {
		case s := <-got:
			return s
		case <-time.After(5 * time.Second):
			t.Fatal("no State published")
		}
		return State{}
	}
	next()
	h.restart()
	h.line(`{"cmd":"name","name":"Clawd"}`)
	h.nextLine()
	for s := next(); s.Name != "Clawd"; s = next() {
	}
}

// The chosen species and the nap seconds survive a restart; a species in
// buddy.json that the screen cannot draw (the pack's, with no pack) is
// dropped at load instead of shown.
func TestActorSpeciesAndNapSurviveRestart(t *testing.T) {
	data := t.TempDir()
	h := newHarness(t, data)
	h.line(`{"cmd":"species","idx":3}`)
	if ack := h.nextLine(); !bytes.Contains(ack, []byte(`"ok":true`)) {
		t.Fatalf("species 3: %s", ack)
	}
	now := time.Now()
	h.send(Nap{Start: now.Add(-5 * time.Minute), End: now})
	for deadline := time.Now().Add(10 * time.Second); h.mustState().Stats.Nap != 300; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("nap never counted: %+v", h.mustState().Stats)
		}
	}
	h.restart()
	if st := h.mustState(); st.Character() != 3 || st.Stats.Nap != 300 {
		t.Fatalf("after a restart: species %d nap %d, want 3 and 300", st.Character(), st.Stats.Nap)
	}
	h.send(SetSpecies{Idx: 1})
	for deadline := time.Now().Add(10 * time.Second); h.mustState().Character() != 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("SetSpecies never took")
		}
	}
	if err := os.WriteFile(filepath.Join(data, IdentityFile), []byte(`{"owner":"Ada","name":"","pack":"","species":255}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.restart()
	if st := h.mustState(); st.Character() != SpeciesDefault || st.Owner != "Ada" {
		t.Fatalf("a pack species without a pack: species %d owner %q, want the default and the owner kept", st.Character(), st.Owner)
	}
}
