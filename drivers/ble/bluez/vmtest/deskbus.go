//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// The desk's D-Bus plumbing: calls to bluetoothd, the agent's registration,
// TX notifications assembled into lines.

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
		for _, line := range lines {
			// Counted apart from the lines a command waits on, which
			// drops what it does not expect.
			if bytes.Contains(line, []byte(`"cmd":"permission"`)) {
				d.perms = append(d.perms, string(line))
				logf("desk: permission line %s", line)
			}
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

func (d *desk) props(obj dbus.ObjectPath, iface string) map[string]dbus.Variant {
	var p map[string]dbus.Variant
	_ = d.bus.Object("org.bluez", obj).Call("org.freedesktop.DBus.Properties.GetAll", 0, iface).Store(&p)
	return p
}

func isDBusError(err error, name string) bool {
	var de dbus.Error
	return errors.As(err, &de) && de.Name == name
}
