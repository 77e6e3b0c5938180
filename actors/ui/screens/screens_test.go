package screens

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"strings"
	"testing"
	"time"
)

func renderer(t testing.TB, w, h int) *Renderer {
	t.Helper()
	r, err := NewRenderer(w, h)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// countNear counts pixels in r within a small distance of c.
func countNear(img *image.RGBA, r image.Rectangle, c color.RGBA) (n, rows int) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		hit := false
		for x := r.Min.X; x < r.Max.X; x++ {
			p := img.RGBAAt(x, y)
			if absDiff(p.R, c.R)+absDiff(p.G, c.G)+absDiff(p.B, c.B) < 30 {
				n++
				hit = true
			}
		}
		if hit {
			rows++
		}
	}
	return n, rows
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func TestApproval_toolIsLarge(t *testing.T) {
	for _, sz := range []image.Point{{240, 240}, {320, 240}} {
		r := renderer(t, sz.X, sz.Y)
		img := r.NewFrame()
		r.Approval(img, ApprovalView{Tool: "Bash", Hint: "ls"})
		tool := image.Rect(0, approvalToolTop, sz.X, approvalToolTop+40)
		n, rows := countNear(img, tool, fg)
		if rows < 20 || n < 300 {
			t.Errorf("%v: tool text covers %d px over %d rows, want large text (≥20 rows)", sz, n, rows)
		}
		// The legends are in the approve and deny colours.
		if n, _ := countNear(img, image.Rect(0, sz.Y-36, sz.X/2, sz.Y), approveC); n < 1000 {
			t.Errorf("%v: approve legend has %d px of green", sz, n)
		}
		if n, _ := countNear(img, image.Rect(sz.X/2, sz.Y-36, sz.X, sz.Y), denyC); n < 1000 {
			t.Errorf("%v: deny legend has %d px of red", sz, n)
		}
		// After a press: no coloured legend, "sent…" instead.
		r.Approval(img, ApprovalView{Tool: "Bash", Hint: "ls", Sent: "once"})
		if n, _ := countNear(img, image.Rect(0, sz.Y-36, sz.X, sz.Y), approveC); n != 0 {
			t.Errorf("%v: sent state still shows the approve legend", sz)
		}
		// Link down: neither legend, "reconnecting…" drawn in their place.
		r.Approval(img, ApprovalView{Tool: "Bash", Hint: "ls", Reconnecting: true, Approve: "A", Deny: "B"})
		legend := image.Rect(0, sz.Y-36, sz.X, sz.Y)
		if n, _ := countNear(img, legend, approveC); n != 0 {
			t.Errorf("%v: reconnecting state shows the approve legend", sz)
		}
		if n, _ := countNear(img, legend, denyC); n != 0 {
			t.Errorf("%v: reconnecting state shows the deny legend", sz)
		}
		if n, _ := countNear(img, legend, dim); n < 50 {
			t.Errorf("%v: reconnecting state draws %d px of text in the legend, want its words", sz, n)
		}
	}
}

// TestApproval_sourceAndCount pins what tells several prompts apart: the
// source line (a desktop or terminal mark, the subagent tag in the warning
// colour) and "n of m" in the header only when more than one waits.
func TestApproval_sourceAndCount(t *testing.T) {
	srcLine := func(sz image.Point) image.Rectangle {
		return image.Rect(0, approvalSourceTop, sz.X, approvalToolTop)
	}
	for _, sz := range []image.Point{{240, 240}, {320, 240}} {
		r := renderer(t, sz.X, sz.Y)
		img := r.NewFrame()
		tests := []struct {
			name             string
			v                ApprovalView
			mark             color.RGBA
			subagent, header bool
		}{
			{"desktop alone", ApprovalView{Tool: "Bash", Source: "desktop", Index: 1, Of: 1}, desktopC, false, false},
			{"cli second of three", ApprovalView{Tool: "Bash", Source: "CLI engine · 9f3c2a10", Index: 2, Of: 3}, accent, false, true},
			{"cli subagent", ApprovalView{Tool: "Read", Source: "CLI engine · 9f3c2a10 · and a very long project name indeed",
				Subagent: "subagent Explore", Index: 1, Of: 2}, accent, true, true},
		}
		for _, tt := range tests {
			r.Approval(img, tt.v)
			if n, _ := countNear(img, image.Rect(8, approvalSourceTop+3, 12, approvalSourceTop+13), tt.mark); n < 30 {
				t.Errorf("%v %s: source mark has %d px of its colour", sz, tt.name, n)
			}
			if n, _ := countNear(img, srcLine(sz), dim); n < 20 {
				t.Errorf("%v %s: no source text (%d px)", sz, tt.name, n)
			}
			if n, _ := countNear(img, srcLine(sz), warnC); (n > 20) != tt.subagent {
				t.Errorf("%v %s: %d px of the subagent colour, want subagent=%v", sz, tt.name, n, tt.subagent)
			}
			// The count sits right of the age; fg text there only with it.
			if n, _ := countNear(img, image.Rect(sz.X-80, 0, sz.X, 26), fg); (n > 20) != tt.header {
				t.Errorf("%v %s: %d px of count text, want count=%v", sz, tt.name, n, tt.header)
			}
		}
		// A prompt with no source (an old producer) draws no source line.
		r.Approval(img, ApprovalView{Tool: "Bash"})
		if n, _ := countNear(img, srcLine(sz), bg); n != srcLine(sz).Dx()*srcLine(sz).Dy() {
			t.Errorf("%v: source line drawn without a source", sz)
		}
	}
}

// TestPairing: the code is large, the legend is approve/deny until the
// press, then "confirm on <name>" with deny (cancel) kept.
func TestPairing(t *testing.T) {
	for _, sz := range []image.Point{{240, 240}, {320, 240}} {
		r := renderer(t, sz.X, sz.Y)
		img := r.NewFrame()
		r.Pairing(img, PairingView{Name: "ada-laptop", Code: "318054", Approve: "A", Deny: "B"})
		mid := image.Rect(0, sz.Y/2-40, sz.X, sz.Y/2+30)
		if n, rows := countNear(img, mid, fg); rows < 30 || n < 1500 {
			t.Errorf("%v: code covers %d px over %d rows, want large digits", sz, n, rows)
		}
		if n, _ := countNear(img, image.Rect(0, sz.Y-36, sz.X/2, sz.Y), approveC); n < 1000 {
			t.Errorf("%v: approve legend has %d px of green", sz, n)
		}
		if n, _ := countNear(img, image.Rect(sz.X/2, sz.Y-36, sz.X, sz.Y), denyC); n < 1000 {
			t.Errorf("%v: deny legend has %d px of red", sz, n)
		}
		r.Pairing(img, PairingView{Name: "ada-laptop", Code: "318054", Accepted: true})
		if n, _ := countNear(img, image.Rect(0, sz.Y-36, sz.X, sz.Y), approveC); n != 0 {
			t.Errorf("%v: accepted pairing still shows the approve legend", sz)
		}
		if n, _ := countNear(img, image.Rect(0, sz.Y-36, sz.X, sz.Y), dim); n < 50 {
			t.Errorf("%v: accepted pairing does not say it waits (%d px)", sz, n)
		}
		// Issue 23 item 4: B still cancels once accepted, and says so.
		if n, _ := countNear(img, image.Rect(sz.X/2, sz.Y-36, sz.X, sz.Y), denyC); n < 1000 {
			t.Errorf("%v: accepted pairing has no deny legend (%d px of red)", sz, n)
		}
	}
}

func TestWrap(t *testing.T) {
	r := renderer(t, 240, 240)
	cmd := "find . -name '*.go' -newer go.mod -exec gofmt -l {} + | xargs -r git add && git commit -m 'fmt'"
	width := 220
	tests := []struct {
		name     string
		s        string
		max      int
		minLines int
		maxLines int
	}{
		{"real command", cmd, 0, 4, 8},
		{"no spaces", strings.Repeat("a/b", 40), 0, 3, 10},
		{"short", "npm test", 0, 1, 1},
		{"empty", "", 0, 0, 0},
		{"capped", cmd, 2, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := r.f.wrap(Mono, approvalHintSize, tt.s, width, tt.max)
			if len(lines) < tt.minLines || len(lines) > tt.maxLines {
				t.Fatalf("%d lines %q, want %d..%d", len(lines), lines, tt.minLines, tt.maxLines)
			}
			for _, l := range lines {
				if w := r.f.measure(Mono, approvalHintSize, l); w > width {
					t.Errorf("line %q is %d px wide, over %d", l, w, width)
				}
			}
			joined := strings.ReplaceAll(strings.Join(lines, ""), " ", "")
			want := strings.ReplaceAll(tt.s, " ", "")
			if tt.max == 0 && joined != want {
				t.Errorf("wrapping lost text: %q != %q", joined, want)
			}
			if tt.max > 0 && !strings.HasSuffix(lines[len(lines)-1], "…") {
				t.Errorf("capped wrap does not end in an ellipsis: %q", lines)
			}
		})
	}
	// The approval screen shows a whole 88-character command at 240×240.
	if n := r.ApprovalPages(ApprovalView{Tool: "Bash", Hint: cmd}); n != 1 {
		t.Errorf("a real command takes %d pages, want 1", n)
	}
}

func TestScreens_differ(t *testing.T) {
	r := renderer(t, 240, 240)
	imgs := map[string]*image.RGBA{}
	for name, draw := range sampleScreens(r) {
		img := r.NewFrame()
		draw(img)
		for other, o := range imgs {
			if bytes.Equal(o.Pix, img.Pix) {
				t.Errorf("%s and %s render identically", name, other)
			}
		}
		imgs[name] = img
	}
}

func TestBuiltIn(t *testing.T) {
	c := &BuiltIn{}
	box := image.Rect(0, 0, 120, 120)
	frame := func(p Persona, d time.Duration) *image.RGBA {
		img := image.NewRGBA(box)
		c.Draw(img, box, p, d)
		return img
	}
	seen := map[Persona]*image.RGBA{}
	for _, p := range Personas {
		a := frame(p, 0)
		if !bytes.Equal(a.Pix, frame(p, 0).Pix) {
			t.Errorf("%s: the same frame draws differently twice", p)
		}
		for q, b := range seen {
			if bytes.Equal(a.Pix, b.Pix) {
				t.Errorf("%s and %s look the same", p, q)
			}
		}
		seen[p] = a
		moved := false
		for k := 1; k < 8 && !moved; k++ {
			moved = !bytes.Equal(a.Pix, frame(p, time.Duration(k)*c.Interval(p)).Pix)
		}
		if !moved {
			t.Errorf("%s: not animated over 8 frames", p)
		}
		if c.Interval(p) < 100*time.Millisecond {
			t.Errorf("%s: interval %v, faster than needed", p, c.Interval(p))
		}
	}
}

func TestDamage(t *testing.T) {
	r := renderer(t, 240, 240)
	a := r.NewFrame()
	r.Home(a, HomeView{Persona: Idle, Msg: "ready"})
	b := cloneRGBA(a)
	if d := Damage(a, b); len(d) != 0 {
		t.Errorf("identical frames: damage %v", d)
	}
	if d := Damage(nil, b); len(d) != 1 || d[0] != b.Bounds() {
		t.Errorf("no previous frame: damage %v, want the whole panel", d)
	}
	want := image.Rect(17, 40, 63, 52)
	clear(b, want, color.RGBA{1, 2, 3, 255})
	if d := Damage(a, b); len(d) != 1 || d[0] != want {
		t.Errorf("one changed rectangle: damage %v, want [%v]", d, want)
	}
	far := image.Rect(200, 200, 210, 230)
	clear(b, far, color.RGBA{1, 2, 3, 255})
	if d := Damage(a, b); len(d) != 2 || d[0] != want || d[1] != far {
		t.Errorf("two distant changes: damage %v, want [%v %v]", d, want, far)
	}
	// A one-row gap is merged rather than costing a second window.
	c := cloneRGBA(a)
	clear(c, image.Rect(10, 10, 20, 12), color.RGBA{9, 9, 9, 255})
	clear(c, image.Rect(30, 13, 40, 15), color.RGBA{9, 9, 9, 255})
	if d := Damage(a, c); len(d) != 1 || d[0] != image.Rect(10, 10, 40, 15) {
		t.Errorf("nearby changes: damage %v", d)
	}
}

func TestDamage_homeAnimationIsSmall(t *testing.T) {
	r := renderer(t, 240, 240)
	v := HomeView{Persona: Idle, Msg: "ready", Total: 1}
	a, b := r.NewFrame(), r.NewFrame()
	r.Home(a, v)
	v.Anim = 125 * time.Millisecond
	r.Home(b, v)
	d := Damage(a, b)
	if len(d) == 0 || Area(d) > 240*240/4 {
		t.Errorf("one idle animation step damages %d px in %v; want some, under a quarter of the panel", Area(d), d)
	}
}

func TestNewRenderer_sizes(t *testing.T) {
	for _, sz := range []image.Point{{0, 0}, {100, 240}, {240, 1000}} {
		if _, err := NewRenderer(sz.X, sz.Y); err == nil {
			t.Errorf("NewRenderer(%v) accepted", sz)
		}
	}
}

// TestCJKDrawsGlyphs: with fonts-unifont installed (the image and CI
// install it), CJK draws from glyphs, not as escapes.
func TestCJKDrawsGlyphs(t *testing.T) {
	r := renderer(t, 240, 240)
	if len(FallbackFonts()) == 0 {
		t.Fatal("no fallback font: apt install fonts-unifont")
	}
	img := r.NewFrame()
	x := r.f.text(img, 0, 0, Regular, 16, fg, "日本")
	if x < 28 {
		t.Errorf("two CJK characters advance %d px, want two 16-px glyphs", x)
	}
	if n, _ := countNear(img, image.Rect(0, 0, x, 24), fg); n < 40 {
		t.Errorf("CJK text drew %d px of glyph", n)
	}
	if n, _ := countNear(img, image.Rect(0, 0, x, 24), dim); n != 0 {
		t.Errorf("CJK text drew %d px of escape box", n)
	}
}

// testGIF makes a 3-frame 4×4 GIF: a full red frame (disposal previous),
// a green pixel at (1,1) (disposal background), a blue pixel at (2,2).
func testGIF() *gif.GIF {
	pal := color.Palette{color.Transparent, color.RGBA{255, 0, 0, 255}, color.RGBA{0, 255, 0, 255}, color.RGBA{0, 0, 255, 255}}
	full := image.NewPaletted(image.Rect(0, 0, 4, 4), pal)
	for i := range full.Pix {
		full.Pix[i] = 1
	}
	g := image.NewPaletted(image.Rect(1, 1, 2, 2), pal)
	g.Pix[0] = 2
	b := image.NewPaletted(image.Rect(2, 2, 3, 3), pal)
	b.Pix[0] = 3
	return &gif.GIF{
		Image:    []*image.Paletted{full, g, b},
		Delay:    []int{10, 0, 25},
		Disposal: []byte{gif.DisposalPrevious, gif.DisposalBackground, gif.DisposalNone},
		Config:   image.Config{Width: 4, Height: 4},
	}
}

func TestGIFAnim(t *testing.T) {
	black := color.RGBA{0, 0, 0, 255}
	a, err := NewGIFAnim(testGIF(), black)
	if err != nil {
		t.Fatal(err)
	}
	at := func(i, x, y int) color.RGBA { return a.Frames[i].RGBAAt(x, y) }
	if at(0, 0, 0) != (color.RGBA{255, 0, 0, 255}) {
		t.Errorf("frame 0 = %v", at(0, 0, 0))
	}
	// Frame 0's disposal restores the black canvas before frame 1.
	if at(1, 0, 0) != black || at(1, 1, 1) != (color.RGBA{0, 255, 0, 255}) {
		t.Errorf("frame 1: (0,0)=%v (1,1)=%v; want previous-disposal back to bg", at(1, 0, 0), at(1, 1, 1))
	}
	// Frame 1's disposal clears its own rectangle to the background.
	if at(2, 1, 1) != black || at(2, 2, 2) != (color.RGBA{0, 0, 255, 255}) {
		t.Errorf("frame 2: (1,1)=%v (2,2)=%v", at(2, 1, 1), at(2, 2, 2))
	}
	wantDelays := []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond}
	for i, d := range wantDelays {
		if a.Delays[i] != d {
			t.Errorf("delay %d = %v, want %v", i, a.Delays[i], d)
		}
	}
	tests := []struct {
		t     time.Duration
		loop  bool
		frame int
		next  time.Duration
	}{
		{0, true, 0, 100 * time.Millisecond},
		{150 * time.Millisecond, true, 1, 50 * time.Millisecond},
		{449 * time.Millisecond, true, 2, time.Millisecond},
		{450 * time.Millisecond, true, 0, 100 * time.Millisecond},
		{10 * time.Second, false, 2, 0},
	}
	for _, tt := range tests {
		img, next := a.Frame(tt.t, tt.loop)
		if img != a.Frames[tt.frame] || next != tt.next {
			t.Errorf("Frame(%v, %v) = frame %p next %v, want frame %d next %v", tt.t, tt.loop, img, next, tt.frame, tt.next)
		}
	}
	if _, err := NewGIFAnim(&gif.GIF{}, black); err == nil {
		t.Error("empty GIF accepted")
	}
}

func TestPacks(t *testing.T) {
	a, _ := NewGIFAnim(testGIF(), color.RGBA{0, 0, 0, 255})
	bg := color.RGBA{10, 20, 30, 255}
	gp := &GIFPack{States: map[Persona][]*GIFAnim{Idle: {a}}, BG: bg}
	box := image.Rect(0, 0, 96, 96)
	img := image.NewRGBA(box)
	gp.Draw(img, box, Idle, 0)
	// Scaled 4×4 → 96×96 with nearest neighbour: the top-left 24×24 block
	// is frame 0's red.
	if img.RGBAAt(23, 23) != (color.RGBA{255, 0, 0, 255}) {
		t.Errorf("scaled GIF pixel = %v", img.RGBAAt(23, 23))
	}
	gp.Draw(img, box, Heart, 0)
	if n, _ := countNear(img, box, bg); n != 96*96 {
		t.Errorf("missing state drew %d non-background px", 96*96-n)
	}
	tp := &TextPack{States: map[Persona]TextState{Idle: {Frames: []string{"(o_o)", "(-_-)"}}}, Body: fg, BG: bg}
	tp.Draw(img, box, Idle, 0)
	f0 := cloneRGBA(img)
	tp.Draw(img, box, Idle, 200*time.Millisecond)
	if bytes.Equal(f0.Pix, img.Pix) {
		t.Error("text pack did not advance after its 200 ms default delay")
	}
	if n, _ := countNear(f0, box, fg); n < 50 {
		t.Errorf("text frame drew %d px of body colour", n)
	}
}

// TestLockIcon: only the closed padlock has its shackle's right leg in the
// body; the open one has a gap there and a raised shackle.
func TestLockIcon(t *testing.T) {
	for _, closed := range []bool{true, false} {
		img := image.NewRGBA(image.Rect(0, 0, 20, 20))
		lockIcon(img, 4, 5, closed, fg)
		rightLeg := img.RGBAAt(4+7, 5+3) == fg
		raised := img.RGBAAt(4+1, 5-2) == fg
		if rightLeg != closed || raised == closed {
			t.Errorf("closed=%v: right leg in the body %v, shackle raised %v", closed, rightLeg, raised)
		}
	}
}

func cloneRGBA(m *image.RGBA) *image.RGBA {
	c := image.NewRGBA(m.Bounds())
	copy(c.Pix, m.Pix)
	return c
}

// TestNewDockSerialWhole (issue 33.6): the "New dock" screen draws every
// character of the serial the Pi compares (the dock service asks only
// about serials of at most 64 characters), on every panel size.
func TestNewDockSerialWhole(t *testing.T) {
	serials := []string{"3C:84:CE:00:12:AB", strings.Repeat("W", 64), `0123456789ABCDEF\u202e0123456789abcdef0123456789ABCDEF01234`}
	for _, size := range []image.Point{{160, 120}, {240, 240}, {320, 240}, {480, 320}} {
		r, err := NewRenderer(size.X, size.Y)
		if err != nil {
			t.Fatal(err)
		}
		for _, sn := range serials {
			rows, px := r.serialRows(sn)
			if strings.Join(rows, "") != sn || len(rows) > newDockSerialRows {
				t.Errorf("%v: %d-character serial laid out as %q at %.0f px; want all of it in at most %d rows",
					size, len(sn), rows, px, newDockSerialRows)
			}
			for _, row := range rows {
				if w := r.f.measure(Mono, px, row); w > size.X-16 {
					t.Errorf("%v: row %q is %d px wide, over %d", size, row, w, size.X-16)
				}
			}
		}
	}
}
