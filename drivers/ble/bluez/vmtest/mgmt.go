//go:build linux

package main

import (
	"encoding/binary"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// setSC sets a controller's Secure Connections mode over the kernel's
// Bluetooth management socket, as bluetoothd does at start for main.conf's
// SecureConnections (off, on, only: MGMT_OP_SET_SECURE_CONN 0x00/0x01/0x02)
// and `btmgmt sc` does by hand. btmgmt itself is not used: BlueZ 5.82's
// never sent the command when run without a terminal, and waited forever.
func setSC(index uint16, mode string) error {
	modes := map[string]byte{"off": 0, "on": 1, "only": 2}
	v, ok := modes[mode]
	if !ok {
		return fmt.Errorf("sc %q: want off, on or only", mode)
	}
	const opSetSecureConn = 0x002d
	fd, err := unix.Socket(unix.AF_BLUETOOTH, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.BTPROTO_HCI)
	if err != nil {
		return fmt.Errorf("mgmt socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrHCI{Dev: 0xffff, Channel: unix.HCI_CHANNEL_CONTROL}); err != nil {
		return fmt.Errorf("mgmt bind: %w", err)
	}
	// Command: opcode, controller index, parameter length, parameters.
	cmd := binary.LittleEndian.AppendUint16(nil, opSetSecureConn)
	cmd = binary.LittleEndian.AppendUint16(cmd, index)
	cmd = binary.LittleEndian.AppendUint16(cmd, 1)
	if _, err := unix.Write(fd, append(cmd, v)); err != nil {
		return fmt.Errorf("mgmt write: %w", err)
	}
	// Events until Command Complete (0x0001) or Command Status (0x0002)
	// for our opcode: event, index, length, then opcode and status.
	buf := make([]byte, 512)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 500)
		if err != nil && err != unix.EINTR {
			return fmt.Errorf("mgmt poll: %w", err)
		}
		if n == 0 {
			continue
		}
		m, err := unix.Read(fd, buf)
		if err != nil {
			return fmt.Errorf("mgmt read: %w", err)
		}
		if m < 9 {
			continue
		}
		ev, idx, op, status := binary.LittleEndian.Uint16(buf), binary.LittleEndian.Uint16(buf[2:]), binary.LittleEndian.Uint16(buf[6:]), buf[8]
		if (ev != 1 && ev != 2) || idx != index || op != opSetSecureConn {
			continue
		}
		if status != 0 {
			return fmt.Errorf("mgmt: set secure connections %s on hci%d: status 0x%02x", mode, index, status)
		}
		return nil
	}
	return fmt.Errorf("mgmt: no answer to set secure connections %s on hci%d within 5 s", mode, index)
}
