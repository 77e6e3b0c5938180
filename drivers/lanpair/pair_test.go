package lanpair

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckSelfSigned(t *testing.T) {
	id, err := LoadOrCreate(filepath.Join(t.TempDir(), "id.pem"), "laptop")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(id.Certificate[0])
	if err := CheckSelfSigned(c); err != nil {
		t.Fatalf("a certificate of LoadOrCreate: %v", err)
	}
	der := bytes.Clone(id.Certificate[0])
	der[len(der)-1] ^= 0x01 // the signature's last byte
	bad, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSelfSigned(bad); err == nil {
		t.Fatal("a broken signature passed")
	}
}

// piOnPort serves h over TLS with a fresh identity, as a Pi would.
func piOnPort(t *testing.T, h http.Handler) string {
	t.Helper()
	id, err := LoadOrCreate(filepath.Join(t.TempDir(), "pi.pem"), "claude-pi")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(tls.NewListener(ln, ServerConfig(id)))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// TestPairWithAnOldPi: a Pi from before pairing v2 has no /v2/pair; the
// client says to update the Pi rather than show a 404.
func TestPairWithAnOldPi(t *testing.T) {
	addr := piOnPort(t, http.NewServeMux())
	id, _ := LoadOrCreate(filepath.Join(t.TempDir(), "cli.pem"), "laptop")
	shown := false
	_, err := Pair(context.Background(), PairOptions{Identity: id, Addr: addr, Name: "laptop", Code: func(string) { shown = true }})
	if !errors.Is(err, ErrOldPi) || !strings.Contains(err.Error(), "update claude-pi on the Pi") {
		t.Fatalf("pairing with an old Pi: %v", err)
	}
	if shown {
		t.Fatal("a code was shown without the Pi's nonce")
	}
}

// TestPairUnreachable: a refused connection is a DialError, for the
// CLI's hints.
func TestPairUnreachable(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	id, _ := LoadOrCreate(filepath.Join(t.TempDir(), "cli.pem"), "laptop")
	_, err := Pair(context.Background(), PairOptions{Identity: id, Addr: addr, Name: "laptop"})
	if de := (*DialError)(nil); !errors.As(err, &de) {
		t.Fatalf("unreachable Pi: %v, want a DialError", err)
	}
}
