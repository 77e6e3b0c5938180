package bluez

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

type rig struct {
	t      testing.TB
	fake   *fakeBlueZ
	p      *Peripheral
	events chan drv.Event
	cancel context.CancelFunc
	done   chan error
}

// start runs a Peripheral against a fake bluetoothd on a private bus and
// waits until it has registered everything.
func start(t testing.TB, opts Options) *rig {
	t.Helper()
	return startOn(t, startBus(t), opts, make(chan drv.Event, 64))
}

// startOn is start on a bus the test made, for a second connection to it,
// with the owner's events channel the test chose.
func startOn(t testing.TB, addr string, opts Options, events chan drv.Event) *rig {
	t.Helper()
	fake := newFakeBlueZ(t, addr)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Retry == 0 {
		opts.Retry = 50 * time.Millisecond
	}
	p, conn, err := Dial(func(o ...dbus.ConnOption) (*dbus.Conn, error) { return dbus.Connect(addr, o...) }, &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{t: t, fake: fake, p: p, events: events, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- p.Run(ctx, r.events) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(5 * time.Second):
			t.Error("Run did not return within 5 s of cancel")
		}
	})
	return r
}

// want waits for the next event of type T, skipping others.
func want[T drv.Event](r *rig) T {
	r.t.Helper()
	deadline := time.After(5 * time.Second)
	var skipped []drv.Event
	for {
		select {
		case ev := <-r.events:
			if got, ok := ev.(T); ok {
				return got
			}
			skipped = append(skipped, ev)
		case <-deadline:
			var zero T
			r.t.Fatalf("no %T within 5 s; saw %#v", zero, skipped)
			return zero
		}
	}
}

func TestRegistersNUSAgentAndAdvertisement(t *testing.T) {
	r := start(t, Options{})
	r.fake.waitCall("adv")
	if ev := want[drv.Advertising](r); !ev.On {
		t.Fatalf("advertising = %+v, want on", ev)
	}
	f := r.fake
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.agentCap != "DisplayOnly" || f.defaultAgt != f.agentPath || f.agentPath == "" {
		t.Fatalf("agent %q capability %q default %q, want DisplayOnly and default", f.agentPath, f.agentCap, f.defaultAgt)
	}
	want := map[dbus.ObjectPath]map[string]map[string]dbus.Variant{
		"/org/claudepi/nus/service0": {ifaceGattService: {
			"UUID": dbus.MakeVariant("6e400001-b5a3-f393-e0a9-e50e24dcca9e"), "Primary": dbus.MakeVariant(true)}},
		"/org/claudepi/nus/service0/char0": {ifaceGattChar: {
			"UUID":    dbus.MakeVariant("6e400002-b5a3-f393-e0a9-e50e24dcca9e"),
			"Service": dbus.MakeVariant(dbus.ObjectPath("/org/claudepi/nus/service0")),
			"Flags":   dbus.MakeVariant([]string{"write-without-response", "write", "secure-write"})}},
		"/org/claudepi/nus/service0/char1": {ifaceGattChar: {
			"UUID":    dbus.MakeVariant("6e400003-b5a3-f393-e0a9-e50e24dcca9e"),
			"Service": dbus.MakeVariant(dbus.ObjectPath("/org/claudepi/nus/service0")),
			"Flags":   dbus.MakeVariant([]string{"notify", "secure-notify"})}},
	}
	if !reflect.DeepEqual(f.appObjects, want) {
		t.Fatalf("GATT objects:\n got %v\nwant %v", f.appObjects, want)
	}
	var props map[string]dbus.Variant
	if err := f.conn.Object(f.peer, f.advPath).Call(ifaceProps+".GetAll", 0, ifaceAdvert).Store(&props); err != nil {
		t.Fatal(err)
	}
	if props["Type"].Value() != "peripheral" || props["LocalName"].Value() != "Claude_Pi" || props["Discoverable"].Value() != true {
		t.Fatalf("advertisement %v", props)
	}
	// BlueZ moves LocalName to the scan response by itself, so the NUS UUID
	// fits the advertising data (3 + 18 bytes) and service filters see it.
	// ScanResponseServiceUUIDs would be dropped silently by BlueZ 5.66.
	if got := props["ServiceUUIDs"].Value(); !reflect.DeepEqual(got, []string{uuidNUS}) {
		t.Fatalf("ServiceUUIDs = %v, want the NUS UUID in the advertising data", got)
	}
	if _, ok := props["ScanResponseServiceUUIDs"]; ok {
		t.Fatalf("ScanResponseServiceUUIDs is ignored by BlueZ 5.66: %v", props)
	}
}

func TestOpenModeFlagsHaveNoEncryption(t *testing.T) {
	r := start(t, Options{Security: drv.Open, Name: "Claude"})
	r.fake.waitCall("adv")
	r.fake.mu.Lock()
	defer r.fake.mu.Unlock()
	rx := r.fake.appObjects["/org/claudepi/nus/service0/char0"][ifaceGattChar]["Flags"].Value()
	tx := r.fake.appObjects["/org/claudepi/nus/service0/char1"][ifaceGattChar]["Flags"].Value()
	if !reflect.DeepEqual(rx, []string{"write-without-response", "write"}) || !reflect.DeepEqual(tx, []string{"notify"}) {
		t.Fatalf("open flags rx %v tx %v", rx, tx)
	}
	var props map[string]dbus.Variant
	if err := r.fake.conn.Object(r.fake.peer, r.fake.advPath).Call(ifaceProps+".GetAll", 0, ifaceAdvert).Store(&props); err != nil {
		t.Fatal(err)
	}
	if got := props["ServiceUUIDs"].Value(); !reflect.DeepEqual(got, []string{uuidNUS}) {
		t.Fatalf("ServiceUUIDs = %v", got)
	}
}

const dev = dbus.ObjectPath("/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF")

func connect(r *rig) {
	r.t.Helper()
	r.fake.waitCall("adv")
	r.fake.addDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(false), "Paired": dbus.MakeVariant(false)})
	r.fake.changeDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(true)})
	if ev := want[drv.Connected](r); ev.Central != "AA:BB:CC:DD:EE:FF" {
		r.t.Fatalf("connected %+v", ev)
	}
}

func TestWritesNotificationsAndSecurity(t *testing.T) {
	r := start(t, Options{})
	connect(r)
	if err := r.p.Notify([]byte("{}")); !errors.Is(err, drv.ErrNotSubscribed) {
		t.Fatalf("Notify before StartNotify = %v, want ErrNotSubscribed", err)
	}

	// The desktop's startNotifications() is the first protected access.
	tx := r.fake.peerObject("/org/claudepi/nus/service0/char1")
	if err := tx.Call(ifaceGattChar+".StartNotify", 0).Err; err != nil {
		t.Fatal(err)
	}
	if ev := want[drv.Secured](r); !ev.Encrypted {
		t.Fatal("StartNotify on a secure-notify characteristic must mean sec:true")
	}
	if ev := want[drv.Subscribed](r); !ev.On {
		t.Fatal("not subscribed")
	}

	// A write cut mid-UTF-8 arrives byte for byte; the MTU comes with it.
	line := []byte("{\"msg\":\"héllo ✓\"}\n")
	rx := r.fake.peerObject("/org/claudepi/nus/service0/char0")
	for _, part := range [][]byte{line[:10], line[10:]} {
		if err := rx.Call(ifaceGattChar+".WriteValue", 0, part, map[string]dbus.Variant{
			"mtu": dbus.MakeVariant(uint16(185)), "device": dbus.MakeVariant(dev), "type": dbus.MakeVariant("command"),
		}).Err; err != nil {
			t.Fatal(err)
		}
	}
	if ev := want[drv.MTUChanged](r); ev.MTU != 185 || r.p.MTU() != 185 {
		t.Fatalf("mtu event %d, MTU() %d, want 185", ev.MTU, r.p.MTU())
	}
	var got []byte
	got = append(got, want[drv.Received](r).Data...)
	got = append(got, want[drv.Received](r).Data...)
	if !bytes.Equal(got, line) {
		t.Fatalf("received %q, want %q", got, line)
	}

	// Notifications are PropertiesChanged on TX's Value, every byte intact.
	sigs := make(chan *dbus.Signal, 8)
	r.fake.conn.Signal(sigs)
	if err := r.fake.conn.AddMatchSignal(dbus.WithMatchObjectPath("/org/claudepi/nus/service0/char1")); err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte{0xA5}, 182)
	chunk[0] = '{'
	if err := r.p.Notify(chunk); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-sigs:
		changed := s.Body[1].(map[string]dbus.Variant)
		if s.Body[0] != ifaceGattChar || !bytes.Equal(changed["Value"].Value().([]byte), chunk) {
			t.Fatalf("notification signal %v", s.Body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification signal")
	}
	if err := r.p.Notify(make([]byte, 183)); err == nil || !strings.Contains(err.Error(), "MTU") {
		t.Fatalf("183-byte notification at MTU 185 = %v, want an MTU error", err)
	}
}

func TestPairingAgent(t *testing.T) {
	r := start(t, Options{})
	connect(r)
	agent := r.fake.peerObject("/org/claudepi/nus/agent")
	if err := agent.Call(ifaceAgent+".DisplayPasskey", 0, dev, uint32(4242), uint16(0)).Err; err != nil {
		t.Fatal(err)
	}
	if ev := want[drv.Passkey](r); ev.Code != 4242 || drv.FormatPasskey(ev.Code) != "004242" {
		t.Fatalf("passkey %+v", ev)
	}
	// Numeric comparison and just-works are refused: no MITM protection.
	for _, c := range []*dbus.Call{
		agent.Call(ifaceAgent+".RequestConfirmation", 0, dev, uint32(1)),
		agent.Call(ifaceAgent+".RequestAuthorization", 0, dev),
		agent.Call(ifaceAgent+".RequestPasskey", 0, dev),
	} {
		var de dbus.Error
		if !errors.As(c.Err, &de) || de.Name != "org.bluez.Error.Rejected" {
			t.Fatalf("%s = %v, want org.bluez.Error.Rejected", c.Method, c.Err)
		}
	}
	if err := agent.Call(ifaceAgent+".Cancel", 0).Err; err != nil {
		t.Fatal(err)
	}
	if ev := want[drv.PairingDone](r); ev.OK {
		t.Fatal("Cancel must end pairing unsuccessfully")
	}
	r.fake.changeDevice(dev, map[string]dbus.Variant{"Paired": dbus.MakeVariant(true)})
	if ev := want[drv.PairingDone](r); !ev.OK {
		t.Fatal("Paired=true must end pairing successfully")
	}
}

func TestDisconnectClearsLinkAndReadvertises(t *testing.T) {
	r := start(t, Options{})
	connect(r)
	if err := r.fake.peerObject("/org/claudepi/nus/service0/char1").Call(ifaceGattChar+".StartNotify", 0).Err; err != nil {
		t.Fatal(err)
	}
	want[drv.Subscribed](r)
	r.fake.changeDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(false)})
	if ev := want[drv.Secured](r); ev.Encrypted {
		t.Fatal("sec must drop on disconnect")
	}
	want[drv.Disconnected](r)
	r.fake.waitCall("unadv")
	r.fake.waitCall("adv")
	if err := r.p.Notify([]byte("{}")); !errors.Is(err, drv.ErrNotSubscribed) {
		t.Fatalf("Notify after disconnect = %v; lines must not be queued across connections", err)
	}
	if r.p.MTU() != drv.DefaultMTU {
		t.Fatalf("MTU after disconnect = %d", r.p.MTU())
	}
}

func TestRemoveBondsRemovesOnlyPairedDevices(t *testing.T) {
	r := start(t, Options{})
	r.fake.waitCall("adv")
	paired := dbus.ObjectPath("/org/bluez/hci0/dev_11_22_33_44_55_66")
	bonded := dbus.ObjectPath("/org/bluez/hci0/dev_11_22_33_44_55_77")
	stranger := dbus.ObjectPath("/org/bluez/hci0/dev_11_22_33_44_55_88")
	r.fake.addDevice(paired, map[string]dbus.Variant{"Paired": dbus.MakeVariant(true)})
	r.fake.addDevice(bonded, map[string]dbus.Variant{"Paired": dbus.MakeVariant(false), "Bonded": dbus.MakeVariant(true)})
	r.fake.addDevice(stranger, map[string]dbus.Variant{"Paired": dbus.MakeVariant(false)})
	if n, err := r.p.RemoveBonds(); err != nil || n != 2 {
		t.Fatalf("RemoveBonds = %d, %v, want 2 removed", n, err)
	}
	r.fake.mu.Lock()
	defer r.fake.mu.Unlock()
	if len(r.fake.removed) != 2 || r.fake.devices[stranger] == nil {
		t.Fatalf("removed %v, want the paired and the bonded device only", r.fake.removed)
	}
}

// The Pi's "Forget Bluetooth pairing?" (and unpair) with the desktop
// connected and bonded: every bond goes, the desktop's link with it, the
// adapter is pairable again and the advertisement is back, so the desktop
// can pair afresh with a new passkey.
func TestRemoveBondsDropsTheCentralAndIsPairableAgain(t *testing.T) {
	r := start(t, Options{})
	connect(r)
	r.fake.changeDevice(dev, map[string]dbus.Variant{"Paired": dbus.MakeVariant(true)})
	want[drv.PairingDone](r)
	old := dbus.ObjectPath("/org/bluez/hci0/dev_11_22_33_44_55_66")
	r.fake.addDevice(old, map[string]dbus.Variant{"Bonded": dbus.MakeVariant(true)})
	r.fake.mu.Lock()
	r.fake.unpairable = true // a PairableTimeout ran out
	regs := r.fake.advRegs
	r.fake.mu.Unlock()

	n, err := r.p.RemoveBonds()
	if err != nil || n != 2 {
		t.Fatalf("RemoveBonds = %d, %v, want both bonds removed", n, err)
	}
	if ev := want[drv.Disconnected](r); ev.Central != "AA:BB:CC:DD:EE:FF" {
		t.Fatalf("disconnected %+v, want the bonded desktop", ev)
	}
	if ev := want[drv.Advertising](r); !ev.On {
		t.Fatalf("after the bonds went: %+v, want advertising", ev)
	}
	r.fake.mu.Lock()
	defer r.fake.mu.Unlock()
	if len(r.fake.devices) != 0 || r.fake.unpairable || r.fake.advRegs <= regs {
		t.Fatalf("devices left %v, pairable %v, advertisement registered again %v: want none, true, true",
			r.fake.devices, !r.fake.unpairable, r.fake.advRegs > regs)
	}
}

func TestRecoversWhenBluetoothdRestarts(t *testing.T) {
	addr := startBus(t)
	first := newFakeBlueZ(t, addr)
	p, err := New(dial(t, addr), &Options{Retry: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &rig{t: t, p: p, events: make(chan drv.Event, 64)}
	go p.Run(ctx, r.events)
	first.waitCall("app")
	want[drv.Advertising](r)

	first.conn.Close() // bluetoothd exits
	if ev := want[drv.Advertising](r); ev.On || ev.Err == nil {
		t.Fatalf("after bluetoothd exit: %+v, want off with a reason", ev)
	}
	second := newFakeBlueZ(t, addr) // systemd restarts it
	second.waitCall("agent")
	second.waitCall("app")
	second.waitCall("adv")
	if ev := want[drv.Advertising](r); !ev.On {
		t.Fatalf("after bluetoothd restart: %+v", ev)
	}
}

func TestNoAdapterIsReportedAndRetried(t *testing.T) {
	addr := startBus(t)
	fake := newFakeBlueZ(t, addr)
	fake.mu.Lock()
	fake.noAdapter = true
	fake.mu.Unlock()
	p, err := New(dial(t, addr), &Options{Retry: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &rig{t: t, p: p, events: make(chan drv.Event, 64)}
	go p.Run(ctx, r.events)
	ev := want[drv.Advertising](r)
	if ev.On || ev.Err == nil || !strings.Contains(ev.Err.Error(), "no Bluetooth adapter") {
		t.Fatalf("no adapter: %+v", ev)
	}
	fake.mu.Lock()
	fake.noAdapter = false // the user fixed config.txt and rebooted the UART
	fake.mu.Unlock()
	fake.waitCall("adv")
}

func TestNewValidatesName(t *testing.T) {
	for _, name := range []string{"Pi", "claude_pi", "Claude_Pi_with_a_very_long_name"} {
		if _, err := New(&dbus.Conn{}, &Options{Name: name}); err == nil {
			t.Errorf("New(name %q) accepted a name the desktop would not list or that does not fit", name)
		}
	}
	if _, err := New(nil, nil); err == nil {
		t.Error("New(nil conn) must fail")
	}
}

// A central bluetoothd has never seen is announced by InterfacesAdded with
// Connected already true, and nothing else: the first pairing of every
// desktop. The passkey must still go away when pairing ends.
func TestNeverSeenCentralAnnouncedByInterfacesAdded(t *testing.T) {
	synced := make(chan struct{}, 4)
	r := start(t, Options{SyncStorage: func() { synced <- struct{}{} }})
	r.fake.waitCall("adv")
	r.fake.addDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(true), "Paired": dbus.MakeVariant(false)})
	if ev := want[drv.Connected](r); ev.Central != "AA:BB:CC:DD:EE:FF" {
		t.Fatalf("connected %+v", ev)
	}
	agent := r.fake.peerObject("/org/claudepi/nus/agent")
	if err := agent.Call(ifaceAgent+".DisplayPasskey", 0, dev, uint32(123456), uint16(0)).Err; err != nil {
		t.Fatal(err)
	}
	want[drv.Passkey](r)
	r.fake.changeDevice(dev, map[string]dbus.Variant{"Paired": dbus.MakeVariant(true)})
	if ev := want[drv.PairingDone](r); !ev.OK {
		t.Fatal("pairing of a never-seen central did not finish")
	}
	// The new bond is flushed to the disk (syncBond): at once, and again
	// once bluetoothd may have stored the keys.
	for i := range 2 {
		select {
		case <-synced:
		case <-time.After(bondSyncAgain + 5*time.Second):
			t.Fatalf("sync %d of 2 after pairing never came", i+1)
		}
	}
	select {
	case <-synced:
		t.Fatal("more than two syncs for one pairing")
	default:
	}
	// A device on another adapter is not ours.
	r.fake.addDevice("/org/bluez/hci1/dev_11_22_33_44_55_66", map[string]dbus.Variant{"Connected": dbus.MakeVariant(true)})
	r.fake.changeDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(false)})
	if ev := want[drv.Disconnected](r); ev.Central != "AA:BB:CC:DD:EE:FF" {
		t.Fatalf("after a device on hci1 connected, disconnect reported %+v", ev)
	}
}

// BlueZ keeps a bonded central's CCC value across connections: when the
// desktop comes back and writes the CCCD again, the value is unchanged and
// bluetoothd calls no StartNotify. Replies must flow anyway.
func TestBondedReconnectStaysSubscribed(t *testing.T) {
	r := start(t, Options{})
	connect(r)
	tx := r.fake.peerObject("/org/claudepi/nus/service0/char1")
	if err := tx.Call(ifaceGattChar+".StartNotify", 0).Err; err != nil {
		t.Fatal(err)
	}
	want[drv.Subscribed](r)
	r.fake.changeDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(false)})
	want[drv.Disconnected](r)
	if err := r.p.Notify([]byte("{}")); !errors.Is(err, drv.ErrNotSubscribed) {
		t.Fatalf("Notify with no central = %v; bluetoothd would hold it for the bonded device", err)
	}
	r.fake.changeDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(true)})
	want[drv.Connected](r)
	if ev := want[drv.Subscribed](r); !ev.On {
		t.Fatal("a bonded central that reconnects is still subscribed in bluetoothd")
	}
	if err := r.p.Notify([]byte("{}")); err != nil {
		t.Fatalf("Notify after a bonded reconnect = %v, want it sent", err)
	}
	// StopNotify (the last subscriber went) ends it, across reconnects too.
	if err := tx.Call(ifaceGattChar+".StopNotify", 0).Err; err != nil {
		t.Fatal(err)
	}
	if ev := want[drv.Subscribed](r); ev.On {
		t.Fatal("StopNotify must unsubscribe")
	}
	if err := r.p.Notify([]byte("{}")); !errors.Is(err, drv.ErrNotSubscribed) {
		t.Fatalf("Notify after StopNotify = %v", err)
	}
}

// A write names its device; if its Connected signal was not handled yet
// (or the central was connected before we started), the write adopts it.
func TestWriteAdoptsUnannouncedCentral(t *testing.T) {
	r := start(t, Options{})
	r.fake.waitCall("adv")
	r.fake.mu.Lock()
	r.fake.devices[dev] = map[string]dbus.Variant{"Connected": dbus.MakeVariant(false)} // no signal
	r.fake.mu.Unlock()
	rx := r.fake.peerObject("/org/claudepi/nus/service0/char0")
	if err := rx.Call(ifaceGattChar+".WriteValue", 0, []byte("{}\n"), map[string]dbus.Variant{"device": dbus.MakeVariant(dev)}).Err; err != nil {
		t.Fatal(err)
	}
	if ev := want[drv.Connected](r); ev.Central != "AA:BB:CC:DD:EE:FF" {
		t.Fatalf("connected %+v", ev)
	}
	want[drv.Received](r)
	// The signal that comes late announces nothing twice.
	r.fake.changeDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(true)})
	if err := rx.Call(ifaceGattChar+".WriteValue", 0, []byte("{}\n"), map[string]dbus.Variant{"device": dbus.MakeVariant(dev)}).Err; err != nil {
		t.Fatal(err)
	}
	for {
		switch ev := want[drv.Event](r).(type) {
		case drv.Connected:
			t.Fatalf("central announced twice: %+v", ev)
		case drv.Received:
			return
		}
	}
}

func TestAdapterChoiceIsDeterministicAndConfigurable(t *testing.T) {
	capable := map[string]map[string]dbus.Variant{ifaceAdapter: {}, ifaceGattManager: {}, ifaceAdvManager: {}}
	objs := managedObjects{
		"/org/bluez":       {ifaceAgentMgr: {}},
		"/org/bluez/hci10": capable,
		"/org/bluez/hci2":  capable,
		"/org/bluez/hci1":  {ifaceAdapter: {}}, // BR/EDR only: no LE advertising
		"/org/bluez/hci3":  capable,
	}
	pick := func(name string) (string, error) {
		p := &Peripheral{opts: Options{Adapter: name}}
		a, _, err := p.findAdapter(objs)
		return string(a), err
	}
	// Map order differs between calls; the choice must not.
	for range 20 {
		if a, err := pick(""); a != "/org/bluez/hci2" || err != nil {
			t.Fatalf("default adapter = %q, %v; want hci2, the lowest-numbered capable one", a, err)
		}
	}
	if a, err := pick("hci10"); a != "/org/bluez/hci10" || err != nil {
		t.Fatalf("adapter hci10 = %q, %v", a, err)
	}
	_, err := pick("hci7")
	if err == nil || !strings.Contains(err.Error(), "[ble] adapter") || !strings.Contains(err.Error(), "[hci1 hci2 hci3 hci10]") {
		t.Fatalf("missing adapter: %v; want the [ble] adapter key and the adapters there are", err)
	}
	_, err = pick("hci1")
	if err == nil || !strings.Contains(err.Error(), "cannot serve GATT") || !strings.Contains(err.Error(), "[hci2 hci3 hci10]") {
		t.Fatalf("incapable adapter: %v; want why, and the capable ones", err)
	}
}

// The advertisement goes to the adapter named in Options.Adapter.
func TestRegistersOnTheNamedAdapter(t *testing.T) {
	addr := startBus(t)
	fake := newFakeBlueZ(t, addr)
	fake.addAdapter("/org/bluez/hci1", true)
	p, err := New(dial(t, addr), &Options{Adapter: "hci1", Retry: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Run(ctx, make(chan drv.Event, 64))
	fake.waitCall("adv")
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.advAdapter != "/org/bluez/hci1" {
		t.Fatalf("advertising on %s, want hci1", fake.advAdapter)
	}
}

// A new pairing leaves only its own bond: the desktop's unpair may never
// come (Forget during a write), and a desktop that pairs again is a new
// identity whose old bond would linger.
func TestNewPairingRemovesOldBonds(t *testing.T) {
	r := start(t, Options{})
	r.fake.waitCall("adv")
	stale := dbus.ObjectPath("/org/bluez/hci0/dev_11_22_33_44_55_66")
	other := dbus.ObjectPath("/org/bluez/hci1/dev_11_22_33_44_55_77") // not our adapter
	r.fake.addDevice(stale, map[string]dbus.Variant{"Paired": dbus.MakeVariant(true)})
	r.fake.addDevice(other, map[string]dbus.Variant{"Paired": dbus.MakeVariant(true)})
	r.fake.addDevice(dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(true), "Paired": dbus.MakeVariant(false)})
	want[drv.Connected](r)
	r.fake.changeDevice(dev, map[string]dbus.Variant{"Paired": dbus.MakeVariant(true)})
	want[drv.PairingDone](r)
	r.fake.waitCall("remove")
	r.fake.mu.Lock()
	defer r.fake.mu.Unlock()
	if !reflect.DeepEqual(r.fake.removed, []dbus.ObjectPath{stale}) {
		t.Fatalf("removed %v, want only the old bond on our adapter", r.fake.removed)
	}
}
