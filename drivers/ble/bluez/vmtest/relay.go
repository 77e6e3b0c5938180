//go:build linux

package main

import (
	"fmt"
	"io"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// relay joins the desk guest's controller, which lives in this guest's
// btvirt, to the serial line QEMU connects to the desk guest. Towards btvirt
// it hands over whole H4 packets: btvirt's server (emulator/server.c) reads
// a packet's length before its header has fully arrived, and a UART delivers
// a few bytes at a time, so forwarding raw reads desynchronises the stream
// half way through SMP. The other way the kernel's H4 driver reassembles.
func relay(ttyPath, sockPath string) error {
	tty, err := os.OpenFile(ttyPath, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	if err := makeRaw(int(tty.Fd())); err != nil {
		return fmt.Errorf("%s: %w", ttyPath, err)
	}
	sock, err := net.Dial("unix", sockPath)
	if err != nil {
		return err
	}
	logf("relay: %s <-> %s: starting data transfer", ttyPath, sockPath)
	go func() {
		_, err := io.Copy(tty, sock)
		logf("relay: btvirt side closed: %v", err)
		os.Exit(0)
	}()
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		n, err := tty.Read(chunk)
		if err != nil {
			return fmt.Errorf("relay: %s: %w", ttyPath, err)
		}
		buf = append(buf, chunk[:n]...)
		for len(buf) > 0 {
			need, ok := h4Length(buf)
			if !ok {
				logf("relay: dropping unknown H4 packet type 0x%02x", buf[0])
				buf = buf[1:]
				continue
			}
			if need < 0 || len(buf) < need {
				break
			}
			if _, err := sock.Write(buf[:need]); err != nil {
				return err
			}
			buf = buf[need:]
		}
		buf = append([]byte(nil), buf...) // keep the backing array small
	}
}

// h4Length is the whole length of the H4 packet buf starts with, -1 while
// its header is incomplete; ok is false for a type a host never sends.
func h4Length(buf []byte) (need int, ok bool) {
	switch buf[0] {
	case 0x01: // command: type, opcode(2), plen(1)
		if len(buf) < 4 {
			return -1, true
		}
		return 4 + int(buf[3]), true
	case 0x02: // ACL: type, handle(2), dlen(2)
		if len(buf) < 5 {
			return -1, true
		}
		return 5 + (int(buf[3]) | int(buf[4])<<8), true
	case 0x05: // ISO: type, handle(2), dlen(14 bits)
		if len(buf) < 5 {
			return -1, true
		}
		return 5 + (int(buf[3])|int(buf[4])<<8)&0x3fff, true
	}
	return 0, false
}

// makeRaw sets the line to raw 115200 baud without flow control, as
// btattach -S 115200 expects on the other end.
func makeRaw(fd int) error {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB | unix.CRTSCTS | unix.CBAUD
	t.Cflag |= unix.CS8 | unix.B115200 | unix.CLOCAL | unix.CREAD
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	return unix.IoctlSetTermios(fd, unix.TCSETS, t)
}
