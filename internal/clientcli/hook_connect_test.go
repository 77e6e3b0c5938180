package clientcli

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/cli/clitest"
	"github.com/claude-pi/claude-pi/internal/client"
)

// TestHookSilentPi: the paired address accepts TCP but never answers the
// TLS handshake (a hung Pi, a black-holing proxy). The hook must give no
// decision and exit 0 once --connect-timeout passes, long before its
// decision timeout, without touching the network beyond 127.0.0.1.
func TestHookSilentPi(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never read or written
		}
	}()
	dir := t.TempDir()
	cs := &client.State{Dir: dir, Pis: []client.Pi{{Name: "Claude_Pi", Addr: ln.Addr().String(), Pin: strings.Repeat("0", 64)}}}
	if err := cs.Save(); err != nil {
		t.Fatal(err)
	}
	const connect, wait = 300 * time.Millisecond, time.Minute
	var stderr bytes.Buffer
	var out bytes.Buffer
	start := time.Now()
	err = HookPermissionCommand(context.Background(), []string{"--config", dir, "--connect-timeout", connect.String(), "--timeout", wait.String()},
		strings.NewReader(clitest.HookPermissionJSON), &out, &stderr)
	took := time.Since(start)
	if err != nil || out.Len() != 0 {
		t.Fatalf("silent Pi: err %v, output %q", err, out.String())
	}
	select {
	case c := <-accepted:
		c.Close()
	default:
		t.Fatal("the hook never reached the silent server")
	}
	// The connect deadline, not the decision timeout, ended the wait.
	if took < connect || took >= wait {
		t.Fatalf("gave up after %v: want the %v connect timeout, not the %v wait", took, connect, wait)
	}
	if !strings.Contains(stderr.String(), "no decision") || !strings.Contains(stderr.String(), "deadline exceeded") {
		t.Fatalf("stderr does not say why: %q", stderr.String())
	}
	t.Logf("silent Pi: no decision after %v (connect timeout %v)", took, connect)
}

func TestHookConnectTimeoutFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want time.Duration
	}{
		{nil, hookConnectTimeout},
		{[]string{"--connect-timeout", "500ms"}, 500 * time.Millisecond},
		{[]string{"--connect-timeout", "1m"}, hookConnectTimeout}, // never longer than the 2 s the terminal can spare
		{[]string{"--connect-timeout", "0s"}, hookConnectTimeout},
	} {
		f, help, err := parseHookFlags("permission", hookPermissionSynopsis, tt.args, io.Discard)
		if help || err != nil || f.connect != tt.want {
			t.Errorf("%v: connect %v (help %v, err %v), want %v", tt.args, f.connect, help, err, tt.want)
		}
	}
	if hookConnectTimeout > 2*time.Second {
		t.Fatalf("default connect timeout %v is over the 2 s the issue allows", hookConnectTimeout)
	}
}
