//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	only     []string // scenarios to run (SHARE/only); all when empty
	perms    []string // every permission line received, in order
	requests int      // requests sent on the control line
	line     *ctl
	pi       shared    // the pi's latest state from the control line
	piAt     time.Time // when it came
	retries  int       // connections retried after the link dropped before services resolved
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
	if b, err := os.ReadFile(filepath.Join(share, "only")); err == nil {
		d.only = strings.Fields(string(b))
	}
	if d.line, err = openCtl(d.got); err != nil {
		return fmt.Errorf("the control line: %w", err)
	}
	defer func() {
		for range 3 { // the line can lose one
			if err := d.line.send(ctlMsg{Done: true}); err != nil {
				logf("desk: telling the pi we are done: %v", err)
			}
			time.Sleep(200 * time.Millisecond)
		}
		os.WriteFile(filepath.Join(share, "desk-done"), nil, 0o644)
	}()
	if err := d.setup(); err != nil {
		return err
	}
	var pi shared
	if !waitFor(120*time.Second, func() bool {
		pi = d.piState()
		return pi.Running && pi.Adverts["hci0"]+pi.Adverts["hci1"] > 0
	}) {
		return errors.New("the appliance did not advertise within 120 s")
	}
	hci0, hci1 := pi.Adapters["hci0"], pi.Adapters["hci1"]
	dev := devicePath(hci0)

	// The first two run always: every other scenario starts from a bond.
	d.prerequisite("filter-finds-pi", func() error {
		// The default adapter is the same on every start: hci0 of two.
		if pi.Adverts["hci0"] != 1 || pi.Adverts["hci1"] != 0 {
			return fmt.Errorf("adverts %v: want hci0 only (lowest-numbered)", pi.Adverts)
		}
		return d.discover(hci0, true, 60*time.Second)
	})
	d.prerequisite("first-pairing", func() error {
		if err := d.pair(dev); err != nil {
			return err
		}
		return d.waitPi("the passkey off the screen and the central shown", 15*time.Second, func(p shared) bool {
			return p.Link.Passkey == "" && p.Link.Connected && p.Bonds == 1
		})
	})
	d.scenario("nus-both-ways", func() error { return d.nus(dev) })
	d.scenario("bonded-reconnect", func() error { return d.reconnect(dev) })
	d.scenario("forget-from-buttons", func() error { return d.forgetFromButtons(hci0, dev) })
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
	d.scenario("legacy-pairing-refused", func() error { return d.legacyPairingRefused(hci0, dev) })
	d.scenario("legacy-bond-refused-by-gatt", func() error { return d.legacyBondRefusedByGATT(hci0, dev) })
	d.scenario("unsecured-dropped", func() error { return d.unsecuredDropped(hci0, dev) })
	d.scenario("adapter-key-picks-hci1", func() error {
		_ = d.call(dev, "org.bluez.Device1.Disconnect")
		_ = d.call(deskAdapter, "org.bluez.Adapter1.RemoveDevice", dev)
		n, err := d.ask(request{Adapter: "hci1"})
		if err != nil {
			return err
		}
		if err := d.waitPi("claude-pi restarted on hci1", 60*time.Second, func(p shared) bool {
			return p.Requests == n && p.Running && p.Adverts["hci1"] == 1 && p.Adverts["hci0"] == 0
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

// scenario runs one unless VMTEST_ONLY (run.sh writes it to SHARE/only)
// leaves it out, and prints its verdict line, which run.sh collects.
func (d *desk) scenario(name string, f func() error) {
	if len(d.only) > 0 && !slices.Contains(d.only, name) {
		logf("desk: scenario %s left out (VMTEST_ONLY)", name)
		return
	}
	d.prerequisite(name, f)
}

// prerequisite runs a scenario that VMTEST_ONLY cannot leave out.
func (d *desk) prerequisite(name string, f func() error) {
	logf("desk: scenario %s", name)
	t0 := time.Now()
	d.mu.Lock()
	retries := d.retries
	d.mu.Unlock()
	err := f()
	verdict, detail := "PASS", ""
	if err != nil {
		verdict, detail = "FAIL", err.Error()
		d.failures++
	}
	d.mu.Lock()
	if n := d.retries - retries; n > 0 {
		detail = strings.TrimSpace(fmt.Sprintf("%s (connected again %d time(s): the link dropped before services resolved)", detail, n))
	}
	d.mu.Unlock()
	line := fmt.Sprintf("%s %s %.1fs %s", name, verdict, time.Since(t0).Seconds(), detail)
	logf("verdict: %s", line)
	fmt.Fprintln(d.out, strings.TrimSpace(line))
}

// ask has the pi guest do r, and returns its number: the pi has done it
// once its Requests reaches that.
//
// The control line can lose a line (ctl.go), so the request is sent again
// every second until the pi's state says it was done, for up to a minute;
// the pi does each number once.
func (d *desk) ask(r request) (int, error) {
	d.requests++
	r.N = d.requests
	if err := d.line.send(ctlMsg{Request: &r}); err != nil {
		return 0, err
	}
	go func() {
		for i := 0; i < 60; i++ {
			time.Sleep(time.Second)
			if d.piState().Requests >= r.N {
				return
			}
			if err := d.line.send(ctlMsg{Request: &r}); err != nil {
				return
			}
		}
	}()
	return r.N, nil
}

// press presses a button on the pi, as the person at it would, and waits
// until the pi has pressed it.
func (d *desk) press(button string) error {
	n, err := d.ask(request{Press: button})
	if err != nil {
		return err
	}
	return d.waitPi("press of "+button, 10*time.Second, func(p shared) bool { return p.Requests >= n })
}

// permissions is how many permission lines the appliance has sent.
func (d *desk) permissions() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.perms...)
}

// got keeps the pi's latest state from the control line.
func (d *desk) got(m ctlMsg) {
	if m.State == nil {
		return
	}
	d.mu.Lock()
	d.pi, d.piAt = *m.State, time.Now()
	d.mu.Unlock()
}

// piState is the appliance's latest state (zero before the first).
func (d *desk) piState() shared {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pi
}

// waitPi waits until the appliance's state satisfies cond; the error shows
// the last state seen and how old it was.
func (d *desk) waitPi(what string, wait time.Duration, cond func(shared) bool) error {
	var last shared
	if waitFor(wait, func() bool { last = d.piState(); return cond(last) }) {
		return nil
	}
	d.mu.Lock()
	age := time.Since(d.piAt).Round(100 * time.Millisecond)
	d.mu.Unlock()
	b, _ := json.Marshal(last)
	return fmt.Errorf("appliance: no %s within %v; last (%v old) %s", what, wait, age, b)
}
