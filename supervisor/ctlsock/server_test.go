package ctlsock

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/supervisor/ctlsock/ctlsocktest"
)

func TestSocketModeIsRootOnly(t *testing.T) {
	s, _, _ := startServer(t)
	fi, err := os.Lstat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode = %v, want socket with 0600", fi.Mode())
	}
	if left, _ := filepath.Glob(s.Path() + ".*.tmp"); len(left) != 0 {
		t.Fatalf("temporary socket names left behind: %v", left)
	}
}

func TestListenRefusesLiveSocketReplacesStale(t *testing.T) {
	s, fake, _ := startServer(t)
	if _, err := Listen(s.Path(), fake, Options{}); err == nil || !strings.Contains(err.Error(), "already serving") {
		t.Fatalf("second Listen on a live socket = %v, want 'already serving' error", err)
	}
	// A stale socket: bound, then its listener gone without unlinking.
	stale := filepath.Join(t.TempDir(), "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	s2, err := Listen(stale, fake, Options{})
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Fatalf("Close left the socket file behind: %v", err)
	}
	regular := filepath.Join(t.TempDir(), "file")
	os.WriteFile(regular, []byte("x"), 0o600)
	if _, err := Listen(regular, fake, Options{}); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("Listen over a regular file = %v, want refusal", err)
	}
	if _, err := Listen(filepath.Join(t.TempDir(), "g.sock"), fake, Options{Group: "no-such-group-xyz"}); err == nil {
		t.Fatal("Listen with an unknown group succeeded")
	}
}

func TestClientErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.sock")
	_, err := NewClient(missing).Call("supervisor.getPID")
	if err == nil || !strings.Contains(err.Error(), "no claude-pi running at "+missing) {
		t.Fatalf("Call on missing socket = %v", err)
	}
	if os.Geteuid() != 0 {
		s, _, _ := startServer(t)
		os.Chmod(s.Path(), 0)
		_, err := NewClient(s.Path()).Call("supervisor.getPID")
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("Call without permission = %v", err)
		}
	}
}

func TestStatus(t *testing.T) {
	s, _, _ := startServer(t)
	var buf bytes.Buffer
	if err := Status(context.Background(), s.Path(), nil, &buf); err != nil {
		t.Fatal(err)
	}
	want := "ble                              RUNNING   advertising as Claude_Pi · 1 central · encrypted\n" +
		"display                          STOPPED   Not started\n" +
		"dock                             RUNNING   CoreS3 on /dev/ttyACM0\n"
	if buf.String() != want {
		t.Fatalf("Status =\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	err := Status(context.Background(), s.Path(), []string{"dock", "foo", "bar:*"}, &buf)
	want = "foo: ERROR (no such process)\nbar: ERROR (no such group)\n" +
		"dock                             RUNNING   CoreS3 on /dev/ttyACM0\n"
	if buf.String() != want || err == nil || !strings.Contains(err.Error(), ErrNoSuchProcess.Error()) {
		t.Fatalf("Status(dock foo bar:*) = %v,\n%s\nwant\n%s", err, buf.String(), want)
	}
}

// rawHTTP sends one request on a fresh connection and returns the response.
func rawHTTP(t *testing.T, sock, req string) *http.Response {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestHTTPErrors(t *testing.T) {
	s, _, _ := startServer(t)
	big := strings.Repeat("x", MaxRequestBytes+1)
	tests := []struct {
		name, req string
		status    int
	}{
		{"garbage body", "POST /RPC2 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello", 400},
		{"too large", "POST /RPC2 HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + strconv.Itoa(len(big)) + "\r\n\r\n" + big, 413},
		{"GET RPC2", "GET /RPC2 HTTP/1.1\r\nHost: localhost\r\n\r\n", 405},
		{"unknown path", "GET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n", 404},
		{"logtail unknown", "GET /logtail/foo/stdout HTTP/1.1\r\nHost: \r\n\r\n", 404},
		{"logtail group", "GET /logtail/ble:*/stdout HTTP/1.1\r\nHost: \r\n\r\n", 404},
		// stderr is merged into stdout: an empty answer, so supervisorctl
		// fg (which follows both) shows no error.
		{"logtail stderr", "GET /logtail/ble/stderr HTTP/1.1\r\nHost: \r\n\r\n", 200},
		{"logtail other channel", "GET /logtail/ble/stdin HTTP/1.1\r\nHost: \r\n\r\n", 404},
		{"logtail POST", "POST /logtail/ble HTTP/1.1\r\nHost: \r\nContent-Length: 0\r\n\r\n", 400},
		// supervisorctl always sends Content-Length (SupervisorTransport);
		// an HTTP/1.0 client gets its answer and the connection closes.
		{"http/1.0 call", "POST /RPC2 HTTP/1.0\r\nContent-Length: %d\r\n\r\n<methodCall><methodName>supervisor.getPID</methodName></methodCall>", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			if strings.Contains(req, "%d") {
				body := req[strings.Index(req, "\r\n\r\n")+4:]
				req = strings.Replace(req, "%d", strconv.Itoa(len(body)), 1)
			}
			if resp := rawHTTP(t, s.Path(), req); resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
}

// TestShutdownEndsFollowStreams: a tail -f in progress must not hold
// Shutdown until its deadline; it ends with a proper final chunk.
func TestShutdownEndsFollowStreams(t *testing.T) {
	fake := ctlsocktest.New([]string{"ble"})
	fake.WriteLog("ble", "hello\n")
	s, err := Listen(filepath.Join(t.TempDir(), "ctl.sock"), fake, Options{})
	if err != nil {
		t.Fatal(err)
	}
	resp := rawHTTP(t, s.Path(), "GET /logtail/ble HTTP/1.1\r\nHost: \r\n\r\n\r\n")
	if resp.StatusCode != 200 || resp.TransferEncoding[0] != "chunked" {
		t.Fatalf("logtail response = %d %v", resp.StatusCode, resp.TransferEncoding)
	}
	r := bufio.NewReader(resp.Body)
	if line, err := r.ReadString('\n'); line != "hello\n" {
		t.Fatalf("first line = %q, %v", line, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
		t.Fatalf("after Shutdown the stream gave %q, %v; want a clean end", rest, err)
	}
	if n := fake.Followers("ble"); n != 0 {
		t.Fatalf("%d followers still subscribed after Shutdown", n)
	}
	if _, err := os.Lstat(s.Path()); !os.IsNotExist(err) {
		t.Fatalf("Shutdown left the socket file: %v", err)
	}
}

func BenchmarkGetAllProcessInfo(b *testing.B) {
	_, _, c := startServer(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Call("supervisor.getAllProcessInfo"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeAllProcessInfo(b *testing.B) {
	s, _, _ := startServer(b)
	v, _ := s.rpc.getAllProcessInfo(nil)
	out, _ := AppendResponse(nil, v)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		out, _ = AppendResponse(out[:0], v)
	}
}

func BenchmarkDecodeMethodCall(b *testing.B) {
	b.SetBytes(int64(len(pythonCall)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeMethodCall(strings.NewReader(pythonCall)); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSocketGroupMode(t *testing.T) {
	g, err := user.LookupGroupId(strconv.Itoa(os.Getgid()))
	if err != nil {
		t.Skipf("no name for our own group: %v", err)
	}
	s, err := Listen(filepath.Join(t.TempDir(), "g.sock"), ctlsocktest.New([]string{"ble"}), Options{Group: g.Name})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Lstat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o660 || fi.Sys().(*syscall.Stat_t).Gid != uint32(os.Getgid()) {
		t.Fatalf("socket mode %v gid %d, want 0660 gid %d", fi.Mode(), fi.Sys().(*syscall.Stat_t).Gid, os.Getgid())
	}
}

// TestOwnMethods: the program's own methods answer through the socket,
// their errors as FAILED faults; names in supervisor's namespaces, or
// without one, are refused at Listen.
func TestOwnMethods(t *testing.T) {
	fake := ctlsocktest.New([]string{"lan"})
	var got []string
	s, err := Listen(filepath.Join(t.TempDir(), "own.sock"), fake, Options{Methods: map[string]Method{
		"claudepi.echo": func(args []string) (string, error) {
			got = args
			if len(args) == 0 {
				return "", errors.New("nothing to echo")
			}
			return strings.Join(args, " "), nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := NewClient(s.Path())
	defer c.Close()
	ctx := context.Background()
	if v, err := c.CallContext(ctx, "claudepi.echo", "a", "b"); err != nil || v != "a b" || len(got) != 2 {
		t.Fatalf("echo = %v, %v (args %q)", v, err, got)
	}
	var f *Fault
	if _, err := c.CallContext(ctx, "claudepi.echo"); !errors.As(err, &f) || f.Code != Failed || !strings.HasSuffix(f.String, "nothing to echo") {
		t.Fatalf("failing method: %v, want FAILED with its text", err)
	}
	if _, err := c.CallContext(ctx, "claudepi.echo", 7); !errors.As(err, &f) || f.Code != IncorrectParameters {
		t.Fatalf("an int argument: %v, want INCORRECT_PARAMETERS", err)
	}
	if _, err := c.CallContext(ctx, "claudepi.other"); !errors.As(err, &f) || f.Code != UnknownMethod {
		t.Fatalf("an unknown method: %v, want UNKNOWN_METHOD", err)
	}
	for _, bad := range []string{"supervisor.revoke", "system.x", "nodot", "a.b.c"} {
		_, err := Listen(filepath.Join(t.TempDir(), "bad.sock"), fake, Options{Methods: map[string]Method{bad: nil}})
		if err == nil {
			t.Errorf("method %q accepted", bad)
		}
	}
}
