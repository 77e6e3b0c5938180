package bluez

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// emit hands an event to the owner. It blocks (RX bytes must never be
// dropped) but gives up when Run's context ends.
func (p *Peripheral) emit(ev drv.Event) {
	p.mu.Lock()
	ctx, events := p.ctx, p.events
	p.mu.Unlock()
	if events == nil {
		return
	}
	select {
	case events <- ev:
	case <-ctx.Done():
	}
}

// received handles one RX write. In bonded mode BlueZ delivers it only over
// an authenticated, encrypted link, which is what sec:true means (spec §4.3).
func (p *Peripheral) received(value []byte, meta rxMeta) {
	// The write names its device: a central whose Connected signal we have
	// not handled yet (or that was connected before we started) is adopted
	// here, so the reply is not dropped for want of a central.
	if meta.device != "" {
		p.connected(meta.device)
	}
	var evs []drv.Event
	p.mu.Lock()
	if m := meta.mtu; int(m) != p.mtu && m >= drv.DefaultMTU {
		p.mtu = int(m)
		evs = append(evs, drv.MTUChanged{MTU: p.mtu})
	}
	if p.opts.Security == drv.Bonded && p.securedLocked() {
		evs = append(evs, drv.Secured{Encrypted: true})
	}
	p.mu.Unlock()
	for _, ev := range evs {
		p.emit(ev)
	}
	// BlueZ reuses nothing here, but the owner keeps the slice: copy anyway
	// so no future backend change can alias it.
	p.emit(drv.Received{Data: append([]byte(nil), value...)})
}

func (p *Peripheral) subscribed(on bool) {
	p.mu.Lock()
	p.notifying = on
	secure := on && p.central != "" && p.opts.Security == drv.Bonded && p.securedLocked()
	p.mu.Unlock()
	if secure {
		p.emit(drv.Secured{Encrypted: true})
	}
	p.emit(drv.Subscribed{On: on})
}

func (p *Peripheral) passkey(device dbus.ObjectPath, code uint32) {
	p.log.Info("pairing: showing passkey", "central", centralName(device))
	p.emit(drv.Passkey{Code: code})
}

func (p *Peripheral) pairingDone(ok bool) { p.emit(drv.PairingDone{OK: ok}) }

func (p *Peripheral) advertReleased() {
	p.emit(drv.Advertising{On: false, Err: errors.New("bluez: advertisement released by bluetoothd")})
	p.requestRegister("advertisement released")
}

// signal handles BlueZ's signals: bluetoothd coming and going, and Device1
// connection and pairing changes.
func (p *Peripheral) signal(s *dbus.Signal, retry *time.Timer) {
	switch s.Name {
	case "org.freedesktop.DBus.NameOwnerChanged":
		if len(s.Body) != 3 {
			return
		}
		newOwner, _ := s.Body[2].(string)
		if newOwner == "" {
			p.log.Warn("bluetoothd left the bus")
			p.dropCentral()
			p.mu.Lock()
			p.notifying = false // a new bluetoothd has no subscribers
			p.mu.Unlock()
			p.emit(drv.Advertising{On: false, Err: errors.New("bluez: bluetoothd stopped")})
			return
		}
		p.log.Info("bluetoothd is back; registering again")
		retry.Stop()
		p.tryRegister(retry)
	case ifaceProps + ".PropertiesChanged":
		if len(s.Body) < 2 {
			return
		}
		changed, _ := s.Body[1].(map[string]dbus.Variant)
		p.deviceChanged(s.Path, changed)
	case ifaceObjManager + ".InterfacesAdded":
		// A central bluetoothd has never seen (every first pairing, and
		// every one after unpair) appears here already Connected: true;
		// no PropertiesChanged follows for that.
		if len(s.Body) < 2 {
			return
		}
		dev, _ := s.Body[0].(dbus.ObjectPath)
		ifaces, _ := s.Body[1].(map[string]map[string]dbus.Variant)
		if props, ok := ifaces[ifaceDevice]; ok {
			p.deviceChanged(dev, props)
		}
	case ifaceObjManager + ".InterfacesRemoved":
		if len(s.Body) < 1 {
			return
		}
		if dev, ok := s.Body[0].(dbus.ObjectPath); ok && p.isCentral(dev) {
			p.dropCentral()
			p.readvertise()
		}
	}
}

func (p *Peripheral) isCentral(dev dbus.ObjectPath) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.central != "" && dev == p.central
}

func (p *Peripheral) deviceChanged(dev dbus.ObjectPath, changed map[string]dbus.Variant) {
	if v, ok := changed["Connected"]; ok {
		if connected, _ := v.Value().(bool); connected {
			p.connected(dev)
		} else if p.isCentral(dev) {
			p.dropCentral()
			p.readvertise()
		}
	}
	if v, ok := changed["Paired"]; ok {
		if paired, _ := v.Value().(bool); paired && p.isCentral(dev) {
			// The old bonds go first, so that whoever hears PairingDone
			// (the Forget flow, a test adding a device) never races this
			// clean-up: before, a bond made just after PairingDone could
			// be removed by it.
			p.removeBondsExcept(dev)
			p.syncBond()
			p.emit(drv.PairingDone{OK: true})
		}
	}
}

// bondSyncAgain is when syncBond flushes a second time: bluetoothd may
// store the bond's keys a moment after Paired changes.
const bondSyncAgain = 2 * time.Second

// syncBond gets the bond bluetoothd has just written onto the disk, now
// and again after bondSyncAgain. bluetoothd writes a new bond's info file
// with g_file_set_contents, which skips the fsync of a file's first write
// (drivers/ble/bluez/store says more): without this, a power cut in the
// seconds after pairing (ext4 commits every 5) can leave the file
// zero-filled and the bond gone. sync(2) needs no access to
// /var/lib/bluetooth, which is root's alone; it runs off this goroutine.
func (p *Peripheral) syncBond() {
	sync := p.opts.SyncStorage
	if sync == nil {
		sync = syncDisks
	}
	go sync()
	time.AfterFunc(bondSyncAgain, sync)
}

// removeBondsExcept keeps only the bond just made. The appliance serves one
// desktop, and the unpair command cannot be relied on to clear the old one:
// the desktop's Forget during a write never sends it (buddy spec §2.3), and
// a desktop that pairs afresh comes back as a new identity.
func (p *Peripheral) removeBondsExcept(keep dbus.ObjectPath) {
	objs, err := p.managedObjects()
	if err != nil {
		p.log.Warn("cannot list old bonds to remove them", "err", err)
		return
	}
	_, errs := p.removeBonds(objs, keep, "removed an old bond: a new central paired")
	for _, err := range errs {
		p.log.Warn("removing an old bond failed", "err", err)
	}
}

// removeBonds removes every bond of our adapter but keep's ("" keeps
// none) with the adapter's RemoveDevice, logging each one removed.
func (p *Peripheral) removeBonds(objs managedObjects, keep dbus.ObjectPath, why string) (removed int, errs []error) {
	adapter := p.adapterPath()
	for _, dev := range p.bondedDevices(objs) {
		if dev == keep {
			continue
		}
		if err := p.call(adapter, ifaceAdapter+".RemoveDevice", dev).Err; err != nil {
			errs = append(errs, fmt.Errorf("bluez: removing the bond of %s: %w", centralName(dev), err))
			continue
		}
		removed++
		p.log.Info(why, "central", centralName(dev))
	}
	return removed, errs
}

// connected makes dev the central, once: the Connected signal and the
// first write may both announce it. A bonded central comes back still
// subscribed in bluetoothd's eyes (see notifying), so that is reported too.
func (p *Peripheral) connected(dev dbus.ObjectPath) {
	p.mu.Lock()
	mine := p.adapter != "" && strings.HasPrefix(string(dev), string(p.adapter)+"/")
	if !mine || p.central == dev {
		p.mu.Unlock()
		return
	}
	p.central, p.mtu, p.secured = dev, drv.DefaultMTU, false
	p.waitSecureLocked(dev)
	notifying := p.notifying
	p.mu.Unlock()
	p.emit(drv.Connected{Central: centralName(dev)})
	if notifying {
		p.emit(drv.Subscribed{On: true})
	}
}

// dropCentral forgets the connected central and its link state, but not
// notifying, which is bluetoothd's and outlives the link.
func (p *Peripheral) dropCentral() {
	p.mu.Lock()
	dev, wasSecured := p.central, p.secured
	p.central, p.secured, p.mtu = "", false, drv.DefaultMTU
	p.stopSecureWaitLocked()
	p.mu.Unlock()
	if dev == "" {
		return
	}
	if wasSecured {
		p.emit(drv.Secured{Encrypted: false})
	}
	p.emit(drv.Disconnected{Central: centralName(dev)})
}

// Notify sends one notification as a PropertiesChanged signal on TX's
// Value, which is how a BlueZ GATT application notifies.
func (p *Peripheral) Notify(b []byte) error {
	p.mu.Lock()
	// Without a central, bluetoothd would hold the value for a bonded
	// device until it reconnects; lines are never queued across connections.
	notifying, mtu := p.notifying && p.central != "", p.mtu
	p.mu.Unlock()
	if !notifying {
		return drv.ErrNotSubscribed
	}
	if len(b) > mtu-3 {
		return fmt.Errorf("bluez: notification of %d bytes exceeds MTU %d - 3: chunk it with protocols/nus", len(b), mtu)
	}
	return p.conn.Emit(p.paths.tx, ifaceProps+".PropertiesChanged", ifaceGattChar,
		map[string]dbus.Variant{"Value": dbus.MakeVariant(b)}, []string{})
}

// RemoveBonds forgets every paired or bonded device of our adapter (the
// unpair command, and the Pi's "Forget Bluetooth pairing?" screen), the
// same RemoveDevice as removeBondsExcept. The caller sends the unpair ack
// first: removing the current central's bond drops the link, and
// bluetoothd then announces InterfacesRemoved, on which we advertise
// again. An adapter that stopped being pairable (a PairableTimeout, or
// someone's `bluetoothctl pairable off`) is made pairable, or the desktop
// could not pair afresh.
func (p *Peripheral) RemoveBonds() (int, error) {
	objs, err := p.managedObjects()
	if err != nil {
		return 0, err
	}
	adapter := p.adapterPath()
	if adapter == "" {
		return 0, errors.New("bluez: not registered with an adapter yet (is bluetoothd running?): try again once the screen says advertising")
	}
	removed, errs := p.removeBonds(objs, "", "removed bond")
	if pairable, ok := objs[adapter][ifaceAdapter]["Pairable"].Value().(bool); ok && !pairable {
		if err := p.call(adapter, ifaceProps+".Set", ifaceAdapter, "Pairable", dbus.MakeVariant(true)).Err; err != nil {
			errs = append(errs, fmt.Errorf("bluez: making %s pairable again: %w (try `bluetoothctl pairable on`)", path.Base(string(adapter)), err))
		} else {
			p.log.Info("adapter made pairable again", "adapter", path.Base(string(adapter)))
		}
	}
	return removed, errors.Join(errs...)
}

func (p *Peripheral) adapterPath() dbus.ObjectPath {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.adapter
}

// bondedDevices lists the paired or bonded devices of our adapter.
func (p *Peripheral) bondedDevices(objs managedObjects) []dbus.ObjectPath {
	adapter := p.adapterPath()
	var devs []dbus.ObjectPath
	for dev, ifaces := range objs {
		props, ok := ifaces[ifaceDevice]
		if !ok || adapter == "" || !strings.HasPrefix(string(dev), string(adapter)+"/") {
			continue
		}
		paired, _ := props["Paired"].Value().(bool)
		bonded, _ := props["Bonded"].Value().(bool)
		if paired || bonded {
			devs = append(devs, dev)
		}
	}
	return devs
}
