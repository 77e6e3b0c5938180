package lan

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
	"github.com/claude-pi/claude-pi/supervisor"
)

// A damaged clients.json, whatever the damage, is set aside and the LAN
// service runs with no computer paired, ready to pair again; it used to
// go BACKOFF then FATAL (issue 32 item 2).
func TestDamagedClientsFileStartsUnpaired(t *testing.T) {
	for _, tt := range []struct {
		name   string
		reason statefile.Reason
		put    func(path string) error
	}{
		{"truncated", statefile.Truncated, func(p string) error { return os.WriteFile(p, []byte(`[{"name":"laptop","finger`), 0o600) }},
		{"empty", statefile.Empty, func(p string) error { return os.WriteFile(p, nil, 0o600) }},
		{"invalid JSON", statefile.InvalidJSON, func(p string) error { return os.WriteFile(p, []byte(`[{name:laptop}]`), 0o600) }},
		{"wrong type", statefile.WrongType, func(p string) error { return os.WriteFile(p, []byte(`{"laptop":"ab12"}`), 0o600) }},
		{"no fingerprint", statefile.Invalid, func(p string) error { return os.WriteFile(p, []byte(`[{"name":"laptop"}]`), 0o600) }},
		{"directory", statefile.Directory, func(p string) error { return os.MkdirAll(filepath.Join(p, "x"), 0o700) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRigWith(t, func(o *Options) {
				path := ClientsPath(o.DataDir)
				if err := os.RemoveAll(path); err != nil {
					t.Fatal(err)
				}
				if err := tt.put(path); err != nil {
					t.Fatal(err)
				}
			})
			st := r.state(t)
			if len(st.Clients) != 0 || st.Addr == "" {
				t.Fatalf("state %+v, want listening with no computer paired", st)
			}
			if p, err := r.tree.Process("lan"); err != nil || p.State != supervisor.Running {
				t.Fatalf("lan is %v (%v), want RUNNING", p.State, err)
			}
			copies, err := statefile.List(r.data)
			if err != nil || len(copies) != 1 || copies[0].File != "lan/clients.json" || copies[0].Reason != tt.reason {
				t.Fatalf("set aside: %+v, %v; want lan/clients.json (%s)", copies, err, tt.reason)
			}
			// The computer that was paired is refused now: it pairs again.
			resp, err := r.ask(t, r.httpClient(t), st.Addr, "r1")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Fatalf("a computer from the damaged file was let in: %s", resp.Status)
			}
		})
	}
}

// A damaged identity.pem is set aside and a new certificate made; the
// service runs.
func TestDamagedIdentityMakesANewOne(t *testing.T) {
	r := newRigWith(t, func(o *Options) {
		path := filepath.Join(o.DataDir, "lan", "identity.pem")
		if err := os.WriteFile(path, []byte("-----BEGIN PRIVATE KEY-----\ncut"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	if st := r.state(t); st.Addr == "" {
		t.Fatalf("state %+v, want listening", st)
	}
	if _, err := lanpair.LoadOrCreate(filepath.Join(r.data, "lan", "identity.pem"), "unused"); err != nil {
		t.Fatalf("the new identity does not load: %v", err)
	}
	copies, _ := statefile.List(r.data)
	if len(copies) != 1 || copies[0].File != "lan/identity.pem" || copies[0].Reason != statefile.Invalid {
		t.Fatalf("set aside: %+v, want lan/identity.pem (invalid content)", copies)
	}
}

// A bad edit found by a reload is set aside and the known computers
// written back, so the file again says who is paired.
func TestReloadBadFileSetAsideAndRewritten(t *testing.T) {
	r := newRig(t)
	path := ClientsPath(r.data)
	if err := os.WriteFile(path, []byte(`[{"name":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := r.tree.SignalProcess("lan", "HUP"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "clients.json written back", func() bool {
		b, err := os.ReadFile(path)
		return err == nil && strings.Contains(string(b), `"laptop"`) && strings.Contains(string(b), `"desk"`)
	})
	if n := len(r.state(t).Clients); n != 2 {
		t.Fatalf("%d clients after a bad reload, want the 2 known", n)
	}
	if copies, _ := statefile.List(r.data); len(copies) != 1 || copies[0].Reason != statefile.Truncated {
		t.Fatalf("set aside: %+v, want the truncated edit", copies)
	}
}
