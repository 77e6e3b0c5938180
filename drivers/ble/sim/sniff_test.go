package sim

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// What a browser can be made to send to a local port, each of which the
// NUS socket closes before a byte reaches the appliance.
var crossProtocol = []struct{ name, first string }{
	{"a form POST whose body is a prompt", "POST / HTTP/1.1\r\nHost: 127.0.0.1:8331\r\nContent-Type: text/plain\r\nContent-Length: 60\r\n\r\n\n" +
		`{"total":1,"running":0,"waiting":1,"prompt":{"id":"x","tool":"Bash","hint":"rm -rf ~"}}` + "\n"},
	{"a no-cors fetch", "PUT /x HTTP/1.1\r\nHost: localhost:8331\r\nOrigin: http://evil.example\r\n\r\n"},
	{"a WebSocket handshake", "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8331\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"},
	{"HTTP/1.0 after white space", "\r\n  GET / HTTP/1.0\r\n\r\n"},
	{"a TLS ClientHello", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"},
	{"a STUN binding request", "\x00\x01\x00\x00\x21\x12\xa4\x42abcdefghijkl"},
	{"a JSON array", `[{"cmd":"status"}]` + "\n"},
	{"too much white space", strings.Repeat(" ", maxLead+1)},
}

func TestSniff(t *testing.T) {
	for _, tt := range crossProtocol {
		if v := sniff([]byte(tt.first)); v != notNUS {
			t.Errorf("%s: sniff = %v, want notNUS", tt.name, v)
		}
	}
	for in, want := range map[string]verdict{
		`{"cmd":"status"}` + "\n":         nusClient,
		"\n\r\n \t{":                      nusClient,
		"{":                               nusClient,
		"":                                undecided,
		" \r\n":                           undecided,
		strings.Repeat("\n", maxLead):     undecided,
		strings.Repeat("\n", maxLead+1):   notNUS,
		"G":                               notNUS,
		"\xef\xbb\xbf{":                   notNUS, // a BOM: no desktop sends one
		"{" + strings.Repeat(" ", 10_000): nusClient,
	} {
		if v := sniff([]byte(in)); v != want {
			t.Errorf("sniff(%.20q) = %v, want %v", in, v, want)
		}
	}
	for in, want := range map[string]string{
		"POST / HTTP/1.1\r\n":  "an HTTP request (a web page?)",
		"M-SEARCH * HTTP/1.1":  "an HTTP request (a web page?)",
		"\x16\x03\x01":         "a TLS handshake",
		"  ":                   "only white space",
		"hello\n":              "not a JSON line",
		"GET /\r\n":            "not a JSON line", // HTTP/0.9 has no version
		"\x00\x01\x00\x00\x21": "not a JSON line",
	} {
		if got := looksLike([]byte(in)); got != want {
			t.Errorf("looksLike(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSniff(f *testing.F) {
	for _, tt := range crossProtocol {
		f.Add([]byte(tt.first))
	}
	f.Add([]byte(`{"cmd":"status"}` + "\n"))
	f.Add([]byte(" \n{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v := sniff(b)
		rest := bytes.TrimLeft(b, " \t\r\n")
		switch {
		case v == nusClient && (len(rest) == 0 || rest[0] != '{'):
			t.Fatalf("accepted %q", b)
		case v == undecided && (len(rest) > 0 || len(b) > maxLead):
			t.Fatalf("undecided on %q", b)
		case v == notNUS && len(rest) > 0 && rest[0] == '{':
			t.Fatalf("refused %q", b)
		}
		// A verdict never changes as more bytes arrive.
		if v != undecided && sniff(append(bytes.Clone(b), "x{"...)) != v {
			t.Fatalf("verdict on %q changed with more bytes", b)
		}
		_ = looksLike(b)
	})
}

// TestCrossProtocolConnectionsAreClosed: over a raw TCP connection, each
// thing a browser can send is closed without a byte reaching the
// appliance, and a desktop connects after it.
func TestCrossProtocolConnectionsAreClosed(t *testing.T) {
	h := start(t, "127.0.0.1:0", nil)
	defer h.stop()
	for _, tt := range crossProtocol {
		c := h.dial()
		if _, err := io.WriteString(c, tt.first); err != nil {
			t.Fatal(err)
		}
		// The next event is the disconnect: nothing was received.
		if ev := h.next(); ev != (drv.Disconnected{Central: c.LocalAddr().String()}) {
			t.Fatalf("%s: event %#v, want Disconnected", tt.name, ev)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
			t.Fatalf("%s: connection still open (%d, %v)", tt.name, n, err)
		}
		c.Close()
	}
	// A desktop, white space first, in pieces: served byte for byte.
	c := h.dial()
	defer c.Close()
	first := "\r\n {\"cmd\":\"status\"}\n"
	for _, piece := range []string{first[:2], first[2:4], first[4:]} {
		if _, err := io.WriteString(c, piece); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // separate reads, so sniff sees the pieces
	}
	if got := bytes.Join(h.received(len(first)), nil); string(got) != first {
		t.Fatalf("received %q, want %q", got, first)
	}
	// Once served, any line passes: the line layer judges lines.
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\n"); err != nil {
		t.Fatal(err)
	}
	if got := bytes.Join(h.received(16), nil); string(got) != "GET / HTTP/1.1\r\n" {
		t.Fatalf("received %q after the first line", got)
	}
}
