package client

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStateRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "claude-pi")
	s, err := Load(dir)
	if err != nil || len(s.Pis) != 0 {
		t.Fatalf("a missing pis.json: %v, %+v", err, s)
	}
	if _, err := s.Pick(""); !errors.Is(err, ErrNoPi) {
		t.Fatalf("Pick with nothing paired: %v", err)
	}
	at := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	for _, p := range []Pi{{"desk", "10.0.0.2:7787", "aa", at}, {"lab", "10.0.0.3:7787", "bb", at}, {"desk", "10.0.0.9:7787", "cc", at}} {
		if err := s.Remember(p); err != nil {
			t.Fatal(err)
		}
	}
	s, err = Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pis) != 2 || s.Pis[1].Addr != "10.0.0.9:7787" {
		t.Fatalf("re-pairing desk should replace it and make it the last: %+v", s.Pis)
	}
	if p, _ := s.Pick(""); p.Name != "desk" {
		t.Errorf("the default Pi is %q, want the last paired", p.Name)
	}
	if p, _ := s.Pick("lab"); p.Addr != "10.0.0.3:7787" {
		t.Errorf("Pick(lab) = %+v", p)
	}
	if _, err := s.Pick("attic"); err == nil || !strings.Contains(err.Error(), "attic") {
		t.Errorf("Pick(attic): %v", err)
	}
	if err := s.Forget("lab"); err != nil {
		t.Fatal(err)
	}
	if err := s.Forget("lab"); err == nil {
		t.Error("forgetting a Pi twice is no error")
	}
	if fi, err := os.Stat(filepath.Join(dir, "pis.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("pis.json: %v %v, want mode 0600", fi, err)
	}
}

// TestDamagedStateIsSetAside: a damaged pis.json is moved aside, not
// fatal; Pick says where it went, and pairing again writes a good one.
func TestDamagedStateIsSetAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pis.json")
	os.WriteFile(path, []byte("{\"pis\": [tru"), 0o600)
	s, err := Load(dir)
	if err != nil {
		t.Fatalf("a damaged pis.json is fatal: %v", err)
	}
	if s.SetAside == "" || len(s.Pis) != 0 {
		t.Fatalf("state from a damaged pis.json: %+v", s)
	}
	if b, err := os.ReadFile(s.SetAside); err != nil || string(b) != "{\"pis\": [tru" {
		t.Fatalf("the damaged bytes were not kept at %s: %q %v", s.SetAside, b, err)
	}
	if _, err := s.Pick(""); !errors.Is(err, ErrNoPi) || !strings.Contains(err.Error(), s.SetAside) {
		t.Errorf("Pick after setting aside: %v", err)
	}
	if err := s.Remember(Pi{Name: "desk", Addr: "10.0.0.2:7787", Pin: "aa"}); err != nil {
		t.Fatal(err)
	}
	if s, err := Load(dir); err != nil || s.SetAside != "" || len(s.Pis) != 1 {
		t.Fatalf("after pairing again: %+v %v", s, err)
	}
}

func TestIdentityIsKept(t *testing.T) {
	s := &State{Dir: t.TempDir()}
	a, err := s.Identity()
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Identity()
	if err != nil || string(a.Certificate[0]) != string(b.Certificate[0]) {
		t.Fatalf("the second Identity is another certificate (%v)", err)
	}
}

func TestWithPort(t *testing.T) {
	for in, want := range map[string]string{"claude-pi.local": "claude-pi.local:7787", "10.0.0.2:9000": "10.0.0.2:9000", "fe80::1": "[fe80::1]:7787"} {
		if got := WithPort(in); got != want {
			t.Errorf("WithPort(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReachHints(t *testing.T) {
	dns := &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "claude-pi.local", IsNotFound: true}}
	if h := ReachHint(dns, "claude-pi.local:7787"); !strings.Contains(h, "info screen") || !strings.Contains(h, "claude-pi pair IP") {
		t.Errorf("lookup failure hint: %q", h)
	}
	if h := ReachHint(errors.New("tls: bad certificate"), "10.0.0.2:7787"); h != "" {
		t.Errorf("a TLS failure got a reachability hint: %q", h)
	}
}
