//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	uuidNUS = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
	uuidRX  = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
	uuidTX  = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"

	deskAdapter = dbus.ObjectPath("/org/bluez/hci0")
	agentPath   = dbus.ObjectPath("/vmtest/agent")
	unpairLoops = 10
)

// desk is the desktop side: a central on this guest's own bluetoothd,
// driven over D-Bus the way the desktop's Web Bluetooth stack drives the
// OS, with its agent as the default one.
type desk struct {
	bus   *dbus.Conn
	share string
	out   *os.File

	mu       sync.Mutex
	passkeys int  // passkeys already typed
	refuse   bool // the agent refuses to pair, as a user who cancels
	lines    chan []byte
	partial  []byte
	txPath   dbus.ObjectPath
	rxPath   dbus.ObjectPath
	failures int
}

func runDesk(share string) error {
	bus, err := dbus.SystemBus()
	if err != nil {
		return err
	}
	out, err := os.Create("/host/out/desk/verdicts.txt")
	if err != nil {
		return err
	}
	defer out.Close()
	d := &desk{bus: bus, share: share, out: out, lines: make(chan []byte, 64)}
	defer os.WriteFile(filepath.Join(share, "desk-done"), nil, 0o644)
	if err := d.setup(); err != nil {
		return err
	}
	var pi shared
	if !waitFor(120*time.Second, func() bool {
		return readJSON(filepath.Join(share, "pi.json"), &pi) == nil && pi.Running && pi.Adverts["hci0"]+pi.Adverts["hci1"] > 0
	}) {
		return errors.New("the appliance did not advertise within 120 s")
	}
	hci0, hci1 := pi.Adapters["hci0"], pi.Adapters["hci1"]
	dev := devicePath(hci0)

	d.scenario("filter-finds-pi", func() error {
		// The default adapter is the same on every start: hci0 of two.
		if pi.Adverts["hci0"] != 1 || pi.Adverts["hci1"] != 0 {
			return fmt.Errorf("adverts %v: want hci0 only (lowest-numbered)", pi.Adverts)
		}
		return d.discover(hci0, true, 60*time.Second)
	})
	d.scenario("first-pairing", func() error {
		if err := d.pair(dev); err != nil {
			return err
		}
		return d.waitPi("the passkey off the screen and the central shown", 15*time.Second, func(p shared) bool {
			return p.Link.Passkey == "" && p.Link.Connected && p.Bonds == 1
		})
	})
	d.scenario("nus-both-ways", func() error { return d.nus(dev) })
	d.scenario("bonded-reconnect", func() error { return d.reconnect(dev) })
	d.scenario(fmt.Sprintf("unpair-repair-x%d", unpairLoops), func() error {
		for i := 1; i <= unpairLoops; i++ {
			t0 := time.Now()
			if err := d.unpairAndRepair(hci0, dev); err != nil {
				return fmt.Errorf("round %d: %w", i, err)
			}
			logf("desk: unpair round %d passed in %.1fs", i, time.Since(t0).Seconds())
		}
		return nil
	})
	d.scenario("unencrypted-refused", func() error { return d.unencrypted(hci0, dev) })
	d.scenario("adapter-key-picks-hci1", func() error {
		_ = d.call(dev, "org.bluez.Device1.Disconnect")
		_ = d.call(deskAdapter, "org.bluez.Adapter1.RemoveDevice", dev)
		if err := writeJSON(filepath.Join(share, "request.json"), request{N: 1, Adapter: "hci1"}); err != nil {
			return err
		}
		if err := d.waitPi("claude-pi restarted on hci1", 60*time.Second, func(p shared) bool {
			return p.Requests == 1 && p.Running && p.Adverts["hci1"] == 1 && p.Adverts["hci0"] == 0
		}); err != nil {
			return err
		}
		return d.discover(hci1, true, 60*time.Second)
	})
	if d.failures > 0 {
		return fmt.Errorf("%d scenario(s) failed", d.failures)
	}
	return nil
}

// scenario runs one and prints its verdict line, which run.sh collects.
func (d *desk) scenario(name string, f func() error) {
	logf("desk: scenario %s", name)
	t0 := time.Now()
	err := f()
	verdict, detail := "PASS", ""
	if err != nil {
		verdict, detail = "FAIL", err.Error()
		d.failures++
	}
	line := fmt.Sprintf("%s %s %.1fs %s", name, verdict, time.Since(t0).Seconds(), detail)
	logf("verdict: %s", line)
	fmt.Fprintln(d.out, strings.TrimSpace(line))
}

// call calls bluetoothd; its errors name the method and the D-Bus error
// (some carry no message at all).
func (d *desk) call(obj dbus.ObjectPath, method string, args ...any) error {
	return d.callWithin(60*time.Second, obj, method, args...)
}

func (d *desk) callWithin(wait time.Duration, obj dbus.ObjectPath, method string, args ...any) error {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	err := d.bus.Object("org.bluez", obj).CallWithContext(ctx, method, 0, args...).Err
	var de dbus.Error
	if errors.As(err, &de) {
		return fmt.Errorf("%s: %w (%s)", method[strings.LastIndex(method, ".")+1:], err, de.Name)
	}
	return err
}

func devicePath(addr string) dbus.ObjectPath {
	return deskAdapter + "/dev_" + dbus.ObjectPath(strings.ReplaceAll(addr, ":", "_"))
}

func (d *desk) setup() error {
	if !waitFor(60*time.Second, func() bool { return len(adapters(d.bus)) >= 1 }) {
		return errors.New("bluetoothd shows no adapter after 60 s: btattach on ttyS1 failed?")
	}
	if err := d.bus.Export(deskAgent{d}, agentPath, "org.bluez.Agent1"); err != nil {
		return err
	}
	if err := d.call("/org/bluez", "org.bluez.AgentManager1.RegisterAgent", agentPath, "KeyboardDisplay"); err != nil {
		return fmt.Errorf("registering the desk's agent: %w", err)
	}
	if err := d.call("/org/bluez", "org.bluez.AgentManager1.RequestDefaultAgent", agentPath); err != nil {
		return err
	}
	// A controller that has just come up may not power on at the first try.
	var err error
	if !waitFor(30*time.Second, func() bool {
		err = d.call(deskAdapter, "org.freedesktop.DBus.Properties.Set", "org.bluez.Adapter1", "Powered", dbus.MakeVariant(true))
		return err == nil
	}) {
		return fmt.Errorf("powering the desk's adapter on: %w", err)
	}
	if err = d.bus.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.DBus.Properties"), dbus.WithMatchMember("PropertiesChanged")); err != nil {
		return err
	}
	sigs := make(chan *dbus.Signal, 256)
	d.bus.Signal(sigs)
	go d.notifications(sigs)
	return nil
}

// notifications assembles TX notifications into lines.
func (d *desk) notifications(sigs chan *dbus.Signal) {
	for s := range sigs {
		d.mu.Lock()
		tx := d.txPath
		d.mu.Unlock()
		if tx == "" || s.Path != tx || len(s.Body) < 2 {
			continue
		}
		changed, _ := s.Body[1].(map[string]dbus.Variant)
		v, ok := changed["Value"].Value().([]byte)
		if !ok {
			continue
		}
		d.mu.Lock()
		d.partial = append(d.partial, v...)
		var lines [][]byte
		for {
			i := bytes.IndexByte(d.partial, '\n')
			if i < 0 {
				break
			}
			lines = append(lines, append([]byte(nil), d.partial[:i]...))
			d.partial = d.partial[i+1:]
		}
		d.mu.Unlock()
		for _, line := range lines {
			select {
			case d.lines <- line:
			default:
			}
		}
	}
}

// deskAgent types the passkey the pi's screen shows, as the user would.
type deskAgent struct{ d *desk }

func (a deskAgent) Release() *dbus.Error { return nil }
func (a deskAgent) RequestPasskey(dev dbus.ObjectPath) (uint32, *dbus.Error) {
	a.d.mu.Lock()
	refuse := a.d.refuse
	a.d.mu.Unlock()
	if refuse {
		logf("desk: agent refuses to pair")
		return 0, dbus.NewError("org.bluez.Error.Rejected", nil)
	}
	code, err := a.d.freshPasskey(30 * time.Second)
	if err != nil {
		logf("desk: agent: %v", err)
		return 0, dbus.NewError("org.bluez.Error.Canceled", []any{err.Error()})
	}
	// Base 10 always: the screen zero-pads ("062152"), which fmt.Sscan
	// would read as octal.
	n, perr := strconv.ParseUint(code, 10, 32)
	if perr != nil {
		return 0, dbus.NewError("org.bluez.Error.Canceled", []any{perr.Error()})
	}
	logf("desk: agent types passkey %s", code)
	return uint32(n), nil
}
func (a deskAgent) RequestPinCode(dev dbus.ObjectPath) (string, *dbus.Error) {
	return "", dbus.NewError("org.bluez.Error.Rejected", nil)
}
func (a deskAgent) DisplayPasskey(dev dbus.ObjectPath, passkey uint32, entered uint16) *dbus.Error {
	return nil
}
func (a deskAgent) DisplayPinCode(dev dbus.ObjectPath, pin string) *dbus.Error { return nil }
func (a deskAgent) RequestConfirmation(dev dbus.ObjectPath, passkey uint32) *dbus.Error {
	logf("desk: agent was asked to confirm %06d: the appliance must not offer numeric comparison", passkey)
	return dbus.NewError("org.bluez.Error.Rejected", nil)
}
func (a deskAgent) RequestAuthorization(dev dbus.ObjectPath) *dbus.Error {
	return dbus.NewError("org.bluez.Error.Rejected", nil)
}
func (a deskAgent) AuthorizeService(dev dbus.ObjectPath, uuid string) *dbus.Error { return nil }
func (a deskAgent) Cancel() *dbus.Error                                           { return nil }

// freshPasskey waits for a passkey the screen has not shown before.
func (d *desk) freshPasskey(wait time.Duration) (string, error) {
	d.mu.Lock()
	seen := d.passkeys
	d.mu.Unlock()
	var pi shared
	if !waitFor(wait, func() bool {
		return readJSON(filepath.Join(d.share, "pi.json"), &pi) == nil && pi.Passkeys > seen && pi.Link.Passkey != ""
	}) {
		return "", fmt.Errorf("no new passkey on the appliance's screen within %v", wait)
	}
	d.mu.Lock()
	d.passkeys = pi.Passkeys
	d.mu.Unlock()
	return pi.Passkey, nil
}

func (d *desk) piState() shared {
	var pi shared
	_ = readJSON(filepath.Join(d.share, "pi.json"), &pi)
	return pi
}

func (d *desk) waitPi(what string, wait time.Duration, cond func(shared) bool) error {
	var last shared
	if waitFor(wait, func() bool {
		if readJSON(filepath.Join(d.share, "pi.json"), &last) != nil {
			return false
		}
		return cond(last)
	}) {
		return nil
	}
	b, _ := json.Marshal(last)
	return fmt.Errorf("appliance: no %s within %v; last %s", what, wait, b)
}

func (d *desk) props(obj dbus.ObjectPath, iface string) map[string]dbus.Variant {
	var p map[string]dbus.Variant
	_ = d.bus.Object("org.bluez", obj).Call("org.freedesktop.DBus.Properties.GetAll", 0, iface).Store(&p)
	return p
}

// discover scans until the appliance's advert is seen afresh at addr.
// With filter, bluetoothd reports only adverts that carry the NUS UUID,
// as CoreBluetooth's withServices: and Web Bluetooth filters do.
func (d *desk) discover(addr string, filter bool, wait time.Duration) error {
	dev := devicePath(addr)
	f := map[string]dbus.Variant{"Transport": dbus.MakeVariant("le"), "DuplicateData": dbus.MakeVariant(true)}
	if filter {
		f["UUIDs"] = dbus.MakeVariant([]string{uuidNUS})
	}
	if err := d.call(deskAdapter, "org.bluez.Adapter1.SetDiscoveryFilter", f); err != nil {
		return fmt.Errorf("SetDiscoveryFilter: %w", err)
	}
	if err := d.call(deskAdapter, "org.bluez.Adapter1.StartDiscovery"); err != nil {
		return fmt.Errorf("StartDiscovery: %w", err)
	}
	defer d.call(deskAdapter, "org.bluez.Adapter1.StopDiscovery")
	var p map[string]dbus.Variant
	if !waitFor(wait, func() bool {
		p = d.props(dev, "org.bluez.Device1")
		name, _ := p["Name"].Value().(string)
		uuids, _ := p["UUIDs"].Value().([]string)
		_, fresh := p["RSSI"]
		return fresh && name == "Claude_Pi" && slices.Contains(uuids, uuidNUS)
	}) {
		return fmt.Errorf("no advert of Claude_Pi with the NUS UUID from %s within %v (device: %v)", addr, wait, p)
	}
	return nil
}

// pair pairs as the desktop does: the OS starts pairing, the agent types
// the passkey off the appliance's screen.
func (d *desk) pair(dev dbus.ObjectPath) error {
	before := d.piState().Passkeys
	if err := d.call(dev, "org.bluez.Device1.Pair"); err != nil {
		return fmt.Errorf("Pair: %w", err)
	}
	p := d.props(dev, "org.bluez.Device1")
	if paired, _ := p["Paired"].Value().(bool); !paired {
		return fmt.Errorf("Pair returned but Paired is %v", p["Paired"])
	}
	if d.piState().Passkeys <= before {
		return errors.New("paired without a passkey on the screen")
	}
	return nil
}

// connect connects and finds NUS, then enables TX notifications (the
// desktop's startNotifications()).
func (d *desk) connect(dev dbus.ObjectPath) error { return d.connectWith(dev, false) }

// connectWith refuse does not enable notifications: the caller probes them.
func (d *desk) connectWith(dev dbus.ObjectPath, refuse bool) error {
	if err := d.call(dev, "org.bluez.Device1.Connect"); err != nil && !isDBusError(err, "org.bluez.Error.AlreadyConnected") {
		return fmt.Errorf("Connect: %w", err)
	}
	if !waitFor(45*time.Second, func() bool {
		r, _ := d.props(dev, "org.bluez.Device1")["ServicesResolved"].Value().(bool)
		return r
	}) {
		return errors.New("services not resolved within 45 s")
	}
	var objs objects
	if err := d.bus.Object("org.bluez", "/").Call("org.freedesktop.DBus.ObjectManager.GetManagedObjects", 0).Store(&objs); err != nil {
		return err
	}
	var rx, tx dbus.ObjectPath
	for p, ifaces := range objs {
		c, ok := ifaces["org.bluez.GattCharacteristic1"]
		if !ok || !strings.HasPrefix(string(p), string(dev)+"/") {
			continue
		}
		switch c["UUID"].Value() {
		case uuidRX:
			rx = p
		case uuidTX:
			tx = p
		}
	}
	if rx == "" || tx == "" {
		return errors.New("NUS RX/TX not found on the appliance")
	}
	d.mu.Lock()
	d.rxPath, d.txPath, d.partial = rx, tx, nil
	d.mu.Unlock()
	for len(d.lines) > 0 {
		<-d.lines
	}
	if refuse {
		return nil
	}
	if err := d.call(tx, "org.bluez.GattCharacteristic1.StartNotify"); err != nil {
		return fmt.Errorf("StartNotify: %w", err)
	}
	return nil
}

// send writes one line in 180-byte slices, as the desktop does (§3.2).
func (d *desk) send(line string) error {
	b := []byte(line + "\n")
	for len(b) > 0 {
		n := min(len(b), 180)
		if err := d.call(d.rxPath, "org.bluez.GattCharacteristic1.WriteValue", b[:n], map[string]dbus.Variant{"type": dbus.MakeVariant("request")}); err != nil {
			return fmt.Errorf("WriteValue: %w", err)
		}
		b = b[n:]
	}
	return nil
}

// command sends a command and waits for its ack.
func (d *desk) command(cmd map[string]any, wait time.Duration) (map[string]any, error) {
	b, _ := json.Marshal(cmd)
	if err := d.send(string(b)); err != nil {
		return nil, err
	}
	deadline := time.After(wait)
	for {
		select {
		case line := <-d.lines:
			var ack map[string]any
			if json.Unmarshal(line, &ack) == nil && ack["ack"] == cmd["cmd"] {
				if ok, _ := ack["ok"].(bool); !ok {
					return ack, fmt.Errorf("ack %s", line)
				}
				return ack, nil
			}
		case <-deadline:
			return nil, fmt.Errorf("no %v ack within %v", cmd["cmd"], wait)
		}
	}
}

func (d *desk) nus(dev dbus.ObjectPath) error {
	if err := d.connect(dev); err != nil {
		return err
	}
	ack, err := d.command(map[string]any{"cmd": "status"}, 15*time.Second)
	if err != nil {
		return err
	}
	if data, _ := ack["data"].(map[string]any); data["sec"] != true {
		return fmt.Errorf("status ack without sec:true: %v", ack)
	}
	if mtu, ok := d.props(d.rxPath, "org.bluez.GattCharacteristic1")["MTU"].Value().(uint16); ok && mtu != 517 {
		return fmt.Errorf("desk's ATT MTU %d, want 517", mtu)
	}
	if err := d.waitPi("MTU 517 on the screen", 10*time.Second, func(p shared) bool { return p.Link.MTU == 517 && p.Link.Secured }); err != nil {
		return err
	}
	// A turn line just under the desktop's 4096-byte limit (§5.2), then one
	// with no content key at all: neither may break the stream.
	turnLine := func(text string) []byte {
		b, _ := json.Marshal(map[string]any{"evt": "turn", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}})
		return b
	}
	turn := turnLine(strings.Repeat("x", 4096-len(turnLine(""))))
	if err := d.send(string(turn)); err != nil {
		return err
	}
	if err := d.send(`{"evt":"turn","role":"assistant"}`); err != nil {
		return err
	}
	if _, err := d.command(map[string]any{"cmd": "status"}, 15*time.Second); err != nil {
		return fmt.Errorf("after a %d-byte turn line: %w", len(turn), err)
	}
	return d.push()
}

// push sends a small text-mode character pack (§8), step by step with acks.
func (d *desk) push() error {
	manifest := []byte(`{"name":"vmtest","mode":"text","states":{"idle":{"frames":["(o_o)","(-_-)"],"delay":300}}}`)
	readme := bytes.Repeat([]byte("a pack pushed over a real BlueZ link\n"), 20)
	files := []struct {
		name string
		data []byte
	}{{"manifest.json", manifest}, {"README.md", readme}}
	if _, err := d.command(map[string]any{"cmd": "char_begin", "name": "vmtest", "total": len(manifest) + len(readme)}, 5*time.Second); err != nil {
		return err
	}
	for _, f := range files {
		if _, err := d.command(map[string]any{"cmd": "file", "path": f.name, "size": len(f.data)}, 5*time.Second); err != nil {
			return err
		}
		for off := 0; off < len(f.data); off += 256 {
			chunk := f.data[off:min(off+256, len(f.data))]
			if _, err := d.command(map[string]any{"cmd": "chunk", "d": base64.StdEncoding.EncodeToString(chunk)}, 5*time.Second); err != nil {
				return err
			}
		}
		ack, err := d.command(map[string]any{"cmd": "file_end"}, 10*time.Second)
		if err != nil {
			return err
		}
		if n, _ := ack["n"].(float64); int(n) != len(f.data) {
			return fmt.Errorf("%s: wrote %v of %d", f.name, ack["n"], len(f.data))
		}
	}
	_, err := d.command(map[string]any{"cmd": "char_end"}, 10*time.Second)
	return err
}

// reconnect is the desktop's every morning: disconnect, connect again,
// startNotifications() again (an unchanged CCC value for a bonded device,
// so bluetoothd calls no StartNotify on the appliance), then a status.
func (d *desk) reconnect(dev dbus.ObjectPath) error {
	passkeys := d.piState().Passkeys
	if err := d.call(dev, "org.bluez.Device1.Disconnect"); err != nil {
		return fmt.Errorf("Disconnect: %w", err)
	}
	if err := d.waitPi("disconnect", 15*time.Second, func(p shared) bool { return !p.Link.Connected }); err != nil {
		return err
	}
	if err := d.connect(dev); err != nil {
		return err
	}
	if _, err := d.command(map[string]any{"cmd": "status"}, 15*time.Second); err != nil {
		return fmt.Errorf("first status after a bonded reconnect: %w", err)
	}
	if n := d.piState().Passkeys; n != passkeys {
		return errors.New("a bonded reconnect showed a passkey")
	}
	return nil
}

// forget is the desktop's Forget: unpair, disconnect, drop its own bond.
// The appliance must then hold no bond and advertise again.
func (d *desk) forget(dev dbus.ObjectPath) error {
	if c, _ := d.props(dev, "org.bluez.Device1")["Connected"].Value().(bool); !c {
		if err := d.connect(dev); err != nil {
			return fmt.Errorf("connecting to send unpair: %w", err)
		}
	}
	if _, err := d.command(map[string]any{"cmd": "unpair"}, 10*time.Second); err != nil {
		return err
	}
	_ = d.call(dev, "org.bluez.Device1.Disconnect")
	if err := d.call(deskAdapter, "org.bluez.Adapter1.RemoveDevice", dev); err != nil {
		return fmt.Errorf("RemoveDevice on the desk: %w", err)
	}
	// bluetoothd removes a connected device only once its link is down:
	// a central that reconnects before that is dropped with it (seen in
	// the trace as a disconnect, reason 2, during the new pairing), so wait
	// until the device itself is gone, not only its bond.
	return d.waitPi("bond and device removed, advertising again", 20*time.Second, func(p shared) bool {
		return p.Bonds == 0 && p.Devices == 0 && !p.Link.Connected && p.Adverts["hci0"] == 1
	})
}

// unpairAndRepair is Forget followed by a new pairing.
func (d *desk) unpairAndRepair(addr string, dev dbus.ObjectPath) error {
	if err := d.forget(dev); err != nil {
		return err
	}
	if err := d.discover(addr, false, 30*time.Second); err != nil {
		return fmt.Errorf("advertising did not resume: %w", err)
	}
	if err := d.pair(dev); err != nil {
		return err
	}
	if err := d.connect(dev); err != nil {
		return err
	}
	_, err := d.command(map[string]any{"cmd": "status"}, 15*time.Second)
	return err
}

func isDBusError(err error, name string) bool {
	var de dbus.Error
	return errors.As(err, &de) && de.Name == name
}

// unencrypted is a central that does not pair (its user refuses): GATT
// discovery works over the plain link, but the RX write and the TX CCCD
// write are answered Insufficient Authentication, bluetoothd's attempt to
// raise security fails on the refusal, and nothing reaches the appliance.
func (d *desk) unencrypted(addr string, dev dbus.ObjectPath) error {
	d.mu.Lock()
	d.refuse = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.refuse, d.passkeys = false, d.piState().Passkeys
		d.mu.Unlock()
		_ = d.call(dev, "org.bluez.Device1.Disconnect")
		_ = d.call(deskAdapter, "org.bluez.Adapter1.RemoveDevice", dev)
	}()
	if err := d.forget(dev); err != nil {
		return err
	}
	// Each refused access makes bluetoothd try to pair, which the agent
	// refuses, and the link drops: one connection per access.
	mark := btmonSize()
	var errs []error
	for _, access := range []func() error{
		func() error {
			return d.callWithin(20*time.Second, d.txPath, "org.bluez.GattCharacteristic1.StartNotify")
		},
		func() error {
			return d.callWithin(20*time.Second, d.rxPath, "org.bluez.GattCharacteristic1.WriteValue", []byte("{\"cmd\":\"status\"}\n"), map[string]dbus.Variant{"type": dbus.MakeVariant("request")})
		},
	} {
		// A fresh device each time: bluetoothd 5.82 otherwise raises
		// security on the next connect by itself.
		if err := d.discover(addr, false, 30*time.Second); err != nil {
			return err
		}
		if err := d.connectWith(dev, true); err != nil {
			return fmt.Errorf("connecting without pairing: %w", err)
		}
		err := access()
		if err == nil {
			return errors.New("an unpaired central got through: the access succeeded")
		}
		errs = append(errs, err)
		_ = d.call(dev, "org.bluez.Device1.Disconnect")
		_ = d.call(deskAdapter, "org.bluez.Adapter1.RemoveDevice", dev)
		if err := d.waitPi("the refused central gone", 15*time.Second, func(p shared) bool { return !p.Link.Connected }); err != nil {
			return err
		}
	}
	werr, nerr := errs[1], errs[0]
	// The answers on the wire, from this guest's HCI trace.
	var refused int
	if !waitFor(10*time.Second, func() bool { refused = insufficientAuth(mark); return refused >= 2 }) {
		return fmt.Errorf("btmon shows %d Write Requests answered Insufficient Authentication, want 2 (the TX CCCD and RX); D-Bus said %v / %v", refused, nerr, werr)
	}
	logf("desk: unpaired RX write and CCCD write refused: %v / %v", werr, nerr)
	return d.waitPi("no bond and no secured link", 5*time.Second, func(p shared) bool { return p.Bonds == 0 && !p.Link.Secured })
}

const btmonLog = "/host/out/desk/btmon.txt"

func btmonSize() int64 {
	fi, err := os.Stat(btmonLog)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// insufficientAuth counts, in the HCI trace after offset, the ATT Error
// Responses to a Write Request that say Insufficient Authentication.
func insufficientAuth(offset int64) int {
	b, err := os.ReadFile(btmonLog)
	if err != nil || int64(len(b)) < offset {
		return 0
	}
	n := 0
	lines := strings.Split(string(b[offset:]), "\n")
	for i, l := range lines {
		if !strings.Contains(l, "ATT: Error Response (0x01)") || i+3 >= len(lines) {
			continue
		}
		block := strings.Join(lines[i+1:i+4], "\n")
		if strings.Contains(block, "Write Request (0x12)") && strings.Contains(block, "Insufficient Authentication (0x05)") {
			n++
		}
	}
	return n
}
