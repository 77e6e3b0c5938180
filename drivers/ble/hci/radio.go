package hci

import (
	"context"
	"log/slog"
	"sync"
	"time"

	gble "github.com/go-ble/ble"
	"github.com/go-ble/ble/linux/att"
	"github.com/go-ble/ble/linux/gatt"
	"github.com/go-ble/ble/linux/hci"
)

// hciRadio is go-ble on a real controller. Nothing here runs in the tests:
// opening the device needs root and a radio. It replaces go-ble's
// linux.Device accept loop so the link learns of each connection and its
// end (go-ble never closes Disconnected() for a peripheral connection).
type hciRadio struct {
	h    *hci.HCI
	log  *slog.Logger
	name string
	done chan struct{}

	mu    sync.Mutex
	conns map[gble.Conn]chan struct{} // closed when the conn's ATT loop ends
}

// openRadio opens and initialises HCI device hciN.
func openRadio(name string, device int, log *slog.Logger) (radio, error) {
	h, err := hci.NewHCI(gble.OptDeviceID(device))
	if err != nil {
		return nil, err
	}
	if err := h.Init(); err != nil {
		_ = h.Close()
		return nil, err
	}
	r := &hciRadio{h: h, log: log, name: name, done: make(chan struct{}), conns: map[gble.Conn]chan struct{}{}}
	go func() {
		<-h.Done()
		close(r.done)
	}()
	return r, nil
}

func (r *hciRadio) Serve(svc *gble.Service, connected, gone func(gble.Conn)) error {
	srv, err := gatt.NewServerWithName(r.name)
	if err != nil {
		return err
	}
	if err := srv.AddService(svc); err != nil {
		return err
	}
	go func() {
		for {
			c, err := r.h.Accept()
			if err != nil {
				return // the device closed
			}
			// go-ble's CCCD handlers keep per-connection state here.
			c.SetContext(context.WithValue(c.Context(), gble.ContextKeyCCC, make(map[uint16]uint16)))
			c.SetRxMTU(gble.MaxMTU) // accept the desktop's 517
			srv.Lock()
			as, err := att.NewServer(srv.DB(), c)
			srv.Unlock()
			if err != nil {
				r.log.Warn("hci: starting the ATT server for a central", "err", err)
				_ = c.Close()
				continue
			}
			ended := make(chan struct{})
			r.mu.Lock()
			r.conns[c] = ended
			r.mu.Unlock()
			connected(c)
			go func() {
				as.Loop() // returns when the link drops
				gone(c)
				r.mu.Lock()
				delete(r.conns, c)
				r.mu.Unlock()
				close(ended)
			}()
		}
	}()
	return nil
}

func (r *hciRadio) Advertise(ad, sr []byte) error {
	if err := r.h.SetAdvertisement(ad, sr); err != nil {
		return err
	}
	return r.h.Advertise()
}

func (r *hciRadio) Done() <-chan struct{} { return r.done }
func (r *hciRadio) Err() error            { return r.h.Error() }

// Close disconnects the central and waits (bounded) for its ATT loop, so
// no go-ble goroutine outlives the device, then closes the socket.
func (r *hciRadio) Close() error {
	_ = r.h.StopAdvertising()
	r.mu.Lock()
	var ended []chan struct{}
	for c, e := range r.conns {
		_ = c.Close()
		ended = append(ended, e)
	}
	r.mu.Unlock()
	timeout := time.After(2 * time.Second)
	for _, e := range ended {
		select {
		case <-e:
		case <-timeout:
		}
	}
	return r.h.Close()
}
