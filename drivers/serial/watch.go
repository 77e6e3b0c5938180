package serial

import (
	"context"
	"log/slog"
	"time"
)

// Event is Plugged or Unplugged.
type Event interface{ isEvent() }

// Plugged reports a CoreS3 that appeared (or was present when watching began).
type Plugged struct {
	Path   string // device node, e.g. /dev/ttyACM0
	Serial string // USB serial number, "" if the device has none
	VID    string // upper-case hex, "303A"
	PID    string // upper-case hex, "1001"
	// Product and Manufacturer are the USB strings ("" when absent). Every
	// ESP32-S3 shares the ids, so these and Serial are all that tell one
	// board from another; all three come from the device and may be hostile.
	Product, Manufacturer string
}

// Unplugged reports that the CoreS3 at Path went away.
type Unplugged struct {
	Path string
}

func (Plugged) isEvent()   {}
func (Unplugged) isEvent() {}

// Watcher polls the enumerator and reports CoreS3 plug and unplug.
//
// It polls instead of watching /dev with inotify: a scan of /sys/class/tty
// is a directory listing plus a few small sysfs reads (tens of microseconds),
// once a second is invisible on a Pi, it needs no udev and no
// /dev/serial/by-id (both missing in containers), and inotify alone would not
// give the USB ids anyway, so every event would still end in a scan.
type Watcher struct {
	// Enumerate lists ports; nil means SysfsEnumerator.
	Enumerate Enumerator
	// Interval between scans; zero means one second, the plug/unplug latency
	// the dock actor is built for.
	Interval time.Duration
	// Serial, when set, ignores every CoreS3 with another serial number.
	Serial string
	// Logger gets enumeration failures; nil means slog.Default().
	Logger *slog.Logger
}

// Watch scans at once, then every Interval, and sends an event for every
// change until ctx ends; then it closes the channel. A failed scan changes
// nothing (a transient sysfs error must not look like an unplug). A device
// that is replaced between two scans at the same path with another serial
// number yields Unplugged then Plugged.
func (w *Watcher) Watch(ctx context.Context) <-chan Event {
	enum := w.Enumerate
	if enum == nil {
		enum = SysfsEnumerator
	}
	every := w.Interval
	if every <= 0 {
		every = time.Second
	}
	log := w.Logger
	if log == nil {
		log = slog.Default()
	}
	ch := make(chan Event)
	go func() {
		defer close(ch)
		t := time.NewTicker(every)
		defer t.Stop()
		present := map[string]Plugged{}
		failing := false
		for {
			ports, err := enum()
			if err != nil {
				if !failing {
					log.Warn("dock hotplug scan failed", "err", err)
				}
				failing = true
			} else {
				failing = false
				for _, ev := range w.diff(present, ports) {
					select {
					case ch <- ev:
					case <-ctx.Done():
						return
					}
				}
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// diff updates present to the CoreS3s in ports and returns the events that
// take a listener from the old set to the new one: unplugs first, so a
// listener that handles one port at a time frees it before the next appears.
func (w *Watcher) diff(present map[string]Plugged, ports []*PortDetails) []Event {
	now := map[string]Plugged{}
	for _, p := range ports {
		if !isCoreS3(p) || (w.Serial != "" && p.SerialNumber != w.Serial) {
			continue
		}
		now[p.Name] = Plugged{Path: p.Name, Serial: p.SerialNumber, VID: p.VID, PID: p.PID,
			Product: p.Product, Manufacturer: p.Manufacturer}
	}
	var evs []Event
	for path, old := range present {
		if cur, ok := now[path]; !ok || cur != old {
			evs = append(evs, Unplugged{Path: path})
			delete(present, path)
		}
	}
	sortEvents(evs)
	var plugs []Event
	for path, cur := range now {
		if _, ok := present[path]; !ok {
			plugs = append(plugs, cur)
			present[path] = cur
		}
	}
	sortEvents(plugs)
	return append(evs, plugs...)
}

// sortEvents orders events by path so a scan's output is deterministic.
func sortEvents(evs []Event) {
	path := func(e Event) string {
		switch e := e.(type) {
		case Plugged:
			return e.Path
		case Unplugged:
			return e.Path
		}
		return ""
	}
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && path(evs[j]) < path(evs[j-1]); j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
}
