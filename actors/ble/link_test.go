package ble

import (
	"errors"
	"testing"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

func TestApply(t *testing.T) {
	base := LinkState{MTU: drv.DefaultMTU, CanPair: true, Security: "bonded"}
	up := base
	up.Advertising, up.Connected, up.Central, up.Subscribed, up.Secured, up.MTU, up.Passkey =
		true, true, "AA", true, true, 185, "000042"
	tests := []struct {
		name string
		from LinkState
		ev   drv.Event
		want func(s *LinkState)
	}{
		{"advertising", base, drv.Advertising{On: true}, func(s *LinkState) { s.Advertising = true }},
		{"advertising failed", base, drv.Advertising{Err: errors.New("no adapter")}, func(s *LinkState) { s.AdvertiseErr = "no adapter" }},
		{"advertising back clears the error", LinkState{AdvertiseErr: "x"}, drv.Advertising{On: true}, func(s *LinkState) { *s = LinkState{Advertising: true} }},
		{"connected resets link fields", LinkState{Subscribed: true, Secured: true, MTU: 185}, drv.Connected{Central: "AA"},
			func(s *LinkState) { *s = LinkState{Connected: true, Central: "AA", MTU: drv.DefaultMTU} }},
		{"disconnected clears everything of the link", up, drv.Disconnected{Central: "AA"}, func(s *LinkState) {
			s.Connected, s.Central, s.Subscribed, s.Secured, s.MTU, s.Passkey = false, "", false, false, drv.DefaultMTU, ""
		}},
		{"subscribed", base, drv.Subscribed{On: true}, func(s *LinkState) { s.Subscribed = true }},
		{"secured", base, drv.Secured{Encrypted: true}, func(s *LinkState) { s.Secured = true }},
		{"passkey zero-padded", base, drv.Passkey{Code: 42}, func(s *LinkState) { s.Passkey = "000042" }},
		{"pairing done hides the passkey", up, drv.PairingDone{OK: false}, func(s *LinkState) { s.Passkey = "" }},
		{"MTU clamped", base, drv.MTUChanged{MTU: 9000}, func(s *LinkState) { s.MTU = 517 }},
		{"received changes nothing", up, drv.Received{Data: []byte("{}\n")}, func(*LinkState) {}},
	}
	for _, tc := range tests {
		want := tc.from
		tc.want(&want)
		if got := apply(tc.from, tc.ev); got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		s    LinkState
		want string
	}{
		{LinkState{Advertising: true, Security: "bonded"}, "advertising as Claude_Pi · no central · security bonded"},
		{LinkState{AdvertiseErr: "bluez: bluetoothd stopped", Security: "bonded"}, "not advertising: bluez: bluetoothd stopped · no central · security bonded"},
		{LinkState{Advertising: true, Connected: true, Subscribed: true, Secured: true, MTU: 185, Security: "bonded"},
			"advertising as Claude_Pi · 1 central · link encrypted · security bonded · MTU 185"},
		{LinkState{Connected: true, MTU: 23, Security: "bonded", Passkey: "123456"},
			"1 central (not subscribed) · link not encrypted yet · security bonded · MTU 23 · pairing: passkey shown"},
		{LinkState{Connected: true, Subscribed: true, MTU: 185, Security: "open"}, "1 central · link unencrypted · security open · MTU 185"},
	}
	for _, tc := range tests {
		if got := describe(tc.s, "Claude_Pi"); got != tc.want {
			t.Errorf("describe(%+v)\n got %q\nwant %q", tc.s, got, tc.want)
		}
	}
}
