//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// ctlTTY is the control line between the guests: a third serial port that
// QEMU joins through a socket, as it joins their Bluetooth H4 line. The pi
// sends its state when it changes (and every second), the desk its
// requests and, at the end, done. It replaced files polled over the 9p
// share: on trixie (Linux 6.12) the desk's read of a file the pi kept
// replacing twice blocked for minutes. The line is lossy: QEMU's 16550
// drops a byte its socket does not take after a few tries, so a busy guest
// loses some; a line that does not decode is dropped whole, states repeat,
// and the desk repeats a request until the pi's state shows it done.
const ctlTTY = "/dev/ttyS2"

// ctlMsg is one line on the control line; exactly one field is set.
type ctlMsg struct {
	State   *shared  `json:"state,omitempty"`   // pi -> desk
	Request *request `json:"request,omitempty"` // desk -> pi
	Done    bool     `json:"done,omitempty"`    // desk -> pi: stop
}

// ctl is one end of the control line.
type ctl struct {
	f  *os.File
	mu sync.Mutex // one writer at a time: lines never interleave
}

// openCtl opens the control line raw (no echo, no line discipline) and
// calls got for every line that decodes, from its own goroutine.
func openCtl(got func(ctlMsg)) (*ctl, error) {
	f, err := os.OpenFile(ctlTTY, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	if err := makeRaw(int(f.Fd())); err != nil {
		return nil, fmt.Errorf("%s: %w", ctlTTY, err)
	}
	go func() {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 64<<10)
		bad := 0
		for sc.Scan() {
			var m ctlMsg
			// A line cut by the other end's start is dropped whole.
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				if bad++; bad <= 3 || bad%100 == 0 {
					logf("control line: dropped %d bytes that do not decode (%d lines so far)", len(sc.Bytes()), bad)
				}
				continue
			}
			got(m)
		}
		logf("control line closed: %v", sc.Err())
	}()
	return &ctl{f: f}, nil
}

func (c *ctl) send(m ctlMsg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.f.Write(append(b, '\n'))
	return err
}
