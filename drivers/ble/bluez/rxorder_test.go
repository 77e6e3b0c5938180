package bluez

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// BlueZ 5.82 answers each ATT Write Request before its WriteValue call
// returns, so the desktop's slices of a 4096-byte turn line reach us as
// WriteValue calls in flight together. They must come out in the order
// bluetoothd sent them: the VM test on trixie saw a turn line cut by 120
// bytes, its last slice overtaken by the next line's.
func TestPipelinedWritesArriveInOrder(t *testing.T) {
	r := start(t, Options{})
	connect(r)
	rx := r.fake.peerObject("/org/claudepi/nus/service0/char0")
	// dbus-daemon allows a connection 128 calls awaiting replies.
	const n = 100
	var want []byte
	calls := make([]*dbus.Call, 0, n)
	for i := range n {
		part := fmt.Appendf(nil, "%04d|", i)
		want = append(want, part...)
		// Go sends the call and returns at once, as bluetoothd's
		// g_dbus_proxy_method_call does: no call waits for the one before.
		calls = append(calls, rx.Go(ifaceGattChar+".WriteValue", 0, nil, part, map[string]dbus.Variant{
			"device": dbus.MakeVariant(dev), "type": dbus.MakeVariant("request"),
		}))
	}
	var got []byte
	deadline := time.After(20 * time.Second)
	for len(got) < len(want) {
		select {
		case ev := <-r.events:
			if rcv, ok := ev.(drv.Received); ok {
				got = append(got, rcv.Data...)
			}
		case <-deadline:
			t.Fatalf("received %d of %d bytes", len(got), len(want))
		}
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && got[i] == want[i] {
			i++
		}
		t.Fatalf("writes reordered: first difference at byte %d: got %q, want %q", i, got[i:min(len(got), i+30)], want[i:min(len(want), i+30)])
	}
	for i, c := range calls {
		select {
		case <-c.Done:
			if c.Err != nil {
				t.Fatalf("write %d: %v", i, c.Err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("write %d got no reply", i)
		}
	}
}
