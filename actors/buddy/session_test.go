package buddy

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	"github.com/claude-pi/claude-pi/actors/buddy/stats"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush/memfs"
)

var t0 = time.Date(2026, 4, 9, 10, 40, 0, 0, time.UTC)

func newTestSession(t testing.TB) (*session, *memfs.FS) {
	t.Helper()
	fs := &memfs.FS{Size: 4 << 20}
	r, err := folderpush.New(fs, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := stats.NewTracker(stats.Stats{Version: stats.FormatVersion}, t0)
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(nil, r, tr, identity{}, "Claude_Pi")
	s.linkState(bleactor.LinkState{Connected: true, Subscribed: true, Secured: true, MTU: 185})
	return s, fs
}

// lines returns the sendLine effects as strings.
func lines(effs []effect) []string {
	var out []string
	for _, e := range effs {
		switch l := e.(type) {
		case sendLine:
			out = append(out, string(l.line))
		case sendDecision:
			out = append(out, string(pbuddy.EncodePermission(l.d.ID, wireDecision(l.d.Decision))))
		case saveIdentity:
			// The ack a working save sends (identitySaved;
			// TestSessionAcksOnlyWhatWasSaved has the failing one).
			if l.ack != "" {
				out = append(out, string(pbuddy.AckOK(l.ack, 0)))
			}
		}
	}
	return out
}

// messagesOf returns the messages of the effects of type E, in order.
func messagesOf[E effect, M any](effs []effect, msg func(E) M) []M {
	var out []M
	for _, e := range effs {
		if x, ok := e.(E); ok {
			out = append(out, msg(x))
		}
	}
	return out
}

func reports(effs []effect) []approvals.Delivery {
	return messagesOf(effs, func(r report) approvals.Delivery { return r.msg })
}

func prompts(effs []effect) []approvals.SetPrompts {
	return messagesOf(effs, func(p setPrompts) approvals.SetPrompts { return p.msg })
}

// Every command gets exactly one ack echoing its name (spec §6.1).
func TestSessionAcks(t *testing.T) {
	for _, tt := range []struct {
		line string
		want string
	}{
		{`{"cmd":"owner","name":"Felix"}`, `{"ack":"owner","ok":true,"n":0}`},
		{`{"cmd":"name","name":"Clawd"}`, `{"ack":"name","ok":true,"n":0}`},
		{`{"cmd":"name","name":"\u0007"}`, `{"ack":"name","ok":false,"n":0,"error":"invalid name"}`},
		{`{"cmd":"owner"}`, `{"ack":"owner","ok":false,"n":0,"error":"invalid name: want non-empty string"}`},
		{`{"cmd":"frobnicate"}`, `{"ack":"frobnicate","ok":false,"n":0,"error":"unknown command"}`},
		{`{"cmd":"permission","id":"x","decision":"once"}`, `{"ack":"permission","ok":false,"n":0,"error":"unknown command"}`},
		{`{"cmd":"species","idx":3}`, `{"ack":"species","ok":true,"n":0}`},
		{`{"cmd":"species","idx":4}`, `{"ack":"species","ok":false,"n":0,"error":"unknown species: want 0-3, or 255 for the installed pack"}`},
		{`{"cmd":"species","idx":-1}`, `{"ack":"species","ok":false,"n":0,"error":"unknown species: want 0-3, or 255 for the installed pack"}`},
		{`{"cmd":"species","idx":255}`, `{"ack":"species","ok":false,"n":0,"error":"no character pack installed"}`},
		{`{"cmd":"file","path":"a.gif","size":1}`, `{"ack":"file","ok":false,"n":0,"error":"no transfer"}`},
		{`{"cmd":"chunk","d":"AA=="}`, `{"ack":"chunk","ok":false,"n":0,"error":"no transfer"}`},
		{`{"cmd":"file_end"}`, `{"ack":"file_end","ok":false,"n":0,"error":"no transfer"}`},
		{`{"cmd":"char_end"}`, `{"ack":"char_end","ok":false,"n":0,"error":"no transfer"}`},
		{`{"cmd":"char_begin","name":"bufo","total":1000}`, `{"ack":"char_begin","ok":true,"n":0}`},
		{`{"cmd":"char_begin","total":99999999}`, `{"ack":"char_begin","ok":false,"n":1800000,"error":"need 97656K, have 1757K"}`},
		{`{"cmd":"unpair"}`, `{"ack":"unpair","ok":true,"n":0}`},
	} {
		t.Run(tt.line, func(t *testing.T) {
			s, _ := newTestSession(t)
			got := lines(s.line([]byte(tt.line), t0))
			if len(got) != 1 || got[0] != tt.want+"\n" {
				t.Fatalf("acks = %q, want exactly %q", got, tt.want)
			}
		})
	}
}

func TestSessionNoAckForNonCommands(t *testing.T) {
	s, _ := newTestSession(t)
	for _, l := range []string{
		`{"ack":"status","ok":true,"n":0}`, `{}`, `{"time":[1775731234,-25200]}`,
		`{"evt":"turn","role":"assistant","content":[]}`, `{"evt":"other"}`, `not json`, `[1]`,
		`{"time":[1,2,3]}`,
	} {
		if got := lines(s.line([]byte(l), t0)); len(got) != 0 {
			t.Errorf("%s: sent %q, want nothing", l, got)
		}
	}
}

func TestSessionUnpairAcksFirst(t *testing.T) {
	s, _ := newTestSession(t)
	effs := s.line([]byte(`{"cmd":"unpair"}`), t0)
	if len(effs) != 2 {
		t.Fatalf("effects = %#v", effs)
	}
	if _, ok := effs[0].(sendLine); !ok {
		t.Fatalf("first effect %T, want the ack", effs[0])
	}
	if _, ok := effs[1].(unpairBonds); !ok {
		t.Fatalf("second effect %T, want unpairBonds", effs[1])
	}
}

func TestSessionStatusAckIsStrict(t *testing.T) {
	s, _ := newTestSession(t)
	s.line([]byte(`{"cmd":"owner","name":"Fe\"lix"}`), t0)
	effs := s.line([]byte(`{"cmd":"status"}`), t0)
	if len(effs) != 1 {
		t.Fatalf("effects = %#v", effs)
	}
	if _, ok := effs[0].(sendStatus); !ok {
		t.Fatalf("effect %T, want sendStatus", effs[0])
	}
	line := pbuddy.EncodeStatus(s.statusAck(pbuddy.System{Up: 8412, Heap: 1 << 28, FSFree: 5, FSTotal: 9}))
	if err := pbuddy.ValidateStatusAck(line); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"Claude_Pi"`, `"owner":"Fe\"lix"`, `"sec":true`, `"bat":{"pct":100,"mV":5000,"mA":0,"usb":true}`} {
		if !bytes.Contains(line, []byte(want)) {
			t.Errorf("status ack %s lacks %s", line, want)
		}
	}
}

// A heartbeat sends the complete prompt set; a turn event between two
// heartbeats sends nothing and keeps the prompt (spec §12.1).
func TestSessionPromptsAndTurnEvents(t *testing.T) {
	s, _ := newTestSession(t)
	hb := `{"total":1,"running":1,"waiting":1,"msg":"approve: Bash","entries":["a","b"],"tokens":10,"tokens_today":5,"prompt":{"id":"req_1","tool":"Bash","hint":"ls"}}`
	p := prompts(s.line([]byte(hb), t0))
	if len(p) != 1 || !p[0].LinkUp || len(p[0].Prompts) != 1 || p[0].Prompts[0].ID != "req_1" || p[0].Prompts[0].Tool != "Bash" || !p[0].Prompts[0].Arrived.Equal(t0) {
		t.Fatalf("SetPrompts = %+v", p)
	}
	// A turn event goes on to subscribers and does nothing else.
	effs := s.line([]byte(`{"evt":"turn","role":"assistant","content":[{"type":"text","text":"hi"}]}`), t0.Add(time.Second))
	if len(effs) != 1 {
		t.Fatalf("turn event effects = %#v, want only publishTurn", effs)
	}
	if pt, ok := effs[0].(publishTurn); !ok || pt.ev.Role != "assistant" || !strings.Contains(string(pt.ev.Content), `"hi"`) {
		t.Fatalf("turn event effect = %#v", effs[0])
	}
	if st := s.state(); st.Snapshot.Prompt == nil || st.Snapshot.Prompt.ID != "req_1" {
		t.Fatal("turn event cleared the prompt")
	}
	// Same id later: same prompt, arrival time kept.
	p = prompts(s.line([]byte(hb), t0.Add(5*time.Second)))
	if !p[0].Prompts[0].Arrived.Equal(t0) {
		t.Fatalf("arrival reset to %v", p[0].Prompts[0].Arrived)
	}
	// Heartbeat without prompt: empty set, link up.
	p = prompts(s.line([]byte(`{"total":1,"running":1,"waiting":0,"msg":"x","entries":[],"tokens":10,"tokens_today":5}`), t0.Add(6*time.Second)))
	if len(p) != 1 || len(p[0].Prompts) != 0 || !p[0].LinkUp {
		t.Fatalf("SetPrompts = %+v", p)
	}
}

func TestSessionLiveness(t *testing.T) {
	for _, tt := range []struct {
		name  string
		after func(s *session) []effect
		lost  bool
		hold  time.Duration // how long approvals keeps the prompt as reconnecting
	}{
		{"silent 29s", func(s *session) []effect { return s.tick(t0.Add(29 * time.Second)) }, false, 0},
		{"silent 30s", func(s *session) []effect { return s.tick(t0.Add(30 * time.Second)) }, true, 0},
		{"keepalive at 20s then 45s", func(s *session) []effect {
			s.line([]byte(`{}`), t0.Add(20*time.Second))
			return s.tick(t0.Add(45 * time.Second))
		}, false, 0},
		{"ble disconnect", func(s *session) []effect { return s.linkState(bleactor.LinkState{}) }, true, ReconnectHold},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestSession(t)
			s.line([]byte(`{"total":2,"running":1,"waiting":1,"msg":"approve: Bash","entries":["x"],"tokens":1,"tokens_today":1,"prompt":{"id":"p","tool":"Bash","hint":""}}`), t0)
			p := prompts(tt.after(s))
			st := s.state()
			if !tt.lost {
				if len(p) != 0 || !st.Connected || st.Snapshot.Prompt == nil {
					t.Fatalf("link lost early: %+v %+v", p, st)
				}
				return
			}
			if len(p) != 1 || p[0].LinkUp || p[0].Prompts != nil || p[0].Source != Source || p[0].Hold != tt.hold {
				t.Fatalf("SetPrompts = %+v, want one LinkUp:false with Hold %v", p, tt.hold)
			}
			sn := st.Snapshot
			if st.Connected || sn.Prompt != nil || sn.Total != 0 || sn.Running != 0 || sn.Waiting != 0 || sn.Msg != noClaude {
				t.Fatalf("state after loss = %+v / %+v", st, sn)
			}
			if len(sn.Entries) != 1 || sn.Entries[0] != "x" {
				t.Fatalf("transcript not kept: %q", sn.Entries)
			}
			if s.description() != "no desktop connected" && !strings.HasPrefix(s.description(), "no desktop connected") {
				t.Fatalf("description = %q", s.description())
			}
			// A second tick does not repeat the loss.
			if p := prompts(s.tick(t0.Add(time.Hour))); len(p) != 0 {
				t.Fatalf("loss repeated: %+v", p)
			}
		})
	}
}

// After a BLE disconnect the first heartbeat that carries the same prompt
// id is the same prompt: approvals restores it, so its arrival must not
// move (the screen's age, the stats' velocity). Any other id is new.
func TestSessionReconnectKeepsPromptArrival(t *testing.T) {
	hb := func(id string) []byte {
		return []byte(`{"total":1,"running":0,"waiting":1,"msg":"m","entries":[],"tokens":1,"tokens_today":1,"prompt":{"id":"` + id + `","tool":"Bash","hint":""}}`)
	}
	s, _ := newTestSession(t)
	s.line(hb("req_1"), t0)
	s.linkState(bleactor.LinkState{})
	s.linkState(bleactor.LinkState{Connected: true, Subscribed: true, Secured: true})
	s.line([]byte(`{"time":[1775731234,-25200]}`), t0.Add(2*time.Second))
	if st := s.state(); !st.Connected || st.Snapshot.Prompt != nil {
		t.Fatalf("before the first heartbeat: connected %v, prompt %+v; want connected, no prompt yet", st.Connected, st.Snapshot.Prompt)
	}
	p := prompts(s.line(hb("req_1"), t0.Add(10*time.Second)))
	if len(p) != 1 || !p[0].LinkUp || len(p[0].Prompts) != 1 || !p[0].Prompts[0].Arrived.Equal(t0) {
		t.Fatalf("SetPrompts after the reconnect = %+v, want req_1 arrived at t0", p)
	}
	if st := s.state(); !st.PromptArrived.Equal(t0) {
		t.Fatalf("state's PromptArrived %v, want t0", st.PromptArrived)
	}
	// Dropped and back with another prompt: that one is new.
	s.linkState(bleactor.LinkState{})
	s.linkState(bleactor.LinkState{Connected: true})
	p = prompts(s.line(hb("req_2"), t0.Add(20*time.Second)))
	if len(p) != 1 || !p[0].Prompts[0].Arrived.Equal(t0.Add(20*time.Second)) {
		t.Fatalf("SetPrompts = %+v, want req_2 arrived now", p)
	}
	// A link timeout holds nothing: the same id later is new too.
	s.tick(t0.Add(20*time.Second + LinkTimeout))
	p = prompts(s.line(hb("req_2"), t0.Add(time.Hour)))
	if len(p) != 1 || !p[0].Prompts[0].Arrived.Equal(t0.Add(time.Hour)) {
		t.Fatalf("SetPrompts after a link timeout = %+v, want req_2 arrived now", p)
	}
}

func TestSessionDecided(t *testing.T) {
	id := strings.Repeat("é🙂\"\\a", 40) // 200 characters of mixed Unicode
	s, _ := newTestSession(t)
	s.line([]byte(`{"total":1,"running":0,"waiting":1,"msg":"m","entries":[],"tokens":1,"tokens_today":1,"prompt":{"id":`+jsonQuote(id)+`,"tool":"Bash","hint":""}}`), t0)
	d := approvals.Decided{Source: Source, ID: id, Decision: approvals.AllowOnce, By: "Claude_Pi", Attempt: 1}
	got := lines(s.decided(d, t0.Add(3*time.Second)))
	if len(got) != 1 || got[0] != string(pbuddy.EncodePermission(id, pbuddy.Once)) {
		t.Fatalf("lines = %q", got)
	}
	// Counted once the link says the line went out, not before.
	if r := s.stats.Report(); r.Appr != 0 {
		t.Fatalf("stats before the receipt = %+v, want appr 0", r)
	}
	s.sent(bleactor.Sent{Receipt: d, OK: true}, t0.Add(3*time.Second))
	if r := s.stats.Report(); r.Appr != 1 || r.Vel != 3 {
		t.Fatalf("stats = %+v, want appr 1 vel 3", r)
	}
	// Another source, or no link: nothing is sent.
	if got := lines(s.decided(approvals.Decided{Source: "cli:x", ID: id, Decision: approvals.Deny}, t0)); len(got) != 0 {
		t.Fatalf("other source sent %q", got)
	}
	s.linkState(bleactor.LinkState{})
	effs := s.decided(approvals.Decided{Source: Source, ID: id, Decision: approvals.Deny, Attempt: 2}, t0)
	if got := lines(effs); len(got) != 0 {
		t.Fatalf("sent %q with the link down", got)
	}
	// ... and approvals hears that it never left.
	if r := reports(effs); len(r) != 1 || r[0].ID != id || r[0].Attempt != 2 || r[0].Sent || r[0].Err == "" {
		t.Fatalf("reports with the link down = %+v, want one dropped report of attempt 2", r)
	}
}

// The link's receipt for a permission line goes on to approvals, whether
// the line went out or not.
func TestSessionSentReports(t *testing.T) {
	s, _ := newTestSession(t)
	d := approvals.Decided{Source: Source, ID: "req_1", Decision: approvals.AllowOnce, By: "Claude_Pi", Attempt: 3}
	for _, m := range []bleactor.Sent{{Receipt: d, Err: "ble: no central subscribed to TX notifications"}, {Receipt: d, OK: true}} {
		want := approvals.Delivery{Source: Source, ID: "req_1", Attempt: 3, Sent: m.OK, Err: m.Err}
		if r := reports(s.sent(m, t0)); len(r) != 1 || r[0] != want {
			t.Fatalf("reports for %+v = %+v, want %+v", m, r, want)
		}
		// A dropped line is no approval.
		if want, got := map[bool]uint32{false: 0, true: 1}[m.OK], s.stats.Report().Appr; got != want {
			t.Fatalf("appr after %+v = %d, want %d", m, got, want)
		}
	}
	if effs := s.sent(bleactor.Sent{Receipt: "not a decision"}, t0); len(effs) != 0 {
		t.Fatalf("a foreign receipt produced %+v", effs)
	}
}

// jsonQuote writes s as the desktop would: the permission encoder uses the
// desktop's escaping, so cut the id out of a permission line.
func jsonQuote(s string) string {
	l := string(pbuddy.EncodePermission(s, pbuddy.Deny))
	l = strings.TrimPrefix(l, `{"cmd":"permission","id":`)
	return strings.TrimSuffix(l, `,"decision":"deny"}`+"\n")
}

// Level-ups at 50k boundaries, counted from deltas; the first value and a
// reconnect only set the baseline.
func TestSessionTokensByDelta(t *testing.T) {
	s, _ := newTestSession(t)
	hb := func(tok uint64, at time.Duration) {
		s.line(fmt.Appendf(nil, `{"total":0,"running":0,"waiting":0,"msg":"","entries":[],"tokens":%d,"tokens_today":0}`, tok), t0.Add(at))
	}
	hb(1_000_000, 0) // baseline only
	hb(1_049_999, time.Second)
	if l := s.stats.Level(); l != 0 {
		t.Fatalf("level %d after 49,999 tokens", l)
	}
	hb(1_050_000, 2*time.Second)
	if l := s.stats.Level(); l != 1 {
		t.Fatalf("level %d after 50,000 tokens", l)
	}
	hb(10, 3*time.Second) // desktop restarted: re-baseline
	hb(20, 4*time.Second)
	s.linkState(bleactor.LinkState{})                                  // link lost
	s.linkState(bleactor.LinkState{Connected: true, Subscribed: true}) // back
	hb(5_000_000, 5*time.Second)                                       // first after reconnect: baseline
	if tok := s.stats.Stats().Tokens; tok != 50_010 {
		t.Fatalf("tokens = %d, want 50,010", tok)
	}
}

func TestSessionPushProgressAndAbortOnDisconnect(t *testing.T) {
	s, fs := newTestSession(t)
	s.line([]byte(`{"cmd":"char_begin","name":"bufo","total":600}`), t0)
	s.line([]byte(`{"cmd":"file","path":"idle_0.gif","size":600}`), t0)
	s.line([]byte(`{"cmd":"chunk","d":"`+base64.StdEncoding.EncodeToString(make([]byte, 256))+`"}`), t0)
	st := s.state()
	if st.Push == nil || st.Push.Name != "bufo" || st.Push.FileN != 256 || st.Push.File != "idle_0.gif" {
		t.Fatalf("progress = %+v", st.Push)
	}
	if d := s.description(); !strings.Contains(d, "receiving pack bufo 42%") {
		t.Fatalf("description = %q", d)
	}
	s.linkState(bleactor.LinkState{})
	if s.push.Active() || fs.HasStaging() || s.state().Push != nil {
		t.Fatal("push survived a disconnect")
	}
}

func TestSessionPushIdleTimeout(t *testing.T) {
	s, fs := newTestSession(t)
	s.line([]byte(`{"cmd":"char_begin","name":"bufo","total":600}`), t0)
	s.line([]byte(`{}`), t0.Add(20*time.Second)) // not a push command
	s.tick(t0.Add(29 * time.Second))
	if !s.push.Active() {
		t.Fatal("push abandoned before 30 s idle")
	}
	s.tick(t0.Add(30 * time.Second))
	if s.push.Active() || fs.HasStaging() {
		t.Fatal("push not abandoned after 30 s idle")
	}
}

// A push command with bad arguments is acked once and ends the push.
func TestSessionBadPushCommandAborts(t *testing.T) {
	s, fs := newTestSession(t)
	s.line([]byte(`{"cmd":"char_begin","total":600}`), t0)
	got := lines(s.line([]byte(`{"cmd":"file","path":"a.gif"}`), t0))
	if len(got) != 1 || !strings.HasPrefix(got[0], `{"ack":"file","ok":false`) {
		t.Fatalf("acks = %q", got)
	}
	if s.push.Active() || fs.HasStaging() {
		t.Fatal("push survived a bad file command")
	}
}

func TestSessionDescription(t *testing.T) {
	s, _ := newTestSession(t)
	s.line([]byte(`{"cmd":"owner","name":"Felix"}`), t0)
	s.line([]byte(`{"total":2,"running":1,"waiting":1,"msg":"approve: Bash","entries":[],"tokens":1,"tokens_today":1,"prompt":{"id":"p","tool":"Bash","hint":""}}`), t0)
	if d, want := s.description(), "desktop connected · owner Felix · 2 sessions, 1 running · prompt Bash"; d != want {
		t.Fatalf("description = %q, want %q", d, want)
	}
}

func TestSessionTimeSyncDoesNotTouchState(t *testing.T) {
	s, _ := newTestSession(t)
	s.line([]byte(`{"time":[1775731234,-25200]}`), t0)
	st := s.state()
	if st.Desktop == nil || st.Desktop.Epoch != 1775731234 || st.Desktop.Offset != -25200 {
		t.Fatalf("desktop clock = %+v", st.Desktop)
	}
	if got := st.Desktop.Now(t0.Add(10 * time.Second)); got.Unix() != 1775731244 {
		t.Fatalf("desktop now = %v", got)
	}
	if st.Snapshot != nil {
		t.Fatal("time line created a snapshot")
	}
}

// The species command and the screen's SetSpecies choose the character:
// the choice is published and saved once per change, the pack only when
// one is installed, and a push of a new pack goes back to the default,
// which shows it.
func TestSessionSpecies(t *testing.T) {
	s, _ := newTestSession(t)
	if got := s.state().Character(); got != SpeciesDefault {
		t.Fatalf("species before any choice = %d, want SpeciesDefault", got)
	}
	saved := func(effs []effect) []identity {
		return messagesOf(effs, func(e saveIdentity) identity { return e.id })
	}
	if ids := saved(s.line([]byte(`{"cmd":"species","idx":2}`), t0)); len(ids) != 1 || *ids[0].Species != 2 {
		t.Fatalf("species 2 saved %+v, want one identity with species 2", ids)
	}
	if got := s.state().Character(); got != 2 {
		t.Fatalf("published species = %d, want 2", got)
	}
	if ids := saved(s.line([]byte(`{"cmd":"species","idx":2}`), t0)); len(ids) != 0 {
		t.Fatalf("the same species again saved %+v", ids)
	}
	if effs := s.chooseSpecies(SetSpecies{Idx: 9}); len(effs) != 0 || s.state().Character() != 2 {
		t.Fatalf("SetSpecies 9: %#v, species %d; want ignored", effs, s.state().Character())
	}
	if ids := saved(s.chooseSpecies(SetSpecies{Idx: 1})); len(ids) != 1 || s.state().Character() != 1 {
		t.Fatalf("SetSpecies 1: saved %+v, species %d", ids, s.state().Character())
	}
	if effs := s.chooseSpecies(SetSpecies{Idx: SpeciesPack}); len(effs) != 0 {
		t.Fatalf("the pack chosen with none installed: %#v", effs)
	}
	for _, l := range pushLines("bufo", gifPack("b")) {
		s.line([]byte(l), t0)
	}
	if st := s.state(); st.Pack != "bufo" || st.Character() != SpeciesDefault {
		t.Fatalf("after a push: pack %q species %d, want bufo and the default", st.Pack, st.Character())
	}
	if got := lines(s.line([]byte(`{"cmd":"species","idx":255}`), t0)); len(got) != 1 || got[0] != `{"ack":"species","ok":true,"n":0}`+"\n" {
		t.Fatalf("species 255 with a pack: %q", got)
	}
}

// A nap from the screen adds its seconds to the status ack's nap, refills
// the energy that the state publishes, and is saved at once.
func TestSessionNap(t *testing.T) {
	s, _ := newTestSession(t)
	if e := s.state().Stats.Energy; e.Level != 3 || e.At(t0.Add(4*time.Hour)) != 1 {
		t.Fatalf("energy at boot = %+v, want 3 decaying to 1 after 4 h", e)
	}
	start, end := t0.Add(time.Hour), t0.Add(time.Hour+10*time.Minute)
	effs := s.nap(Nap{Start: start, End: end}, end)
	if len(messagesOf(effs, func(e saveStats) stats.Stats { return e.s })) != 1 {
		t.Fatalf("a nap was not saved at once: %#v", effs)
	}
	st := s.state()
	if st.Stats.Nap != 600 {
		t.Fatalf("nap seconds = %d, want 600", st.Stats.Nap)
	}
	if e := st.Stats.Energy; e.At(end) != 5 || e.At(end.Add(2*time.Hour)) != 4 {
		t.Fatalf("energy after the nap = %+v", e)
	}
	if effs := s.nap(Nap{Start: end, End: start}, end); len(effs) != 0 || s.state().Stats.Nap != 600 {
		t.Fatalf("a nap that ends before it starts counted: %#v", effs)
	}
}

// TestSessionResendsItsPromptToARestartedApprovals: approvals restarted
// and asks again (approvals.Resend); the desktop's prompt goes back with
// its first arrival time, and a dropped link resends nothing.
func TestSessionResendsItsPromptToARestartedApprovals(t *testing.T) {
	s, _ := newTestSession(t)
	if p := prompts(s.resend()); len(p) != 0 {
		t.Fatalf("before any heartbeat: resent %+v, want nothing", p)
	}
	s.line([]byte(`{"total":1,"running":0,"waiting":1,"msg":"m","entries":[],"tokens":1,"tokens_today":1,"prompt":{"id":"req_1","tool":"Bash","hint":"ls"}}`), t0)
	p := prompts(s.resend())
	if len(p) != 1 || !p[0].LinkUp || len(p[0].Prompts) != 1 || p[0].Prompts[0].ID != "req_1" ||
		p[0].Prompts[0].Hint != "ls" || !p[0].Prompts[0].Arrived.Equal(t0) {
		t.Fatalf("resent %+v, want req_1 arrived at t0", p)
	}
	s.linkState(bleactor.LinkState{})
	if p := prompts(s.resend()); len(p) != 0 {
		t.Fatalf("link down: resent %+v, want nothing", p)
	}
}

// A name, owner or species command is acked only by identitySaved: ok
// for a save that worked; a failed save is acked as such and takes the
// change back.
func TestSessionAcksOnlyWhatWasSaved(t *testing.T) {
	s, _ := newTestSession(t)
	effs := s.line([]byte(`{"cmd":"name","name":"Clawd"}`), t0)
	saves := messagesOf(effs, func(e saveIdentity) saveIdentity { return e })
	if len(effs) != 1 || len(saves) != 1 || saves[0].ack != pbuddy.CmdName || saves[0].id.Name != "Clawd" {
		t.Fatalf("name: effects %#v, want only the save carrying the ack", effs)
	}
	got := lines(s.identitySaved(saves[0], fmt.Errorf("writing: %w", syscall.ENOSPC)))
	if len(got) != 1 || got[0] != `{"ack":"name","ok":false,"n":0,"error":"not saved: storage full"}`+"\n" {
		t.Fatalf("failed save acked %q", got)
	}
	if n := s.state().Name; n == "Clawd" {
		t.Fatalf("name after a failed save = %q, want the old one back", n)
	}
	effs = s.line([]byte(`{"cmd":"owner","name":"Ada"}`), t0)
	saves = messagesOf(effs, func(e saveIdentity) saveIdentity { return e })
	if len(saves) != 1 {
		t.Fatalf("owner: effects %#v", effs)
	}
	if got := lines(s.identitySaved(saves[0], nil)); len(got) != 1 || got[0] != `{"ack":"owner","ok":true,"n":0}`+"\n" {
		t.Fatalf("saved owner acked %q", got)
	}
	if o := s.state().Owner; o != "Ada" {
		t.Fatalf("owner = %q after a save that worked", o)
	}
	if got := s.identitySaved(saveIdentity{id: s.id}, errors.New("disk gone")); got != nil {
		t.Fatalf("a save without a command answered %#v", got)
	}
}
