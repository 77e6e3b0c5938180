package ble

import (
	"fmt"
	"strings"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
	"github.com/claude-pi/claude-pi/protocols/nus"
)

// apply folds one driver event into the link state. It is pure so the
// rules (what a disconnect resets, when the passkey disappears) can be
// tested without an actor. Received is not a state change and is ignored.
func apply(s LinkState, ev drv.Event) LinkState {
	switch ev := ev.(type) {
	case drv.Advertising:
		s.Advertising, s.AdvertiseErr = ev.On, ""
		if !ev.On && ev.Err != nil {
			s.AdvertiseErr = ev.Err.Error()
		}
	case drv.Connected:
		s.Connected, s.Central = true, ev.Central
		s.Subscribed, s.Secured, s.MTU = false, false, drv.DefaultMTU
	case drv.Disconnected:
		// The spec clears the passkey on disconnect too (§4.1).
		s.Connected, s.Central, s.Subscribed, s.Secured = false, "", false, false
		s.MTU, s.Passkey = drv.DefaultMTU, ""
	case drv.Subscribed:
		s.Subscribed = ev.On
	case drv.Secured:
		s.Secured = ev.Encrypted
	case drv.Passkey:
		s.Passkey = drv.FormatPasskey(ev.Code)
	case drv.PairingDone:
		s.Passkey = ""
	case drv.MTUChanged:
		s.MTU = nus.ClampMTU(ev.MTU)
	}
	return s
}

// describe is the supervisorctl status line, e.g. "advertising as
// Claude_Pi · 1 central · link encrypted · security bonded · MTU 185": what
// the link has now ("link ...") apart from the configured mode
// ("security ...").
func describe(s LinkState, name string) string {
	var parts []string
	switch {
	case s.Advertising:
		parts = append(parts, "advertising as "+name)
	case s.AdvertiseErr != "":
		parts = append(parts, "not advertising: "+s.AdvertiseErr)
	case !s.Connected:
		parts = append(parts, "not advertising")
	}
	mode := "security " + s.Security
	if !s.Connected {
		parts = append(parts, "no central", mode)
	} else {
		c := "1 central"
		if !s.Subscribed {
			c += " (not subscribed)"
		}
		parts = append(parts, c)
		switch {
		case s.Secured:
			parts = append(parts, "link encrypted")
		case s.Security == drv.Open.String():
			parts = append(parts, "link unencrypted")
		default:
			parts = append(parts, "link not encrypted yet")
		}
		parts = append(parts, mode, fmt.Sprintf("MTU %d", s.MTU))
	}
	if s.Passkey != "" {
		parts = append(parts, "pairing: passkey shown")
	}
	return strings.Join(parts, " · ")
}
