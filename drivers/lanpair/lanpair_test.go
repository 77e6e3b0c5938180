package lanpair

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

func TestLoadOrCreateKeepsIdentity(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "id.pem")
	a, err := LoadOrCreate(p, "claude-pi")
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadOrCreate(p, "other")
	if err != nil {
		t.Fatal(err)
	}
	if hookbridge.Fingerprint(a.Certificate[0]) != hookbridge.Fingerprint(b.Certificate[0]) {
		t.Fatal("second load made a new identity")
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("identity file mode %v, %v", st.Mode(), err)
	}
	os.WriteFile(p, []byte("garbage"), 0o600)
	if _, err := LoadOrCreate(p, "x"); err == nil {
		t.Fatal("garbage identity accepted")
	}
}

// TestPinnedHandshake runs real TLS handshakes: the pinned server passes,
// another server with the same name fails.
func TestPinnedHandshake(t *testing.T) {
	dir := t.TempDir()
	srv, _ := LoadOrCreate(filepath.Join(dir, "srv.pem"), "claude-pi")
	other, _ := LoadOrCreate(filepath.Join(dir, "other.pem"), "claude-pi")
	cli, _ := LoadOrCreate(filepath.Join(dir, "cli.pem"), "laptop")
	pin := hookbridge.Fingerprint(srv.Certificate[0])
	for _, tt := range []struct {
		name   string
		server tls.Certificate
		pin    string
		ok     bool
	}{
		{"pinned", srv, pin, true},
		{"impostor", other, pin, false},
		{"pairing accepts any", other, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Loopback TCP, not net.Pipe: a TLS 1.3 server writes its
			// session tickets during Handshake, which an unbuffered pipe
			// would block on.
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var gotClient []byte
			done := make(chan error, 1)
			go func() {
				a, err := ln.Accept()
				if err != nil {
					done <- err
					return
				}
				defer a.Close()
				a.SetDeadline(time.Now().Add(10 * time.Second))
				s := tls.Server(a, ServerConfig(tt.server))
				err = s.Handshake()
				if err == nil {
					gotClient = s.ConnectionState().PeerCertificates[0].Raw
				}
				done <- err
			}()
			b, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			b.SetDeadline(time.Now().Add(10 * time.Second))
			c := tls.Client(b, ClientConfig(cli, tt.pin))
			err = c.Handshake()
			if tt.ok != (err == nil) {
				t.Fatalf("handshake err = %v, want ok=%v", err, tt.ok)
			}
			if !tt.ok {
				if !errors.Is(err, ErrPin) {
					t.Fatalf("err = %v, want ErrPin", err)
				}
				return
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if string(gotClient) != string(cli.Certificate[0]) {
				t.Fatal("server did not see the client certificate")
			}
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d", "x.json")
	var v struct{ A int }
	if err := ReadJSON(p, &v); err != nil || v.A != 0 {
		t.Fatalf("missing file: %v", err)
	}
	v.A = 7
	if err := WriteJSON(p, v); err != nil {
		t.Fatal(err)
	}
	v.A = 0
	if err := ReadJSON(p, &v); err != nil || v.A != 7 {
		t.Fatalf("read back %d, %v", v.A, err)
	}
	os.WriteFile(p, []byte("{"), 0o600)
	if err := ReadJSON(p, &v); err == nil {
		t.Fatal("broken JSON accepted")
	}
}

// TestReplaceJSONKeepsMode: root editing the appliance's file must leave
// it readable by the appliance's user (the owner is storage's test).
func TestReplaceJSONKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "clients.json")
	if err := ReplaceJSON(p, []string{"a"}); err != nil { // missing: created
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceJSON(p, []string{"b"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := ReadJSON(p, &got); err != nil || len(got) != 1 || got[0] != "b" {
		t.Fatalf("read back %v, %v", got, err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
}
