package screens

import (
	"fmt"
	"image"
	"image/color"
	"time"

	"golang.org/x/image/vector"
)

// Palette: a dark warm background keeps the backlight glare low and the
// orange character and coloured legends readable across the room.
var (
	bg       = color.RGBA{0x17, 0x15, 0x1c, 0xff}
	panel    = color.RGBA{0x26, 0x23, 0x2d, 0xff}
	fg       = color.RGBA{0xf4, 0xf1, 0xea, 0xff}
	dim      = color.RGBA{0x9a, 0x94, 0x8c, 0xff}
	accent   = claudeOrange
	approveC = color.RGBA{0x4c, 0xc3, 0x6a, 0xff}
	desktopC = color.RGBA{0x5a, 0x9c, 0xe6, 0xff}
	denyC    = color.RGBA{0xe5, 0x55, 0x4f, 0xff}
	warnC    = color.RGBA{0xf0, 0x8a, 0x3c, 0xff}
	linkOff  = color.RGBA{0x55, 0x50, 0x58, 0xff}
	// nonASCIIC tints characters outside ASCII in a command.
	nonASCIIC = color.RGBA{0x9f, 0xd8, 0xff, 0xff}
)

// Renderer draws screens at one panel size. It caches font faces and is
// not safe for concurrent use: the ui actor owns one.
type Renderer struct {
	w, h int
	f    *fonts
	// Character draws the pet on the home screen; nil means BuiltIn.
	Character Character
	z         *vector.Rasterizer // for the icons of the stats page
	// The pages of the last approval laid out, and for what.
	laidOut    []approvalPage
	laidOutFor ApprovalView
}

// NewRenderer returns a renderer for a w×h panel (240×240 or 320×240;
// other sizes from 160×120 to 480×320 work but are not tuned).
func NewRenderer(w, h int) (*Renderer, error) {
	if w < 160 || h < 120 || w > 480 || h > 320 {
		return nil, fmt.Errorf("screens: panel size %dx%d outside 160x120..480x320", w, h)
	}
	return &Renderer{w: w, h: h, f: newFonts(), Character: &BuiltIn{}}, nil
}

// NewFrame returns a blank frame at the panel's size.
func (r *Renderer) NewFrame() *image.RGBA { return image.NewRGBA(image.Rect(0, 0, r.w, r.h)) }

// Links is the state of the three links, for the icons in the top bar.
type Links struct {
	BLE       bool // a central is connected and subscribed
	Encrypted bool // the BLE link is encrypted and authenticated (ble.LinkState.Secured)
	Desktop   bool // the desktop session is live (a valid line within 30 s)
	Dock      bool // the CoreS3 is connected
}

// HomeView is what the home screen shows.
type HomeView struct {
	Persona  Persona
	Anim     time.Duration // time since the persona began, for the frame
	Links    Links
	Total    int
	Running  int
	Waiting  int
	Entries  []string // chronological; the newest is last and highlighted
	Msg      string   // shown when there are no entries
	Owner    string   // "" hides it
	Warning  string   // e.g. "open link: not encrypted"; "" hides it
	TimeText string   // the desktop's "10:42" in the top bar, or "" before its time arrived
	// Notice is "Claude is waiting for you" while a terminal session
	// waits (its Notification hook said so); "" hides it. Badges are the
	// terminal sessions not in the default mode (sessions.go).
	Notice    string
	NoticeWho string // the waiting session's project, drawn after Notice where it fits
	Badges    []SessionBadge
}

// Home draws the home screen into dst.
func (r *Renderer) Home(dst *image.RGBA, v HomeView) {
	clear(dst, dst.Bounds(), bg)
	r.topBar(dst, v.Links, v.Total, v.Running, v.Waiting, v.TimeText)
	wide := r.w >= 300
	var charBox, hud image.Rectangle
	if wide {
		charBox = image.Rect(0, 24, 136, r.h-4)
		hud = image.Rect(140, 28, r.w-6, r.h-6)
	} else {
		charBox = image.Rect(50, 24, r.w-50, 24+112)
		hud = image.Rect(6, 140, r.w-6, r.h-6)
	}
	c := r.Character
	if c == nil {
		c = &BuiltIn{}
	}
	c.Draw(dst, charBox, v.Persona, v.Anim)

	y := hud.Min.Y
	if v.Warning != "" {
		r.f.text(dst, hud.Min.X, y, Bold, 13, warnC, r.f.ellipsize(Bold, 13, "! "+v.Warning, hud.Dx()))
		y += r.f.lineHeight(Bold, 13)
	}
	y = r.sessionLines(dst, hud, y, v)
	const size = 14
	lh := r.f.lineHeight(Regular, size)
	avail := (hud.Max.Y - y) / lh
	var lines []struct {
		s      string
		newest bool
	}
	if len(v.Entries) == 0 {
		msg := v.Msg
		if msg == "" {
			msg = "ready"
		}
		for _, l := range r.f.wrap(Regular, size, msg, hud.Dx(), avail) {
			lines = append(lines, struct {
				s      string
				newest bool
			}{l, true})
		}
	} else {
		// Newest first claims its lines, older entries fill what is left
		// above it; displayed oldest to newest.
		for i := len(v.Entries) - 1; i >= 0 && len(lines) < avail; i-- {
			w := r.f.wrap(Regular, size, v.Entries[i], hud.Dx()-6, avail-len(lines))
			block := make([]struct {
				s      string
				newest bool
			}, len(w))
			for j, l := range w {
				block[j].s, block[j].newest = l, i == len(v.Entries)-1
			}
			lines = append(block, lines...)
		}
	}
	// The newest entry gets one bar beside all its lines, however many it
	// wraps onto: a bar per line would read as several entries.
	barTop, barBottom := -1, -1
	for _, l := range lines {
		c := dim
		if l.newest {
			c = fg
			if barTop < 0 {
				barTop = y + 2
			}
			barBottom = y + lh - 2
		}
		r.f.text(dst, hud.Min.X+6, y, Regular, size, c, l.s)
		y += lh
	}
	if barTop >= 0 {
		clear(dst, image.Rect(hud.Min.X, barTop, hud.Min.X+2, barBottom), accent)
	}
}

// topBar draws the link icons on the left and the session counts on the
// right.
func (r *Renderer) topBar(dst *image.RGBA, l Links, total, running, waiting int, clock string) {
	clear(dst, image.Rect(0, 0, r.w, 22), panel)
	x := 6
	x = r.icon(dst, x, "BLE", l.BLE)
	if l.BLE {
		c := approveC
		if !l.Encrypted {
			c = warnC
		}
		lockIcon(dst, x-2, 5, l.Encrypted, c)
		x += 12
	}
	x = r.icon(dst, x, "PC", l.Desktop)
	left := r.icon(dst, x, "S3", l.Dock)
	s := fmt.Sprintf("%d ►%d", total, running)
	right := r.w - 6
	if waiting > 0 {
		w := fmt.Sprintf(" ?%d", waiting)
		right -= r.f.measure(Bold, 13, w)
		r.f.text(dst, right, 3, Bold, 13, accent, w)
	}
	right -= r.f.measure(Bold, 13, s)
	r.f.text(dst, right, 3, Bold, 13, fg, s)
	// The desktop's clock in the gap between, centred when it fits there,
	// else as far right as it goes; left out when even that overlaps.
	if clock != "" {
		w := r.f.measure(Bold, 13, clock)
		cx := max((r.w-w)/2, left+4)
		if cx+w <= right-8 {
			r.f.text(dst, cx, 3, Bold, 13, dim, clock)
		}
	}
}

// icon draws a small link label, lit or dim, and returns the next x.
func (r *Renderer) icon(dst *image.RGBA, x int, label string, on bool) int {
	c := linkOff
	if on {
		c = approveC
	}
	clear(dst, image.Rect(x, 8, x+6, 14), c)
	x += 9
	x = r.f.text(dst, x, 4, Bold, 11, c, label)
	return x + 6
}

// lockIcon draws a 9×11 padlock: closed (both legs of the shackle in the
// body) only on an encrypted, authenticated link; open (the shackle
// raised, its right leg out of the body) otherwise.
func lockIcon(dst *image.RGBA, x, y int, closed bool, c color.Color) {
	clear(dst, image.Rect(x, y+5, x+9, y+12), c)
	top, right := y, y+5
	if !closed {
		top, right = y-3, y-1
	}
	for yy := top; yy < y+5; yy++ {
		dst.Set(x+1, yy, c)
	}
	for yy := top; yy < right; yy++ {
		dst.Set(x+7, yy, c)
	}
	for xx := x + 1; xx <= x+7; xx++ {
		dst.Set(xx, top, c)
	}
}
