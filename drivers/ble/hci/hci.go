// Package hci is the BLE backend for boards without BlueZ: go-ble on a raw
// HCI socket (github.com/go-ble/ble/linux), serving NUS in open mode only.
//
// go-ble cannot pair or bond as a peripheral, so no attribute can require
// encryption: CanPair is false, Secured{true} is never reported, the status
// ack says sec:false and the screen warns about it (buddy spec §4.6).
// Asking for ble.Bonded is refused by New.
//
// The package is split in two. link.go holds everything at the ATT level
// (the NUS handlers, MTU tracking, the MTU-3 check, connection tracking and
// the event queue) and is tested with a fake gble.Conn. radio.go opens the
// real HCI device; that needs root (or CAP_NET_ADMIN and CAP_NET_RAW), a
// Bluetooth controller, and bluetoothd not using it, so it is never run by
// the tests and is kept as small as possible.
//
// go-ble hazards this package works around:
//   - It truncates a notification longer than MTU-3 without an error;
//     Notify refuses such a payload instead.
//   - It answers Exchange MTU on its own and tells nobody; the new MTU is
//     picked up from the connection at the next request, Notify or MTU().
//   - Its handlers run on its ATT and HCI goroutines, which must not wait
//     for our owner; events are queued and Run delivers them.
package hci

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"syscall"

	gble "github.com/go-ble/ble"
	"github.com/go-ble/ble/linux/adv"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// Options configures the backend. The zero value works.
type Options struct {
	// Name is the advertised local name; ble.DefaultName when empty.
	Name string
	// Security must be ble.Open: go-ble cannot pair. ble.Bonded (the zero
	// value, the config default) is rejected by New with advice.
	Security drv.Security
	// Device is the HCI device index: 0 for hci0.
	Device int
	// Logger receives what the stack did; slog.Default() if nil.
	Logger *slog.Logger
}

// radio is the part of go-ble that needs a real controller.
type radio interface {
	// Serve publishes svc and calls connected and gone for each ATT bearer.
	Serve(svc *gble.Service, connected, gone func(gble.Conn)) error
	// Advertise sets the advertising and scan response data and starts.
	Advertise(ad, sr []byte) error
	// Done is closed when the device fails; Err says why.
	Done() <-chan struct{}
	Err() error
	// Close stops advertising, drops the central and releases the device.
	Close() error
}

// Peripheral serves NUS over go-ble. It implements ble.Peripheral.
type Peripheral struct {
	opts  Options
	log   *slog.Logger
	open  func(name string, device int, log *slog.Logger) (radio, error)
	runMu sync.Mutex

	mu   sync.Mutex
	link *link // of the current Run; nil outside Run
}

var _ drv.Peripheral = (*Peripheral)(nil)

// ErrNeedsOpen is returned by New for ble.Bonded.
var ErrNeedsOpen = errors.New(`hci: the raw-HCI backend cannot pair or encrypt (go-ble has no peripheral pairing): use the bluez backend for a bonded link, or set security = "open" to serve NUS unencrypted`)

// New checks opts and returns a Peripheral. It does not touch the radio
// until Run.
func New(opts *Options) (*Peripheral, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Security != drv.Open {
		return nil, ErrNeedsOpen
	}
	if o.Name == "" {
		o.Name = drv.DefaultName
	}
	if err := drv.ValidateName(o.Name); err != nil {
		return nil, err
	}
	if o.Device < 0 {
		return nil, fmt.Errorf("hci: invalid device index %d (0 is hci0)", o.Device)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Peripheral{opts: o, log: o.Logger, open: openRadio}, nil
}

// String names the backend for logs and status lines.
func (p *Peripheral) String() string {
	return fmt.Sprintf("hci(hci%d, %s)", p.opts.Device, p.opts.Name)
}

// CanPair is false: see the package comment.
func (p *Peripheral) CanPair() bool { return false }

// RemoveBonds returns ble.ErrNoBonds: go-ble cannot pair, so it keeps no
// bonds, and the open link needs nothing to pair afresh.
func (p *Peripheral) RemoveBonds() (int, error) { return 0, drv.ErrNoBonds }

func (p *Peripheral) current() *link {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.link
}

// MTU is the connected central's ATT MTU, ble.DefaultMTU if none.
func (p *Peripheral) MTU() int {
	if l := p.current(); l != nil {
		return l.currentMTU()
	}
	return drv.DefaultMTU
}

// Notify sends one notification of at most MTU()-3 bytes.
func (p *Peripheral) Notify(b []byte) error {
	if l := p.current(); l != nil {
		return l.notify(b)
	}
	return drv.ErrNotSubscribed
}

// Run opens the HCI device, serves NUS and advertises, then delivers link
// events until ctx ends. A device that cannot be opened or fails later is
// an error; the caller restarts Run.
func (p *Peripheral) Run(ctx context.Context, events chan<- drv.Event) error {
	if !p.runMu.TryLock() {
		return errors.New("hci: Run called while already running")
	}
	defer p.runMu.Unlock()

	ad, sr, err := advertData(p.opts.Name)
	if err != nil {
		return err
	}
	r, err := p.open(p.opts.Name, p.opts.Device, p.log)
	if err != nil {
		return openError(p.opts.Device, err)
	}
	l := newLink(p.log)
	p.mu.Lock()
	p.link = l
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.link = nil
		p.mu.Unlock()
		l.stop()
		if err := r.Close(); err != nil {
			p.log.Warn("hci: closing the device", "err", err)
		}
	}()

	send := func(ev drv.Event) bool {
		select {
		case events <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if err := r.Serve(l.service(), l.connected, l.disconnected); err != nil {
		return fmt.Errorf("hci: serving NUS on hci%d: %w", p.opts.Device, err)
	}
	if err := r.Advertise(ad, sr); err != nil {
		err = fmt.Errorf("hci: advertising on hci%d: %w", p.opts.Device, err)
		send(drv.Advertising{On: false, Err: err})
		return err
	}
	p.log.Info("hci: advertising", "name", p.opts.Name, "device", p.opts.Device, "security", "open")
	if !send(drv.Advertising{On: true}) {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.Done():
			err := fmt.Errorf("hci: device hci%d stopped: %w", p.opts.Device, r.Err())
			for _, ev := range l.take() {
				if !send(ev) {
					return nil
				}
			}
			send(drv.Advertising{On: false, Err: err})
			return err
		case <-l.wake:
			for _, ev := range l.take() {
				if !send(ev) {
					return nil
				}
			}
		}
	}
}

// advertData builds the advertising and scan response payloads. The
// desktop finds us by name only (buddy spec §2.2), so the complete name
// always goes in the advertising data; the NUS UUID joins it if it fits
// and otherwise goes in the scan response. go-ble's own
// AdvertiseNameAndServices does the opposite and can push the name out
// into the scan response, which passive scanners never see.
func advertData(name string) (ad, sr []byte, err error) {
	flags := adv.Flags(adv.FlagGeneralDiscoverable | adv.FlagLEOnly)
	a, err := adv.NewPacket(flags, adv.CompleteName(name))
	if err != nil {
		return nil, nil, fmt.Errorf("hci: name %q does not fit an advertisement: %w", name, err)
	}
	if a.Append(adv.AllUUID(uuidNUS)) == nil {
		return a.Bytes(), nil, nil
	}
	s, err := adv.NewPacket(adv.AllUUID(uuidNUS))
	if err != nil {
		return nil, nil, fmt.Errorf("hci: building the scan response: %w", err)
	}
	return a.Bytes(), s.Bytes(), nil
}

// DropIn is the command that gives claude-pi.service the two capabilities
// this backend needs: the .deb ships the drop-in off (packaging/deb/hci.conf),
// since ambient capabilities would reach every program claude-pi runs.
const DropIn = "sudo install -D -m 0644 /usr/share/claude-pi/hci.conf /etc/systemd/system/claude-pi.service.d/hci.conf && sudo systemctl daemon-reload && sudo systemctl restart claude-pi"

// openError explains why hciN did not open. Without CAP_NET_ADMIN the bind
// to the user channel fails with EPERM; under claude-pi.service without the
// drop-in, the AF_BLUETOOTH socket itself is refused (RestrictAddressFamilies
// answers EAFNOSUPPORT).
func openError(device int, err error) error {
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EAFNOSUPPORT) {
		return fmt.Errorf("hci: opening hci%d: %w: the raw-HCI backend needs CAP_NET_ADMIN and CAP_NET_RAW (and AF_BLUETOOTH sockets), which claude-pi.service grants only with its hci drop-in; run: %s (outside systemd, run as root)", device, err, DropIn)
	}
	return fmt.Errorf("hci: opening hci%d: %w (bluetoothd must not hold the adapter: `sudo systemctl stop bluetooth`; `hciconfig` lists the devices)", device, err)
}
