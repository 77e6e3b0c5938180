package e2e

// The surfaces issue 19's attack found holding, kept holding: each case
// abuses one surface of the sim appliance with a bounded amount of input
// (scaled down from the attack to keep CI short), then checks the
// appliance still answers on it and still decides a prompt.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/dock/docktest"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// stillDecides: the desktop's status poll is answered and a prompt is
// decided by A.
func stillDecides(t *testing.T, a *rig, d *fakedesktop.Desktop, id string) {
	t.Helper()
	if st := d.PollStatus(context.Background()); st.Err != nil {
		t.Fatalf("status after the abuse: %v", st.Err)
	}
	d.SetPrompt(id, "Bash", "make")
	a.awaitPrompt(t, id)
	a.Press(t, "A")
	if p := oneDecision(t, d, 50*time.Millisecond); p.ID != id {
		t.Fatalf("A sent %s, want %s", p.Line, id)
	}
	d.ClearPrompt()
	supervisortest.Within(t, 5*time.Second, "the prompt gone", func() bool { return len(a.UIView(t).Prompts) == 0 })
}

// TestHostileNUSInput: garbage, a 10 MiB line and many tiny lines on the
// NUS link (the attack sent 100k; 20k here).
func TestHostileNUSInput(t *testing.T) {
	e2e(t)
	a := startApplianceWith(t, nil)
	d := a.Dial(t, &fakedesktop.Options{Owner: "Ada", StatusEvery: -1, Debounce: 10 * time.Millisecond})
	rng := rand.New(rand.NewPCG(19, 19))
	garbage := make([]byte, 1<<20)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	for _, abuse := range []struct {
		name string
		b    []byte
	}{
		{"1 MiB of random bytes", append(garbage, '\n')},
		{"a 10 MiB line", append(bytes.Repeat([]byte(`{"a":"`), 10<<20/6), '\n')},
		{"20k tiny lines", bytes.Repeat([]byte("{}\n"), 20_000)},
		{"20k unknown commands", bytes.Repeat([]byte(`{"cmd":"nope"}`+"\n"), 20_000)},
	} {
		if err := d.SendRaw(abuse.b); err != nil {
			t.Fatalf("%s: %v", abuse.name, err)
		}
		stillDecides(t, a, d, "after "+abuse.name)
	}
}

// TestHostileConnectLoops: centrals that connect and drop at once, over
// and over (the attack did 300; 30 here), leave a link that works.
func TestHostileConnectLoops(t *testing.T) {
	e2e(t)
	a := startApplianceWith(t, nil)
	for range 30 {
		c, err := net.Dial("tcp", a.NUS)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(`{"cmd":"status"}` + "\n"))
		c.Close()
	}
	// The last drop may not be seen yet: a dial is refused until it is.
	var d *fakedesktop.Desktop
	supervisortest.Within(t, 10*time.Second, "a desktop to connect after the loops", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		d, err = fakedesktop.DialOptions(ctx, a.NUS, &fakedesktop.Options{Owner: "Ada", StatusEvery: -1, Debounce: 10 * time.Millisecond})
		return err == nil
	})
	t.Cleanup(func() { d.Close() })
	stillDecides(t, a, d, "after the loops")
}

// TestHostilePushes: traversal names and sizes that lie are refused with
// an ack naming the step, nothing is installed, and the link still works.
func TestHostilePushes(t *testing.T) {
	e2e(t)
	a := startAppliance(t, t.TempDir())
	d := a.Dial(t, &fakedesktop.Options{Owner: "Ada", StatusEvery: -1, Debounce: 10 * time.Millisecond})
	ctx := context.Background()
	for _, name := range []string{"../../etc/passwd", "/etc/passwd", "a/../../b", `..\x`, "\x00.gif", strings.Repeat("a", 300)} {
		err := d.PushFiles(ctx, "evil", []fakedesktop.PackFile{{Name: name, Data: []byte("x")}})
		var pe *fakedesktop.PushError
		if !errors.As(err, &pe) || pe.Step != "file" {
			t.Errorf("push of %q: %v, want file refused", name, err)
		}
	}
	for _, lie := range []struct {
		name  string
		steps []pbuddy.Command
	}{
		{"more bytes than announced", []pbuddy.Command{pbuddy.CharBegin{Name: "l1", Total: 100}, pbuddy.File{Path: "manifest.json", Size: 3}, pbuddy.Chunk{D: "YWJjZGVmZ2g="}}},
		{"a file larger than the pack", []pbuddy.Command{pbuddy.CharBegin{Name: "l2", Total: 10}, pbuddy.File{Path: "idle.gif", Size: 1 << 30}}},
		{"a pack larger than the limit", []pbuddy.Command{pbuddy.CharBegin{Name: "l3", Total: 1 << 40}}},
		{"a negative size", []pbuddy.Command{pbuddy.CharBegin{Name: "l4", Total: 10}, pbuddy.File{Path: "idle.gif", Size: -5}}},
	} {
		var last pbuddy.Ack
		for _, c := range lie.steps {
			ack, err := d.Command(ctx, c)
			if err != nil {
				t.Fatalf("%s: %s: %v", lie.name, c.CmdName(), err)
			}
			last = ack
			if !ack.OK {
				break
			}
		}
		if last.OK || last.Error == "" {
			t.Errorf("%s: the last ack is %+v, want a refusal with an error", lie.name, last)
		}
	}
	if got := buddyState(t, a).Pack; got != "" {
		t.Fatalf("a pack %q was installed by the abuse", got)
	}
	stillDecides(t, a, d, "after the pushes")
}

// TestHostileControlSocket: a billion laughs and a 64 MiB body on the
// control socket are refused, and supervisorctl's calls still work.
func TestHostileControlSocket(t *testing.T) {
	e2e(t)
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	startApplianceWith(t, func(c *Config) { c.ControlSocket = sock })
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
	laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">` +
		`<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
		`<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">` +
		`<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>` +
		`<methodCall><methodName>&lol4;</methodName></methodCall>`
	for _, body := range []struct {
		name string
		r    io.Reader
		n    int64
	}{
		{"a billion laughs", strings.NewReader(laughs), int64(len(laughs))},
		{"a 64 MiB body", io.LimitReader(zeros{}, 64<<20), 64 << 20},
	} {
		req, _ := http.NewRequest(http.MethodPost, "http://localhost/RPC2", body.r)
		req.ContentLength = body.n
		resp, err := hc.Do(req)
		if err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && !bytes.Contains(b, []byte("<fault>")) {
				t.Errorf("%s: answered 200 without a fault: %.200s", body.name, b)
			}
		}
		// An error is fine too: the server may close before reading it all.
		var table bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = ctlsock.Status(ctx, sock, nil, &table)
		cancel()
		if err != nil || !strings.Contains(table.String(), "RUNNING") {
			t.Fatalf("after %s: status %v\n%s", body.name, err, table.String())
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestHostileDockSerial: megabytes of noise on the dock's serial port
// (the attack sent 142 MiB; 4 MiB here) cost only themselves: the dock
// still carries a prompt to the CoreS3 and its approve back to the
// desktop as one permission line.
func TestHostileDockSerial(t *testing.T) {
	e2e(t)
	core := docktest.New(t, wire.FirmwareCaps)
	a := startApplianceWith(t, func(c *Config) { c.Dock.Port, c.TTS.Engine = core.Path(), "off" })
	d := a.Dial(t, &fakedesktop.Options{Owner: "Ada", StatusEvery: -1, Debounce: 10 * time.Millisecond})
	supervisortest.Within(t, 15*time.Second, "the dock's handshake", func() bool {
		dk, _ := a.APIState(t)["dock"].(map[string]any)
		return dk != nil && dk["ready"] == true
	})
	rng := rand.New(rand.NewPCG(142, 19))
	noise := make([]byte, 4<<20)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	core.SendRaw(noise)
	a.awaitDock(t, "the dock ready after the noise")
	d.SetPrompt("req_dock", "Bash", "make")
	var req appevent.ApprovalRequest
	supervisortest.Within(t, 10*time.Second, "approval.request on the CoreS3", func() bool {
		rs := docktest.Of[appevent.ApprovalRequest](core)
		if len(rs) > 0 {
			req = rs[len(rs)-1]
		}
		return len(rs) > 0
	})
	core.Send(appevent.NewApprovalResponse(req.RequestID, appevent.Approve))
	if p := oneDecision(t, d, 200*time.Millisecond); p.ID != "req_dock" || p.Decision != pbuddy.Once {
		t.Fatalf("the CoreS3's approve sent %s, want once for req_dock", p.Line)
	}
}
