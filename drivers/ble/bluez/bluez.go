// Package bluez is the BLE backend for a Pi running BlueZ: NUS as a GATT
// application over D-Bus, an LE advertisement, and a DisplayOnly pairing
// agent, so the desktop pairs with LE Secure Connections and a passkey shown
// on the Pi's screen (buddy spec §4).
//
// BlueZ owns the radio, the ATT MTU exchange and the bonds; this package only
// registers objects with bluetoothd and translates its calls and signals
// into ble.Events. It re-registers everything when bluetoothd restarts and
// re-advertises after a disconnect.
package bluez

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// Options configures the backend. The zero value works.
type Options struct {
	// Name is the advertised local name; ble.DefaultName when empty.
	Name string
	// Security is ble.Bonded (default) or ble.Open.
	Security drv.Security
	// Adapter picks an adapter by name ("hci0", the [ble] adapter key);
	// empty takes the lowest-numbered one that supports GATT servers and LE
	// advertising, so the choice is the same on every start.
	Adapter string
	// Root is where our objects are exported; "/org/claudepi/nus" if empty.
	Root dbus.ObjectPath
	// Retry is how often registration is retried while bluetoothd or the
	// adapter is missing; 2 s if zero.
	Retry time.Duration
	// Logger receives what BlueZ did; slog.Default() if nil.
	Logger *slog.Logger
	// SecureWithin is how long a central may stay connected in bonded mode
	// before it has secured the link; then it is disconnected.
	// DefaultSecureWithin if zero; negative never disconnects.
	SecureWithin time.Duration
	// SyncStorage flushes the file systems once a central has paired
	// (link.go, syncBond); nil is sync(2). Tests count the calls.
	SyncStorage func()
}

// Peripheral serves NUS through BlueZ. It implements ble.Peripheral.
type Peripheral struct {
	conn  *dbus.Conn
	opts  Options
	paths objectPaths
	log   *slog.Logger
	kick  chan string // asks Run to re-register (reason)
	rxq   *rxQueue    // RX writes in arrival order; set by Dial

	mu      sync.Mutex
	ctx     context.Context
	events  chan<- drv.Event
	adapter dbus.ObjectPath
	central dbus.ObjectPath
	// notifying mirrors bluetoothd's subscriber count on TX, which is not
	// the link's: BlueZ keeps a bonded central's CCC value across
	// connections and calls StartNotify/StopNotify only when the count
	// goes 0→1 or 1→0 (src/gatt-database.c). A bonded desktop that comes
	// back is therefore still subscribed, with no new StartNotify.
	notifying bool
	secured   bool
	mtu       int
	// secureWait disconnects the central unless it secures the link in
	// time (unsecured.go); nil when no central waits.
	secureWait *time.Timer
}

var _ drv.Peripheral = (*Peripheral)(nil)

// New returns a Peripheral on conn. It does not touch the bus until Run.
// Prefer Dial: on a connection New did not make, godbus may hand RX writes
// that are in flight together to the owner out of order (rxorder.go).
func New(conn *dbus.Conn, opts *Options) (*Peripheral, error) {
	if conn == nil {
		return nil, errors.New("bluez: no D-Bus connection")
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = drv.DefaultName
	}
	if err := drv.ValidateName(o.Name); err != nil {
		return nil, err
	}
	if o.Root == "" {
		o.Root = "/org/claudepi/nus"
	}
	if !o.Root.IsValid() {
		return nil, fmt.Errorf("bluez: invalid object path %q", o.Root)
	}
	if o.Retry <= 0 {
		o.Retry = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.SecureWithin == 0 {
		o.SecureWithin = DefaultSecureWithin
	}
	return &Peripheral{
		conn:  conn,
		opts:  o,
		paths: pathsUnder(o.Root),
		log:   o.Logger,
		kick:  make(chan string, 4),
		mtu:   drv.DefaultMTU,
	}, nil
}

// String names the backend for logs and status lines.
func (p *Peripheral) String() string { return "bluez(" + p.opts.Name + ")" }

// CanPair is true: BlueZ does LE Secure Connections and keeps bonds.
func (p *Peripheral) CanPair() bool { return true }

// MTU is the ATT MTU BlueZ last reported for the central.
func (p *Peripheral) MTU() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mtu
}

// Run exports our objects, registers them with bluetoothd, and reports
// events until ctx ends. While bluetoothd or the adapter is missing it
// retries every Options.Retry and reports Advertising{On: false}.
func (p *Peripheral) Run(ctx context.Context, events chan<- drv.Event) error {
	p.mu.Lock()
	p.ctx, p.events = ctx, events
	p.mu.Unlock()
	if p.rxq != nil {
		go p.pumpRX(ctx)
	}
	if err := p.export(); err != nil {
		return err
	}
	defer p.unexport()

	sigs := make(chan *dbus.Signal, 64)
	p.conn.Signal(sigs)
	defer p.conn.RemoveSignal(sigs)
	matches := [][]dbus.MatchOption{
		{dbus.WithMatchSender("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, busName)},
		{dbus.WithMatchSender(busName), dbus.WithMatchInterface(ifaceProps), dbus.WithMatchMember("PropertiesChanged"), dbus.WithMatchArg(0, ifaceDevice)},
		{dbus.WithMatchSender(busName), dbus.WithMatchInterface(ifaceObjManager), dbus.WithMatchMember("InterfacesAdded")},
		{dbus.WithMatchSender(busName), dbus.WithMatchInterface(ifaceObjManager), dbus.WithMatchMember("InterfacesRemoved")},
	}
	for _, m := range matches {
		if err := p.conn.AddMatchSignalContext(ctx, m...); err != nil {
			return fmt.Errorf("bluez: subscribing to BlueZ signals: %w", err)
		}
		defer p.conn.RemoveMatchSignal(m...)
	}

	retry := time.NewTimer(0) // register at once
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			p.unregister()
			return nil
		case <-retry.C:
			p.tryRegister(retry)
		case why := <-p.kick:
			p.log.Info("re-registering with BlueZ", "why", why)
			retry.Stop()
			p.tryRegister(retry)
		case s, ok := <-sigs:
			if !ok {
				// godbus closes signal channels when the bus connection dies.
				p.dropCentral()
				return errors.New("bluez: lost the D-Bus system bus connection")
			}
			p.signal(s, retry)
		}
	}
}

func (p *Peripheral) tryRegister(retry *time.Timer) {
	if err := p.register(); err != nil {
		p.log.Warn("BlueZ registration failed; retrying", "err", err, "in", p.opts.Retry)
		p.emit(drv.Advertising{On: false, Err: err})
		retry.Reset(p.opts.Retry)
		return
	}
	p.log.Info("advertising", "name", p.opts.Name, "adapter", path.Base(string(p.adapter)), "security", p.opts.Security.String())
	p.emit(drv.Advertising{On: true})
}

// export puts our objects on the bus. BlueZ finds the GATT objects through
// the ObjectManager at the application root.
func (p *Peripheral) export() error {
	exports := []struct {
		v     interface{}
		path  dbus.ObjectPath
		iface string
	}{
		{app{p}, p.paths.app, ifaceObjManager},
		{rxChar{p}, p.paths.rx, ifaceGattChar},
		{txChar{p}, p.paths.tx, ifaceGattChar},
		{advert{p}, p.paths.advert, ifaceAdvert},
		{advert{p}, p.paths.advert, ifaceProps},
		{agent{p}, p.paths.agent, ifaceAgent},
	}
	for _, e := range exports {
		if err := p.conn.Export(e.v, e.path, e.iface); err != nil {
			return fmt.Errorf("bluez: exporting %s on %s: %w", e.iface, e.path, err)
		}
	}
	return nil
}

func (p *Peripheral) unexport() {
	for _, x := range []struct {
		path  dbus.ObjectPath
		iface string
	}{
		{p.paths.app, ifaceObjManager}, {p.paths.rx, ifaceGattChar}, {p.paths.tx, ifaceGattChar},
		{p.paths.advert, ifaceAdvert}, {p.paths.advert, ifaceProps}, {p.paths.agent, ifaceAgent},
	} {
		_ = p.conn.Export(nil, x.path, x.iface)
	}
}

// call invokes a BlueZ method with a bounded wait: a wedged bluetoothd must
// not wedge the actor.
func (p *Peripheral) call(obj dbus.ObjectPath, method string, args ...interface{}) *dbus.Call {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return p.conn.Object(busName, obj).CallWithContext(ctx, method, 0, args...)
}

type managedObjects = map[dbus.ObjectPath]map[string]map[string]dbus.Variant

func (p *Peripheral) managedObjects() (managedObjects, error) {
	var objs managedObjects
	if err := p.call("/", ifaceObjManager+".GetManagedObjects").Store(&objs); err != nil {
		return nil, fmt.Errorf("bluez: bluetoothd not answering on the system bus (is bluetooth.service running?): %w", err)
	}
	return objs, nil
}

// findAdapter picks the adapter to serve on: the one named in
// Options.Adapter, or else the lowest-numbered capable one. GetManagedObjects
// is a map, so without the sort two adapters would be picked at random.
func (p *Peripheral) findAdapter(objs managedObjects) (dbus.ObjectPath, map[string]dbus.Variant, error) {
	var paths []dbus.ObjectPath
	for path0, ifaces := range objs {
		if _, isAdapter := ifaces[ifaceAdapter]; isAdapter {
			paths = append(paths, path0)
		}
	}
	slices.SortFunc(paths, compareAdapters)
	var names, capable []string
	for _, path0 := range paths {
		name := path.Base(string(path0))
		names = append(names, name)
		_, gatt := objs[path0][ifaceGattManager]
		_, adv := objs[path0][ifaceAdvManager]
		if !gatt || !adv {
			continue
		}
		capable = append(capable, name)
		if p.opts.Adapter == "" || name == p.opts.Adapter {
			return path0, objs[path0][ifaceAdapter], nil
		}
	}
	switch {
	case p.opts.Adapter != "" && slices.Contains(names, p.opts.Adapter):
		return "", nil, fmt.Errorf("bluez: adapter %q cannot serve GATT with LE advertising (capable: %v): set [ble] adapter to one of those, or update BlueZ to 5.50 or later", p.opts.Adapter, capable)
	case p.opts.Adapter != "":
		return "", nil, fmt.Errorf("bluez: adapter %q not found (have %v): set [ble] adapter in the config to one of those (`bluetoothctl list` shows them), or remove the key to take the first", p.opts.Adapter, names)
	case len(names) > 0:
		return "", nil, fmt.Errorf("bluez: adapters %v cannot serve GATT with LE advertising: update BlueZ to 5.50 or later", names)
	}
	return "", nil, errors.New("bluez: no Bluetooth adapter: on a Pi, enable the UART Bluetooth (remove dtoverlay=disable-bt from config.txt) and check `bluetoothctl list`")
}

// compareAdapters orders /org/bluez/hci2 before /org/bluez/hci10.
func compareAdapters(a, b dbus.ObjectPath) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(string(a), string(b))
}

// register makes bluetoothd serve us: adapter powered, agent, GATT app,
// advertisement. Each step tolerates "already done" so it can be repeated.
func (p *Peripheral) register() error {
	objs, err := p.managedObjects()
	if err != nil {
		return err
	}
	adapter, props, err := p.findAdapter(objs)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.adapter = adapter
	// A (re)registered application starts with no subscribers in
	// bluetoothd: it drops CCC state with the old application's handles.
	p.notifying = false
	p.mu.Unlock()
	if powered, _ := props["Powered"].Value().(bool); !powered {
		if err := p.call(adapter, ifaceProps+".Set", ifaceAdapter, "Powered", dbus.MakeVariant(true)).Err; err != nil {
			return fmt.Errorf("bluez: powering on %s: %w (is it blocked? try `rfkill unblock bluetooth`)", path.Base(string(adapter)), err)
		}
	}
	steps := []struct {
		what string
		call *dbus.Call
	}{
		{"registering the pairing agent", p.call("/org/bluez", ifaceAgentMgr+".RegisterAgent", p.paths.agent, "DisplayOnly")},
		{"making our agent the default", p.call("/org/bluez", ifaceAgentMgr+".RequestDefaultAgent", p.paths.agent)},
		{"registering the NUS GATT application", p.call(adapter, ifaceGattManager+".RegisterApplication", p.paths.app, map[string]dbus.Variant{})},
		{"registering the advertisement", p.call(adapter, ifaceAdvManager+".RegisterAdvertisement", p.paths.advert, map[string]dbus.Variant{})},
	}
	for _, s := range steps {
		if err := s.call.Err; err != nil && !isAlreadyExists(err) {
			return fmt.Errorf("bluez: %s: %w", s.what, err)
		}
	}
	return nil
}

// readvertise restarts advertising: BlueZ stops a peripheral advertisement
// when a central connects, and the desktop reconnects only if it can find us.
func (p *Peripheral) readvertise() {
	p.mu.Lock()
	adapter := p.adapter
	p.mu.Unlock()
	_ = p.call(adapter, ifaceAdvManager+".UnregisterAdvertisement", p.paths.advert).Err
	if err := p.call(adapter, ifaceAdvManager+".RegisterAdvertisement", p.paths.advert, map[string]dbus.Variant{}).Err; err != nil && !isAlreadyExists(err) {
		p.log.Warn("restarting advertising failed; retrying", "err", err)
		p.requestRegister("advertising restart failed")
		return
	}
	p.emit(drv.Advertising{On: true})
}

// unregister is best effort: bluetoothd also forgets us when we leave the bus.
func (p *Peripheral) unregister() {
	p.mu.Lock()
	adapter := p.adapter
	p.mu.Unlock()
	if adapter == "" {
		return
	}
	_ = p.call(adapter, ifaceAdvManager+".UnregisterAdvertisement", p.paths.advert).Err
	_ = p.call(adapter, ifaceGattManager+".UnregisterApplication", p.paths.app).Err
	_ = p.call("/org/bluez", ifaceAgentMgr+".UnregisterAgent", p.paths.agent).Err
}

func (p *Peripheral) requestRegister(why string) {
	select {
	case p.kick <- why:
	default: // one pending request is enough
	}
}

func isAlreadyExists(err error) bool {
	var de dbus.Error
	return errors.As(err, &de) && de.Name == "org.bluez.Error.AlreadyExists"
}

func errUnknownInterface(iface string) error { return fmt.Errorf("unknown interface %s", iface) }

// centralName turns /org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF into AA:BB:CC:DD:EE:FF.
func centralName(dev dbus.ObjectPath) string {
	return strings.ReplaceAll(strings.TrimPrefix(path.Base(string(dev)), "dev_"), "_", ":")
}
