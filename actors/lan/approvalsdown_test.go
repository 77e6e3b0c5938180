package lan

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestPromptWhileApprovalsDownIsShownOnceItIsBack is issue 32's "a prompt
// that arrived while approvals was down is shown once it is back, and
// decided once". approvals is killed past its restart budget (FATAL); a
// hook's prompt reaches the lan meanwhile, and its set goes to dead
// letters. When approvals comes back (here started by hand, standing for
// the supervisor's slow retry, so the prompt surely arrives first) it
// asks the lan to Resend: the prompt appears once and is decided once.
func TestPromptWhileApprovalsDownIsShownOnceItIsBack(t *testing.T) {
	r := &rig{data: t.TempDir()}
	var err error
	if r.client, err = lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), "laptop"); err != nil {
		t.Fatal(err)
	}
	r.me = Client{Name: "laptop", Fingerprint: hookbridge.Fingerprint(r.client.Certificate[0]), Paired: time.Unix(1000, 0).UTC()}
	if err := lanpair.WriteJSON(filepath.Join(r.data, "lan", "clients.json"), []Client{r.me}); err != nil {
		t.Fatal(err)
	}
	once := supervisor.Policy{Autostart: true, MaxRestarts: 0, Window: time.Minute,
		BackoffMin: time.Millisecond, BackoffMax: time.Millisecond, RetryFatal: time.Hour}
	screen := &supervisortest.Recorder{}
	r.tree = supervisortest.Start(t,
		supervisor.Service{Name: "approvals", Policy: once, New: approvals.New(approvals.WithOwner(SourcePrefix+"*", "lan"))},
		supervisor.Service{Name: "lan", DependsOn: []string{"approvals"}, Policy: testPolicy, New: New(Options{Listen: "127.0.0.1:0", DataDir: r.data})},
		supervisor.Service{Name: "ui", Policy: testPolicy, New: screen.New},
	)
	r.system = r.tree.System()
	supervisortest.Send(r.tree, "approvals", supervisor.Subscribe{PID: supervisor.ServicePID(r.system, "ui")})

	if err := r.tree.SignalProcess("approvals", "KILL"); err != nil {
		t.Fatal(err)
	}
	supervisortest.WaitState(t, r.tree, "approvals", supervisor.Fatal)

	resp, err := r.ask(t, r.httpClient(t), r.state(t).Addr, "p1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("hook refused while approvals is down: %s", resp.Status)
	}
	if st := r.state(t); st.Pending != 1 {
		t.Fatalf("lan holds %d prompts, want the hook's", st.Pending)
	}

	if err := r.tree.StartProcess("approvals", true); err != nil {
		t.Fatal(err)
	}
	appeared := func() int {
		n := 0
		for _, m := range supervisortest.Of[approvals.PromptAppeared](screen) {
			if m.Prompt.ID == "p1" {
				n++
			}
		}
		return n
	}
	waitFor(t, "the prompt shown after approvals came back", func() bool { return appeared() > 0 })

	decide := approvals.Decide{Source: SourcePrefix + "s-p1", ID: "p1", Decision: approvals.AllowOnce, By: "test"}
	if res := supervisortest.Ask[approvals.DecideResult](t, r.tree, "approvals", decide); !res.OK {
		t.Fatalf("first decision refused: %s", res.Err)
	}
	var d hookbridge.Decision
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil || d.Behavior != hookbridge.BehaviorAllow || d.ID != "p1" {
		t.Fatalf("hook got %+v (%v), want allow for p1", d, err)
	}
	decide.Decision = approvals.Deny
	if res := supervisortest.Ask[approvals.DecideResult](t, r.tree, "approvals", decide); res.OK {
		t.Error("a second decision for the same prompt was accepted")
	}
	supervisortest.Sync(t, r.tree, "ui")
	if n := appeared(); n != 1 {
		t.Errorf("prompt appeared %d times, want once", n)
	}
}
