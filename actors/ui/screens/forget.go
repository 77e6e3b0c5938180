package screens

import (
	"image"
	"image/color"
	"strconv"
)

// ForgetView is the Pi's own way out of a stuck Bluetooth pairing: first
// the question (what will happen, hold approve to forget, deny to
// cancel), then what came of it and what to do on the computer. Like the
// LAN's "Pair a new computer?", it says what it does in so many words, so
// nobody takes it for a prompt.
type ForgetView struct {
	// Asking: the question is up; Sending: approve was held and the
	// Bluetooth service has not answered yet. Neither: the result.
	Asking, Sending bool
	// The result: Removed bonds were removed; NoBonds, the link cannot
	// pair and kept none; Err, what failed ("" when nothing did).
	Removed int
	NoBonds bool
	Err     string
	// Device is the advertised name the computer should pick again.
	Device        string
	Approve, Deny string // button labels, e.g. "A" and "B"
}

// Forget draws the forget-pairing screen.
func (r *Renderer) Forget(dst *image.RGBA, v ForgetView) {
	clear(dst, dst.Bounds(), bg)
	approve, deny := v.Approve, v.Deny
	if approve == "" {
		approve = "A"
	}
	if deny == "" {
		deny = "B"
	}
	device := v.Device
	if device == "" {
		device = "Claude_Pi"
	}
	title, tc := "Pairing forgotten", approveC
	var body string
	switch {
	case v.Asking || v.Sending:
		title, tc = "Forget Bluetooth pairing?", accent
		body = "The Pi forgets every computer paired with it over Bluetooth, drops the link, and waits for a new pairing. Then forget it on the computer too."
	case v.Err != "":
		title, tc = "Pairing not forgotten", denyC
		body = v.Err + ". Hold " + approve + " on the Links page to try again."
	case v.NoBonds:
		title, tc = "Nothing to forget", warnC
		body = "This link is open (no pairing), so the Pi keeps no bonds. On the computer: Forget in Hardware Buddy, then Connect again."
	default:
		body = "On the computer: Forget in Hardware Buddy, remove " + device + " in the Bluetooth settings, then Connect, pick " + device +
			" and type the code this screen shows."
	}
	r.centre(dst, 8, Bold, 17, tc, r.f.ellipsize(Bold, 17, title, r.w-12))
	y := 36
	if !v.Asking && !v.Sending && v.Err == "" && !v.NoBonds {
		n := "1 computer"
		if v.Removed != 1 {
			n = strconv.Itoa(v.Removed) + " computers"
		}
		r.centre(dst, y, Regular, 14, dim, n+" forgotten")
		y += r.f.lineHeight(Regular, 14) + 4
	}
	lh := r.f.lineHeight(Regular, 15) + 2
	lines := (r.h - 44 - y) / lh
	c := color.Color(fg)
	for _, l := range r.f.wrap(Regular, 15, body, r.w-16, lines) {
		r.f.text(dst, 8, y, Regular, 15, c, l)
		y += lh
	}
	top := r.h - 36
	switch {
	case v.Sending:
		legend := image.Rect(0, top, r.w, r.h)
		clear(dst, legend, panel)
		s := "forgetting…"
		r.f.text(dst, (r.w-r.f.measure(Bold, 16, s))/2, legend.Min.Y+9, Bold, 16, dim, s)
	case v.Asking:
		half := r.w / 2
		r.button(dst, image.Rect(4, top, half-2, r.h-4), "hold "+approve+" forget", denyC)
		r.button(dst, image.Rect(half+2, top, r.w-4, r.h-4), deny+"  cancel", dim)
	default:
		r.centre(dst, r.h-24, Regular, 13, dim, "any button: back")
	}
}
