package bluez

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestBurstOfHeartbeatsFoldsOverBlueZ: this backend feeds the same link
// actor as the others, so a burst of heartbeat writes that buddy has not
// read yet reaches it as one Line, the burst's newest, behind the lines
// before it. (The rest of the actor's rules are tested in actors/ble.)
func TestBurstOfHeartbeatsFoldsOverBlueZ(t *testing.T) {
	addr := startBus(t)
	fake := newFakeBlueZ(t, addr)
	p, conn, err := Dial(func(o ...dbus.ConnOption) (*dbus.Conn, error) { return dbus.Connect(addr, o...) },
		&Options{Retry: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	buddy := &supervisortest.Recorder{}
	tree := supervisortest.Start(t,
		supervisor.Service{Name: "buddy", Policy: supervisor.DefaultPolicy, New: buddy.New},
		supervisor.Service{Name: "ble", Policy: supervisor.DefaultPolicy, New: bleactor.New(p, bleactor.Config{Lines: "buddy", MaxLine: 256})},
	)
	fake.waitCall("adv")
	fake.addDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(false), "Paired": dbus.MakeVariant(false)})
	fake.changeDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(true)})
	supervisortest.WaitFor(t, "the central connected", func() bool {
		supervisortest.Send(tree, "ble", supervisor.Subscribe{PID: supervisor.ServicePID(tree.System(), "buddy")})
		time.Sleep(10 * time.Millisecond)
		ls := supervisortest.Of[bleactor.LinkState](buddy)
		return len(ls) > 0 && ls[len(ls)-1].Connected
	})

	rx := fake.peerObject("/org/claudepi/nus/service0/char0")
	hb := func(i int) string {
		return fmt.Sprintf(`{"total":1,"waiting":1,"msg":"approve: Bash","prompt":{"id":"p%d","tool":"Bash"}}`, i)
	}
	// The first write also secures the link (a LinkState between lines);
	// dbus-daemon allows a connection 128 calls awaiting replies.
	writes := []string{"{}\n"}
	for i := range 90 {
		writes = append(writes, hb(i)+"\n")
	}
	// An over-long line ends the burst: its LineError comes after it.
	writes = append(writes, `{"x":"`+strings.Repeat("a", 300)+"\"}\n")
	calls := make([]*dbus.Call, 0, len(writes))
	for _, w := range writes {
		calls = append(calls, rx.Go(ifaceGattChar+".WriteValue", 0, nil, []byte(w), map[string]dbus.Variant{
			"device": dbus.MakeVariant(dev), "type": dbus.MakeVariant("request"),
		}))
	}
	supervisortest.WaitFor(t, "the over-long line's error", func() bool { return len(supervisortest.Of[bleactor.LineError](buddy)) > 0 })
	var got []string
	for _, l := range supervisortest.Of[bleactor.Line](buddy) {
		got = append(got, string(l.Take()))
	}
	if want := []string{"{}", hb(89)}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("buddy got %d lines:\n%s\nwant\n%s", len(got), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, c := range calls {
		select {
		case <-c.Done:
			if c.Err != nil {
				t.Fatalf("write %d: %v", i, c.Err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("write %d got no reply", i)
		}
	}
}
