package screens

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"time"

	"golang.org/x/image/vector"
)

// Pages of the home cycle that show the pet and the day: the clock, the
// stats with mood, energy and the fed bar, and the settings.

// ClockView is the clock page: the desktop's wall clock in its zone.
type ClockView struct {
	// Time is the desktop's clock now, in its zone (Location carries
	// the offset); the zero Time means no "time" line arrived yet, and
	// the page says so instead of showing a time it does not have.
	Time time.Time
	// Today is the desktop's tokens_today; HaveToday false hides it
	// (no heartbeat carried it yet).
	Today     uint64
	HaveToday bool
	Page, Of  int
	Next      string // footer labels; "" hides the footer
	Back      string
}

// Clock draws the clock page.
func (r *Renderer) Clock(dst *image.RGBA, v ClockView) {
	clear(dst, dst.Bounds(), bg)
	r.pageHeader(dst, "Clock", v.Page, v.Of)
	mid := 26 + (r.h-26-24)/2
	if v.Time.IsZero() {
		r.centre(dst, mid-30, Bold, 22, dim, "--:--")
		for i, l := range r.f.wrap(Regular, 14, "no time yet: the desktop sends it when it connects", r.w-24, 3) {
			r.centre(dst, mid+4+i*18, Regular, 14, dim, l)
		}
	} else {
		hm := v.Time.Format("15:04")
		size := 64.0
		for size > 24 && r.f.measure(Bold, size, hm) > r.w-24 {
			size -= 4
		}
		lh := r.f.lineHeight(Bold, size)
		y := mid - lh/2 - 16
		r.centre(dst, y, Bold, size, fg, hm)
		y += lh
		r.centre(dst, y, Regular, 16, fg, v.Time.Format("Mon 2 Jan 2006"))
		y += r.f.lineHeight(Regular, 16)
		r.centre(dst, y, Regular, 13, dim, zoneName(v.Time)+" · desktop time")
	}
	if v.HaveToday {
		r.centre(dst, r.h-44, Bold, 15, accent, "today "+tokens(v.Today)+" tokens")
	}
	r.pageFooter(dst, v.Next, v.Back, "")
}

// zoneName is "UTC", "UTC+2" or "UTC−7:30" for the time's fixed offset.
func zoneName(t time.Time) string {
	_, off := t.Zone()
	if off == 0 {
		return "UTC"
	}
	sign := "+"
	if off < 0 {
		sign, off = "−", -off
	}
	h, m := off/3600, off%3600/60
	if m != 0 {
		return fmt.Sprintf("UTC%s%d:%02d", sign, h, m)
	}
	return fmt.Sprintf("UTC%s%d", sign, h)
}

// tokens is 880, 31.2k, 4.1M: short enough for a 240-pixel line.
func tokens(n uint64) string {
	switch {
	case n < 10_000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1e3)) + "k"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/1e6)) + "M"
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// StatsView is the pet's stats page.
type StatsView struct {
	Loaded bool // false before the buddy service answered: the page says so
	// Mood is the tier 0 (sad) to 4 (happy), from the approval latency
	// and the denial ratio; Energy 0-5; Fed the pips 0-9 towards Level+1.
	Mood, Energy, Fed int
	Level             uint32
	Today             uint64 // tokens_today; HaveToday false shows "—"
	HaveToday         bool
	Appr, Deny        uint32
	Vel               uint16 // median seconds to approve; 0 = none yet
	Napped            time.Duration
	Page, Of          int
	Next, Back        string
}

// MoodWords name the mood tiers.
var MoodWords = [5]string{"sad", "glum", "okay", "good", "happy"}

// Meter colours.
var (
	meterOff = color.RGBA{0x3a, 0x36, 0x40, 0xff}
	energyC  = color.RGBA{0x5b, 0xc0, 0xeb, 0xff}
)

// Stats draws the stats page: mood as hearts, energy as a battery of
// five cells, the fed bar as ten pips, then the counters.
func (r *Renderer) Stats(dst *image.RGBA, v StatsView) {
	clear(dst, dst.Bounds(), bg)
	r.pageHeader(dst, "Stats", v.Page, v.Of)
	defer r.pageFooter(dst, v.Next, v.Back, "")
	if !v.Loaded {
		r.centre(dst, r.h/2-10, Regular, 15, warnC, "stats not loaded yet")
		return
	}
	const size = 14
	labelW := r.f.measure(Regular, size, "Energy") + 10
	x0, x1 := 8+labelW, r.w-8
	y := 34
	row := func(label string) {
		r.f.text(dst, 8, y+1, Regular, size, dim, label)
	}
	mood := min(max(v.Mood, 0), 4)
	row("Mood")
	hx := x0
	for i := range 4 {
		c := color.Color(meterOff)
		if i < mood {
			c = heartRed
		}
		r.heartIcon(dst, image.Rect(hx, y+1, hx+18, y+17), c)
		hx += 22
	}
	r.f.text(dst, hx+4, y, Bold, 15, fg, MoodWords[mood])
	y += 24

	row("Energy")
	cells := min(max(v.Energy, 0), 5)
	cw := min((x1-x0-40)/5, 22)
	for i := range 5 {
		c := meterOff
		if i < cells {
			c = energyC
		}
		clear(dst, image.Rect(x0+i*(cw+3), y+3, x0+i*(cw+3)+cw, y+15), c)
	}
	r.f.text(dst, x0+5*(cw+3)+4, y, Bold, 15, fg, fmt.Sprintf("%d/5", cells))
	y += 24

	row("Fed")
	fed := min(max(v.Fed, 0), 9)
	lvl := fmt.Sprintf("lvl %d", v.Level)
	pw := min((x1-x0-r.f.measure(Bold, 15, lvl)-6)/10, 14)
	for i := range 10 {
		c := meterOff
		if i < fed {
			c = accent
		}
		px := x0 + i*pw
		clear(dst, image.Rect(px, y+3, px+pw-3, y+15), c)
	}
	r.f.text(dst, x0+10*pw+4, y, Bold, 15, fg, lvl)
	y += 28

	lh := r.f.lineHeight(Bold, 15) + 3
	today := "—"
	if v.HaveToday {
		today = tokens(v.Today) + " tokens"
	}
	vel := "—"
	if v.Vel > 0 {
		vel = fmt.Sprintf("%d s to approve", v.Vel)
	}
	lx := 8 + r.f.measure(Regular, size, "Approved") + 10
	for _, kv := range [][2]string{
		{"Today", today},
		{"Approved", fmt.Sprintf("%d (%d denied)", v.Appr, v.Deny)},
		{"Speed", vel},
		{"Napped", napped(v.Napped)},
	} {
		if y+lh > r.h-22 {
			break
		}
		r.f.text(dst, 8, y+1, Regular, size, dim, kv[0])
		r.f.text(dst, lx, y, Bold, 15, fg, r.f.ellipsize(Bold, 15, kv[1], r.w-lx-6))
		y += lh
	}
}

// napped is "3h 12m" or "4m".
func napped(d time.Duration) string {
	d = max(d, 0)
	if h := int(d / time.Hour); h > 0 {
		return fmt.Sprintf("%dh %02dm", h, int(d/time.Minute)%60)
	}
	return fmt.Sprintf("%dm", int(d/time.Minute))
}

// heartIcon fills a heart in box.
func (r *Renderer) heartIcon(dst *image.RGBA, box image.Rectangle, c color.Color) {
	if r.z == nil {
		r.z = &vector.Rasterizer{}
	}
	p := newPen(r.z, dst, box)
	p.heart(60, 66, 44, c)
}

// SettingRow is one setting and its value as shown.
type SettingRow struct{ Label, Value string }

// SettingsView is the settings page: the rows, the one the cursor is
// on, and the buttons' labels.
type SettingsView struct {
	Rows   []SettingRow
	Cursor int
	// Change, Move and Close label the buttons that change the value,
	// move the cursor and leave ("A", "X/Y", "B").
	Change, Move, Close string
	Note                string // a line above the legend, e.g. a save error; "" hides it
	NoteWarn            bool
}

// Settings draws the settings page.
func (r *Renderer) Settings(dst *image.RGBA, v SettingsView) {
	clear(dst, dst.Bounds(), bg)
	r.pageHeader(dst, "Settings", 0, 0)
	y := 32
	lh := r.f.lineHeight(Bold, 16) + 10
	for i, row := range v.Rows {
		if y+lh > r.h-56 {
			break
		}
		box := image.Rect(4, y, r.w-4, y+lh-4)
		lc, vc := dim, fg
		if i == v.Cursor {
			clear(dst, box, panel)
			clear(dst, image.Rect(box.Min.X, box.Min.Y, box.Min.X+3, box.Max.Y), accent)
			lc, vc = fg, accent
		}
		ty := box.Min.Y + (box.Dy()-r.f.lineHeight(Bold, 16))/2
		r.f.text(dst, 12, ty+1, Regular, 15, lc, row.Label)
		val := row.Value
		if i == v.Cursor {
			val = "‹ " + val + " ›"
		}
		val = r.f.ellipsize(Bold, 16, val, r.w/2-8)
		r.f.text(dst, box.Max.X-8-r.f.measure(Bold, 16, val), ty, Bold, 16, vc, val)
		y += lh
	}
	if v.Note != "" {
		c := dim
		if v.NoteWarn {
			c = warnC
		}
		lines := r.f.wrap(Regular, 12, v.Note, r.w-16, 2)
		for i, l := range lines {
			r.f.text(dst, 8, r.h-24-16*(len(lines)-i), Regular, 12, c, l)
		}
	}
	change, move, done := v.Change, v.Move, v.Close
	if change == "" {
		change = "A"
	}
	if done == "" {
		done = "B"
	}
	foot := change + " change   "
	if move != "" {
		foot += move + " move   "
	}
	r.pageFooter(dst, "", "", foot+done+" done")
}

// pageHeader is the title bar of a page, with "n/N" when of > 0.
func (r *Renderer) pageHeader(dst *image.RGBA, title string, page, of int) {
	clear(dst, image.Rect(0, 0, r.w, 26), panel)
	r.f.text(dst, 8, 4, Bold, 15, accent, title)
	if of > 0 {
		p := fmt.Sprintf("%d/%d", page, of)
		r.f.text(dst, r.w-8-r.f.measure(Regular, 13, p), 5, Regular, 13, dim, p)
	}
}

// pageFooter is the line of button labels at the bottom: "X next   Y
// back", or text as given.
func (r *Renderer) pageFooter(dst *image.RGBA, next, back, text string) {
	if text == "" && (next != "" || back != "") {
		text = fmt.Sprintf("%s next   %s back", next, back)
	}
	if text != "" {
		r.f.text(dst, 8, r.h-20, Regular, 12, dim, r.f.ellipsize(Regular, 12, text, r.w-16))
	}
}
