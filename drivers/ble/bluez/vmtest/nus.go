//go:build linux

package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// securedStatus sends a status command and wants its ack to say the link
// is encrypted (sec:true), the check every pairing ends with.
func (d *desk) securedStatus(after string) error {
	ack, err := d.command(map[string]any{"cmd": "status"}, 15*time.Second)
	if err != nil {
		return err
	}
	if data, _ := ack["data"].(map[string]any); data["sec"] != true {
		return fmt.Errorf("status ack after %s without sec:true: %v", after, ack)
	}
	return nil
}

func (d *desk) nus(dev dbus.ObjectPath) error {
	if err := d.connect(dev); err != nil {
		return err
	}
	if err := d.securedStatus("the first connection"); err != nil {
		return err
	}
	if mtu, ok := d.props(d.rxPath, "org.bluez.GattCharacteristic1")["MTU"].Value().(uint16); ok && mtu != 517 {
		return fmt.Errorf("desk's ATT MTU %d, want 517", mtu)
	}
	if err := d.waitPi("MTU 517 on the screen", 10*time.Second, func(p shared) bool { return p.Link.MTU == 517 && p.Link.Secured }); err != nil {
		return err
	}
	// A turn line just under the desktop's 4096-byte limit (§5.2), then one
	// with no content key at all: neither may break the stream.
	turnLine := func(text string) []byte {
		b, _ := json.Marshal(map[string]any{"evt": "turn", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}})
		return b
	}
	turn := turnLine(strings.Repeat("x", 4096-len(turnLine(""))))
	if err := d.send(string(turn)); err != nil {
		return err
	}
	if err := d.send(`{"evt":"turn","role":"assistant"}`); err != nil {
		return err
	}
	if _, err := d.command(map[string]any{"cmd": "status"}, 15*time.Second); err != nil {
		return fmt.Errorf("after a %d-byte turn line: %w", len(turn), err)
	}
	return d.push()
}

// push sends a small text-mode character pack (§8), step by step with acks.
func (d *desk) push() error {
	manifest := []byte(`{"name":"vmtest","mode":"text","states":{"idle":{"frames":["(o_o)","(-_-)"],"delay":300}}}`)
	readme := bytes.Repeat([]byte("a pack pushed over a real BlueZ link\n"), 20)
	files := []struct {
		name string
		data []byte
	}{{"manifest.json", manifest}, {"README.md", readme}}
	if _, err := d.command(map[string]any{"cmd": "char_begin", "name": "vmtest", "total": len(manifest) + len(readme)}, 5*time.Second); err != nil {
		return err
	}
	for _, f := range files {
		if _, err := d.command(map[string]any{"cmd": "file", "path": f.name, "size": len(f.data)}, 5*time.Second); err != nil {
			return err
		}
		for off := 0; off < len(f.data); off += 256 {
			chunk := f.data[off:min(off+256, len(f.data))]
			if _, err := d.command(map[string]any{"cmd": "chunk", "d": base64.StdEncoding.EncodeToString(chunk)}, 5*time.Second); err != nil {
				return err
			}
		}
		ack, err := d.command(map[string]any{"cmd": "file_end"}, 10*time.Second)
		if err != nil {
			return err
		}
		if n, _ := ack["n"].(float64); int(n) != len(f.data) {
			return fmt.Errorf("%s: wrote %v of %d", f.name, ack["n"], len(f.data))
		}
	}
	_, err := d.command(map[string]any{"cmd": "char_end"}, 10*time.Second)
	return err
}
