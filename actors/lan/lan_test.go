package lan

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// quick restarts so that several KILLs fit in a test.
var testPolicy = supervisortest.FastPolicy

// rig is the lan actor in a real supervisor tree with the real approvals,
// and one computer whose certificate is already in clients.json.
type rig struct {
	tree   *supervisor.Tree
	system *actor.ActorSystem
	data   string
	client tls.Certificate
	me     Client
}

func newRig(t *testing.T) *rig { t.Helper(); return newRigWith(t, nil) }

// newRigWith is newRig with the lan's Options changed by set (if not nil),
// and extra services in the tree.
// testDock is the name the rigs give a fake dock service (Options.Tools).
const testDock = "dock"

func newRigWith(t *testing.T, set func(*Options), extra ...supervisor.Service) *rig {
	t.Helper()
	o := Options{Listen: "127.0.0.1:0", DataDir: "", Tools: testDock}
	r := &rig{data: t.TempDir()}
	var err error
	if r.client, err = lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), "laptop"); err != nil {
		t.Fatal(err)
	}
	r.me = Client{Name: "laptop", Fingerprint: hookbridge.Fingerprint(r.client.Certificate[0]), Paired: time.Unix(1000, 0).UTC()}
	other := Client{Name: "desk", Fingerprint: hookbridge.Fingerprint([]byte("desk")), Paired: time.Unix(1000, 0).UTC()}
	if err := lanpair.WriteJSON(filepath.Join(r.data, "lan", "clients.json"), []Client{r.me, other}); err != nil {
		t.Fatal(err)
	}
	o.DataDir = r.data
	if set != nil {
		set(&o)
	}
	r.tree = supervisortest.Start(t, append([]supervisor.Service{
		{Name: "approvals", Policy: testPolicy, New: approvals.New(approvals.WithOwner(SourcePrefix+"*", "lan"))},
		{Name: "lan", DependsOn: []string{"approvals"}, Policy: testPolicy, New: New(o)},
	}, extra...)...)
	r.system = r.tree.System()
	return r
}

func (r *rig) state(t *testing.T) State {
	t.Helper()
	v, err := r.system.Root.RequestFuture(supervisor.ServicePID(r.system, "lan"), GetState{}, 2*time.Second).Result()
	if err != nil {
		t.Fatal(err)
	}
	return v.(State)
}

func (r *rig) pending(t *testing.T) int {
	t.Helper()
	v, err := r.system.Root.RequestFuture(supervisor.ServicePID(r.system, "approvals"), approvals.GetPending{}, 2*time.Second).Result()
	if err != nil {
		t.Fatal(err)
	}
	return len(v.(approvals.Pending).Prompts)
}

// httpClient is the hook's transport: pinned to the Pi's certificate,
// one connection per request.
func (r *rig) httpClient(t *testing.T) *http.Client {
	t.Helper()
	id, err := lanpair.LoadOrCreate(filepath.Join(r.data, "lan", "identity.pem"), "unused")
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig:   lanpair.ClientConfig(r.client, hookbridge.Fingerprint(id.Certificate[0])),
		DisableKeepAlives: true,
	}}
}

// ask posts a permission request and returns the response once its
// headers arrive (the Pi flushes them when the prompt is shown).
func (r *rig) ask(t *testing.T, hc *http.Client, addr, id string) (*http.Response, error) {
	t.Helper()
	body, _ := json.Marshal(hookbridge.PermissionRequest{ID: id, Session: "s-" + id, Project: "engine", Tool: "Bash", Hint: "make"})
	return hc.Post("https://"+addr+hookbridge.PathPermission, "application/json", bytes.NewReader(body))
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	supervisortest.WaitFor(t, what, cond)
}

// TestReloadRevokesAtOnce: clients.json loses a client while its prompt
// is pending; HUP makes the running actor drop the prompt, answer the
// long-poll with no decision and refuse the client's next request.
func TestReloadRevokesAtOnce(t *testing.T) {
	r := newRig(t)
	addr := r.state(t).Addr
	hc := r.httpClient(t)
	resp, err := r.ask(t, hc, addr, "r1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("paired client refused: %s", resp.Status)
	}
	waitFor(t, "the prompt in approvals", func() bool { return r.pending(t) == 1 })

	desk := r.state(t).Clients[1]
	if err := lanpair.WriteJSON(filepath.Join(r.data, "lan", "clients.json"), []Client{desk}); err != nil {
		t.Fatal(err)
	}
	if err := r.tree.SignalProcess("lan", "HUP"); err != nil {
		t.Fatal(err)
	}
	var d hookbridge.Decision
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
		t.Fatalf("the long-poll did not end with a decision: %v", err)
	}
	if d.Behavior != hookbridge.BehaviorNone || d.Reason != "revoked" {
		t.Fatalf("long-poll answered %+v, want no decision, revoked", d)
	}
	waitFor(t, "the prompt withdrawn", func() bool { return r.pending(t) == 0 })
	if cs := r.state(t).Clients; len(cs) != 1 || cs[0].Name != "desk" {
		t.Fatalf("clients after reload %+v", cs)
	}

	resp2, err := r.ask(t, hc, addr, "r2")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusForbidden {
		t.Fatalf("revoked client: %s %s", resp2.Status, msg)
	}
	if n := r.pending(t); n != 0 || r.state(t).Pending != 0 {
		t.Fatalf("a revoked client's request was shown (%d)", n)
	}
}

// TestReloadBadFileKeepsClients: a half-edited clients.json must not lock
// every computer out.
func TestReloadBadFileKeepsClients(t *testing.T) {
	r := newRig(t)
	if err := os.WriteFile(filepath.Join(r.data, "lan", "clients.json"), []byte(`[{"name":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := r.tree.SignalProcess("lan", "HUP"); err != nil {
		t.Fatal(err)
	}
	if n := len(r.state(t).Clients); n != 2 {
		t.Fatalf("%d clients after a bad reload, want the 2 known", n)
	}
	resp, err := r.ask(t, r.httpClient(t), r.state(t).Addr, "r1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("paired client refused after a bad reload: %s", resp.Status)
	}
}

// TestRestartLeavesNoGoroutines kills the lan actor several times, each
// time with a hook's long-poll open, and checks that the listeners,
// server and connection goroutines of the old incarnations are all gone.
func TestRestartLeavesNoGoroutines(t *testing.T) {
	r := newRig(t)
	before := runtime.NumGoroutine()
	for i := range 4 {
		p0, _ := r.tree.Process("lan")
		addr := r.state(t).Addr
		hc := r.httpClient(t)
		resp, err := r.ask(t, hc, addr, "r")
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the prompt in approvals", func() bool { return r.pending(t) == 1 })
		if err := r.tree.SignalProcess("lan", "KILL"); err != nil {
			t.Fatal(err)
		}
		// The dying incarnation answers its hooks "no decision".
		var d hookbridge.Decision
		if err := json.NewDecoder(resp.Body).Decode(&d); err != nil || d.Behavior != hookbridge.BehaviorNone {
			t.Fatalf("cycle %d: long-poll ended with %+v, %v", i, d, err)
		}
		resp.Body.Close()
		hc.CloseIdleConnections()
		waitFor(t, "lan back", func() bool {
			p, _ := r.tree.Process("lan")
			return p.State == supervisor.Running && p.Start.After(p0.Start)
		})
		waitFor(t, "its prompt off approvals", func() bool { return r.pending(t) == 0 })
		if a := r.state(t).Addr; a == "" {
			t.Fatalf("cycle %d: listening on %q after a restart from %q", i, a, addr)
		}
	}
	waitFor(t, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= before })
}

// TestStatePublished: a subscriber hears the State at once, after each
// change without asking, and an empty one when the lan stops.
func TestStatePublished(t *testing.T) {
	r := newRig(t)
	got := make(chan State, 64)
	sub := r.system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if s, ok := c.Message().(State); ok {
			got <- s
		}
	}))
	next := func(what string, ok func(State) bool) State {
		t.Helper()
		for deadline := time.After(5 * time.Second); ; {
			select {
			case s := <-got:
				if ok(s) {
					return s
				}
			case <-deadline:
				t.Fatalf("no published State with %s", what)
			}
		}
	}
	r.system.Root.Send(supervisor.ServicePID(r.system, "lan"), supervisor.Subscribe{PID: sub})
	first := next("the current clients", func(s State) bool { return len(s.Clients) == 2 })
	resp, err := r.ask(t, r.httpClient(t), first.Addr, "r1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	next("the prompt pending", func(s State) bool { return s.Pending == 1 && len(s.Sessions) == 1 })
	if err := r.tree.StopProcess("lan", true); err != nil {
		t.Fatal(err)
	}
	next("nothing left once stopped", func(s State) bool {
		return s.Addr == "" && s.Pending == 0 && s.Pairing == nil && len(s.Sessions) == 0
	})
}
