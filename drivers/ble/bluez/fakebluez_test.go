package bluez

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// startBus runs a private dbus-daemon for one test. A test process plays
// bluetoothd on it, so nothing touches the machine's real system bus.
func startBus(t testing.TB) string {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("dbus-daemon missing: .ci/run installs Debian's dbus package")
		}
		t.Skip("dbus-daemon not installed (apt-get install dbus)")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "bus.conf")
	sock := filepath.Join(dir, "bus")
	err = os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=`+sock+`</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_type="method_return"/>
    <allow send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="signal"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
  </policy>
</busconfig>
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(daemon, "--config-file="+conf, "--nofork", "--print-address")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}

func dial(t testing.TB, addr string) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

const adapterPath = dbus.ObjectPath("/org/bluez/hci0")

// fakeBlueZ plays bluetoothd: it owns org.bluez, offers one adapter, and
// records what the peripheral registers. Like bluetoothd, it reads the GATT
// application back with GetManagedObjects when it is registered.
type fakeBlueZ struct {
	t    testing.TB
	conn *dbus.Conn

	mu          sync.Mutex
	peer        string // unique name of the peripheral's connection
	appPath     dbus.ObjectPath
	appObjects  map[dbus.ObjectPath]map[string]map[string]dbus.Variant
	advPath     dbus.ObjectPath
	agentPath   dbus.ObjectPath
	agentCap    string
	defaultAgt  dbus.ObjectPath
	advRegs     int
	advUnregs   int
	removed     []dbus.ObjectPath
	devices     map[dbus.ObjectPath]map[string]dbus.Variant
	noAdapter   bool
	registerErr *dbus.Error
	extra       map[dbus.ObjectPath]bool // more adapters: path -> can serve GATT + LE adverts
	advAdapter  dbus.ObjectPath          // where the advertisement was registered
	unpairable  bool                     // the adapter's Pairable is false

	calls chan string // "agent", "default-agent", "app", "adv", "unadv", "remove", "disconnect"
}

func newFakeBlueZ(t testing.TB, addr string) *fakeBlueZ {
	t.Helper()
	f := &fakeBlueZ{t: t, conn: dial(t, addr), devices: map[dbus.ObjectPath]map[string]dbus.Variant{}, calls: make(chan string, 64)}
	export := func(v interface{}, path dbus.ObjectPath, iface string) {
		if err := f.conn.Export(v, path, iface); err != nil {
			t.Fatal(err)
		}
	}
	export(fakeRoot{f}, "/", ifaceObjManager)
	export(fakeAgentMgr{f}, "/org/bluez", ifaceAgentMgr)
	export(fakeGattMgr{f}, adapterPath, ifaceGattManager)
	export(fakeAdvMgr{f, adapterPath}, adapterPath, ifaceAdvManager)
	export(fakeAdapter{f}, adapterPath, ifaceAdapter)
	export(fakeAdapterProps{f}, adapterPath, ifaceProps)
	reply, err := f.conn.RequestName(busName, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("fake bluetoothd cannot own %s: %v %v", busName, reply, err)
	}
	return f
}

// addAdapter adds another controller, as a second USB dongle would. One
// that is not capable lacks the GATT and advertising managers.
func (f *fakeBlueZ) addAdapter(path dbus.ObjectPath, capable bool) {
	f.mu.Lock()
	if f.extra == nil {
		f.extra = map[dbus.ObjectPath]bool{}
	}
	f.extra[path] = capable
	f.mu.Unlock()
	if capable {
		for _, e := range []struct {
			v     interface{}
			iface string
		}{{fakeGattMgr{f}, ifaceGattManager}, {fakeAdvMgr{f, path}, ifaceAdvManager}} {
			if err := f.conn.Export(e.v, path, e.iface); err != nil {
				f.t.Fatal(err)
			}
		}
	}
}

func (f *fakeBlueZ) record(what string) {
	select {
	case f.calls <- what:
	default:
	}
}

// waitCall waits until the peripheral made the named call.
func (f *fakeBlueZ) waitCall(what string) {
	f.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case got := <-f.calls:
			if got == what {
				return
			}
		case <-deadline:
			f.t.Fatalf("fake bluetoothd: no %q call within 5 s", what)
		}
	}
}

// peerObject is an object of the peripheral, called as bluetoothd would.
func (f *fakeBlueZ) peerObject(path dbus.ObjectPath) dbus.BusObject {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conn.Object(f.peer, path)
}

// addDevice makes a device appear and connect, as when the desktop connects.
func (f *fakeBlueZ) addDevice(dev dbus.ObjectPath, props map[string]dbus.Variant) {
	f.mu.Lock()
	f.devices[dev] = props
	f.mu.Unlock()
	if err := f.conn.Export(fakeDevice{f, dev}, dev, ifaceDevice); err != nil {
		f.t.Fatal(err)
	}
	f.conn.Emit("/", ifaceObjManager+".InterfacesAdded", dev, map[string]map[string]dbus.Variant{ifaceDevice: props})
}

func (f *fakeBlueZ) changeDevice(dev dbus.ObjectPath, changed map[string]dbus.Variant) {
	f.mu.Lock()
	for k, v := range changed {
		f.devices[dev][k] = v
	}
	f.mu.Unlock()
	if err := f.conn.Emit(dev, ifaceProps+".PropertiesChanged", ifaceDevice, changed, []string{}); err != nil {
		f.t.Fatal(err)
	}
}

type fakeRoot struct{ f *fakeBlueZ }

func (r fakeRoot) GetManagedObjects() (map[dbus.ObjectPath]map[string]map[string]dbus.Variant, *dbus.Error) {
	f := r.f
	f.mu.Lock()
	defer f.mu.Unlock()
	objs := map[dbus.ObjectPath]map[string]map[string]dbus.Variant{
		"/org/bluez": {ifaceAgentMgr: {}},
	}
	if !f.noAdapter {
		objs[adapterPath] = map[string]map[string]dbus.Variant{
			ifaceAdapter: {"Powered": dbus.MakeVariant(true), "Address": dbus.MakeVariant("B8:27:EB:00:00:01"),
				"Pairable": dbus.MakeVariant(!f.unpairable)},
			ifaceGattManager: {},
			ifaceAdvManager:  {},
		}
	}
	for path, capable := range f.extra {
		objs[path] = map[string]map[string]dbus.Variant{ifaceAdapter: {"Powered": dbus.MakeVariant(true)}}
		if capable {
			objs[path][ifaceGattManager] = map[string]dbus.Variant{}
			objs[path][ifaceAdvManager] = map[string]dbus.Variant{}
		}
	}
	for dev, props := range f.devices {
		objs[dev] = map[string]map[string]dbus.Variant{ifaceDevice: props}
	}
	return objs, nil
}

type fakeAgentMgr struct{ f *fakeBlueZ }

func (m fakeAgentMgr) RegisterAgent(sender dbus.Sender, agent dbus.ObjectPath, capability string) *dbus.Error {
	m.f.mu.Lock()
	m.f.peer, m.f.agentPath, m.f.agentCap = string(sender), agent, capability
	m.f.mu.Unlock()
	m.f.record("agent")
	return nil
}

func (m fakeAgentMgr) RequestDefaultAgent(agent dbus.ObjectPath) *dbus.Error {
	m.f.mu.Lock()
	m.f.defaultAgt = agent
	m.f.mu.Unlock()
	m.f.record("default-agent")
	return nil
}

func (m fakeAgentMgr) UnregisterAgent(agent dbus.ObjectPath) *dbus.Error { return nil }

type fakeGattMgr struct{ f *fakeBlueZ }

// RegisterApplication reads the application back, as bluetoothd does
// before it answers.
func (m fakeGattMgr) RegisterApplication(sender dbus.Sender, app dbus.ObjectPath, opts map[string]dbus.Variant) *dbus.Error {
	if m.f.registerErr != nil {
		return m.f.registerErr
	}
	var objs map[dbus.ObjectPath]map[string]map[string]dbus.Variant
	if err := m.f.conn.Object(string(sender), app).Call(ifaceObjManager+".GetManagedObjects", 0).Store(&objs); err != nil {
		return dbus.MakeFailedError(err)
	}
	m.f.mu.Lock()
	m.f.peer, m.f.appPath, m.f.appObjects = string(sender), app, objs
	m.f.mu.Unlock()
	m.f.record("app")
	return nil
}

func (m fakeGattMgr) UnregisterApplication(app dbus.ObjectPath) *dbus.Error { return nil }

type fakeAdvMgr struct {
	f       *fakeBlueZ
	adapter dbus.ObjectPath
}

func (m fakeAdvMgr) RegisterAdvertisement(sender dbus.Sender, adv dbus.ObjectPath, opts map[string]dbus.Variant) *dbus.Error {
	m.f.mu.Lock()
	m.f.peer, m.f.advPath, m.f.advAdapter = string(sender), adv, m.adapter
	m.f.advRegs++
	m.f.mu.Unlock()
	m.f.record("adv")
	return nil
}

func (m fakeAdvMgr) UnregisterAdvertisement(adv dbus.ObjectPath) *dbus.Error {
	m.f.mu.Lock()
	m.f.advUnregs++
	m.f.mu.Unlock()
	m.f.record("unadv")
	return nil
}

type fakeAdapter struct{ f *fakeBlueZ }

// RemoveDevice drops the device and, as bluetoothd does (after taking a
// connected device's link down), announces InterfacesRemoved.
func (a fakeAdapter) RemoveDevice(dev dbus.ObjectPath) *dbus.Error {
	a.f.mu.Lock()
	a.f.removed = append(a.f.removed, dev)
	delete(a.f.devices, dev)
	a.f.mu.Unlock()
	if err := a.f.conn.Emit("/", ifaceObjManager+".InterfacesRemoved", dev, []string{ifaceDevice}); err != nil {
		return dbus.MakeFailedError(err)
	}
	a.f.record("remove")
	return nil
}

// fakeAdapterProps takes the one adapter property the peripheral sets
// when it finds it off: Pairable.
type fakeAdapterProps struct{ f *fakeBlueZ }

func (p fakeAdapterProps) Set(iface, name string, v dbus.Variant) *dbus.Error {
	on, ok := v.Value().(bool)
	if iface != ifaceAdapter || name != "Pairable" || !ok {
		return dbus.MakeFailedError(errUnknownInterface(iface + "." + name))
	}
	p.f.mu.Lock()
	p.f.unpairable = !on
	p.f.mu.Unlock()
	p.f.record("pairable")
	return nil
}

// fakeDevice is a Device1: Disconnect takes the link down, as bluetoothd
// does, and says so with Connected: false.
type fakeDevice struct {
	f   *fakeBlueZ
	dev dbus.ObjectPath
}

func (d fakeDevice) Disconnect() *dbus.Error {
	d.f.mu.Lock()
	props, ok := d.f.devices[d.dev]
	d.f.mu.Unlock()
	if !ok {
		return dbus.NewError("org.bluez.Error.DoesNotExist", nil)
	}
	if connected, _ := props["Connected"].Value().(bool); !connected {
		return dbus.NewError("org.bluez.Error.NotConnected", nil)
	}
	d.f.record("disconnect")
	d.f.changeDevice(d.dev, map[string]dbus.Variant{"Connected": dbus.MakeVariant(false)})
	return nil
}
