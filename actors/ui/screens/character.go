package screens

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"time"

	"golang.org/x/image/vector"
)

// Persona is the character's state (Buddy spec §9.1), in the spec's order.
type Persona string

// The persona states.
const (
	Sleep     Persona = "sleep"
	Idle      Persona = "idle"
	Busy      Persona = "busy"
	Attention Persona = "attention"
	Celebrate Persona = "celebrate"
	Dizzy     Persona = "dizzy"
	Heart     Persona = "heart"
)

// Personas lists the states in the spec's order.
var Personas = []Persona{Sleep, Idle, Busy, Attention, Celebrate, Dizzy, Heart}

// Character draws the pet for a persona at time t since the state began.
// Implementations are deterministic in (p, t), so the same frame draws the
// same pixels and the damage tracker sends nothing for it.
type Character interface {
	Draw(dst *image.RGBA, box image.Rectangle, p Persona, t time.Duration)
	// Interval is how often the picture for p changes; the ui actor ticks
	// at this rate, never faster, so an idle screen costs no CPU between.
	Interval(p Persona) time.Duration
}

// BuiltIn is the appliance's own character, drawn by us from vector
// shapes: one of the Species (the round orange Pip by default), all with
// the same big eyes and persona effects. Frames step at Interval.
type BuiltIn struct {
	// Species indexes Species; out of range draws the first.
	Species int
	Body    color.RGBA // zero means the species' colour
	z       vector.Rasterizer
}

var (
	claudeOrange = color.RGBA{0xD9, 0x77, 0x57, 0xff}
	eyeWhite     = color.RGBA{0xfa, 0xf7, 0xf2, 0xff}
	ink          = color.RGBA{0x1d, 0x1b, 0x22, 0xff}
	blush        = color.RGBA{0xf2, 0x9c, 0x8a, 0xff}
	heartRed     = color.RGBA{0xe8, 0x45, 0x5f, 0xff}
	gold         = color.RGBA{0xf5, 0xc5, 0x42, 0xff}
	confetti     = []color.RGBA{{0x5b, 0xc0, 0xeb, 0xff}, {0x9b, 0xc5, 0x3d, 0xff}, gold, heartRed}
)

// Interval implements Character.
func (c *BuiltIn) Interval(p Persona) time.Duration {
	if p == Sleep {
		return 500 * time.Millisecond
	}
	return 125 * time.Millisecond
}

// pen draws filled paths into a box with its own coordinate scale: shapes
// are designed on a 120×120 grid centred in the box.
//
// Each shape rasterizes only its own bounding rectangle (clipped to the
// box): rasterizing the whole box per shape made a home frame cost 8 ms.
type pen struct {
	z      *vector.Rasterizer
	dst    *image.RGBA
	box    image.Rectangle
	s      float32 // pixels per design unit
	ox, oy float32 // design (0,0) in dst pixels
	local  image.Rectangle
}

func (c *BuiltIn) pen(dst *image.RGBA, box image.Rectangle) *pen { return newPen(&c.z, dst, box) }

func newPen(z *vector.Rasterizer, dst *image.RGBA, box image.Rectangle) *pen {
	side := min(box.Dx(), box.Dy())
	s := float32(side) / 120
	return &pen{z: z, dst: dst, box: box, s: s,
		ox: float32(box.Min.X) + float32(box.Dx())/2 - 60*s, oy: float32(box.Min.Y) + float32(box.Dy())/2 - 60*s}
}

// begin starts a shape inside the design-unit rectangle (x0,y0)-(x1,y1).
func (p *pen) begin(x0, y0, x1, y1 float32) {
	r := image.Rect(int(p.ox+x0*p.s)-1, int(p.oy+y0*p.s)-1, int(p.ox+x1*p.s)+2, int(p.oy+y1*p.s)+2)
	p.local = r.Intersect(p.box)
	p.z.Reset(max(p.local.Dx(), 1), max(p.local.Dy(), 1))
}

func (p *pen) pt(x, y float32) (float32, float32) {
	return p.ox + x*p.s - float32(p.local.Min.X), p.oy + y*p.s - float32(p.local.Min.Y)
}

func (p *pen) move(x, y float32) { p.z.MoveTo(p.pt(x, y)) }
func (p *pen) line(x, y float32) { p.z.LineTo(p.pt(x, y)) }
func (p *pen) cube(x1, y1, x2, y2, x, y float32) {
	ax, ay := p.pt(x1, y1)
	bx, by := p.pt(x2, y2)
	cx, cy := p.pt(x, y)
	p.z.CubeTo(ax, ay, bx, by, cx, cy)
}

func (p *pen) fill(c color.Color) {
	if p.local.Empty() {
		return
	}
	p.z.Draw(p.dst, p.local, image.NewUniform(c), image.Point{})
}

// ellipse adds an ellipse to the path (four cubic arcs).
func (p *pen) ellipse(cx, cy, rx, ry float32) {
	const k = 0.5523
	p.move(cx+rx, cy)
	p.cube(cx+rx, cy+k*ry, cx+k*rx, cy+ry, cx, cy+ry)
	p.cube(cx-k*rx, cy+ry, cx-rx, cy+k*ry, cx-rx, cy)
	p.cube(cx-rx, cy-k*ry, cx-k*rx, cy-ry, cx, cy-ry)
	p.cube(cx+k*rx, cy-ry, cx+rx, cy-k*ry, cx+rx, cy)
	p.z.ClosePath()
}

func (p *pen) disc(cx, cy, rx, ry float32, c color.Color) {
	p.begin(cx-rx, cy-ry, cx+rx, cy+ry)
	p.ellipse(cx, cy, rx, ry)
	p.fill(c)
}

// stroke draws a thick straight segment.
func (p *pen) stroke(x0, y0, x1, y1, w float32, c color.Color) {
	dx, dy := x1-x0, y1-y0
	l := float32(math.Hypot(float64(dx), float64(dy)))
	if l == 0 {
		return
	}
	nx, ny := -dy/l*w/2, dx/l*w/2
	p.begin(min(x0, x1)-w, min(y0, y1)-w, max(x0, x1)+w, max(y0, y1)+w)
	p.move(x0+nx, y0+ny)
	p.line(x1+nx, y1+ny)
	p.line(x1-nx, y1-ny)
	p.line(x0-nx, y0-ny)
	p.z.ClosePath()
	p.fill(c)
}

func (p *pen) heart(cx, cy, r float32, c color.Color) {
	p.begin(cx-1.6*r, cy-1.3*r, cx+1.6*r, cy+r)
	p.move(cx, cy+r)
	p.cube(cx-1.6*r, cy, cx-r, cy-1.3*r, cx, cy-0.5*r)
	p.cube(cx+r, cy-1.3*r, cx+1.6*r, cy, cx, cy+r)
	p.z.ClosePath()
	p.fill(c)
}

// Draw implements Character.
func (c *BuiltIn) Draw(dst *image.RGBA, box image.Rectangle, pe Persona, t time.Duration) {
	sp := speciesOf(c.Species)
	body := c.Body
	if body.A == 0 {
		body = sp.colour
	}
	frame := int(t / c.Interval(pe))
	ph := float64(frame) // phase in frames
	p := c.pen(dst, box)

	// Body motion per state: a bob, a bounce or a wobble.
	var dy, dx, squash float32
	switch pe {
	case Idle:
		dy = float32(2 * math.Sin(ph*math.Pi/8))
	case Sleep:
		squash = float32(1.5 * math.Sin(ph*math.Pi/4))
	case Busy:
		dy = float32(1.5 * math.Sin(ph*math.Pi/2))
	case Attention:
		dy = -float32(4 * math.Abs(math.Sin(ph*math.Pi/4)))
	case Celebrate:
		dy = -float32(10 * math.Abs(math.Sin(ph*math.Pi/6)))
	case Dizzy:
		dx = float32(4 * math.Sin(ph*math.Pi/3))
	case Heart:
		dy = float32(1.5 * math.Sin(ph*math.Pi/6))
	}
	sp.body(p, body, dx, dy, squash, frame)

	ex, ey := 60+dx, 60+dy // face centre
	switch pe {
	case Sleep:
		p.stroke(ex-20, ey+2, ex-8, ey+2, 3, ink)
		p.stroke(ex+8, ey+2, ex+20, ey+2, 3, ink)
		p.disc(ex, ey+16, 3, 2, ink)
		// Zs drift up and restart every 4 frames.
		for i := range 2 {
			k := float32((frame + 2*i) % 4)
			zx, zy, zs := ex+26+k*3, ey-26-k*7, float32(4+k)
			p.stroke(zx, zy, zx+zs, zy, 2, eyeWhite)
			p.stroke(zx+zs, zy, zx, zy+zs, 2, eyeWhite)
			p.stroke(zx, zy+zs, zx+zs, zy+zs, 2, eyeWhite)
		}
	case Dizzy:
		for _, sx := range []float32{-14, 14} {
			a := ph * math.Pi / 3
			for j := range 2 {
				a2 := a + float64(j)*math.Pi/2
				cx, cy := float32(7*math.Cos(a2)), float32(7*math.Sin(a2))
				p.stroke(ex+sx-cx, ey-cy, ex+sx+cx, ey+cy, 3, ink)
			}
		}
		p.disc(ex, ey+18, 6, 4, ink)
	case Heart:
		p.heart(ex-14, ey, 8, heartRed)
		p.heart(ex+14, ey, 8, heartRed)
		p.smile(ex, ey+14, 8)
		for i := range 3 {
			k := float32((frame + 3*i) % 9)
			p.heart(20+float32(i)*40, 30-k*3, 4+k/3, heartRed)
		}
	default:
		c.eyes(p, pe, ex, ey, frame)
	}
	switch pe {
	case Busy:
		// Three dots orbit above the head: "thinking".
		for i := range 3 {
			a := ph*math.Pi/4 + float64(i)*2*math.Pi/3
			p.disc(60+float32(18*math.Cos(a)), 16+float32(5*math.Sin(a)), 3.5, 3.5, eyeWhite)
		}
	case Attention:
		p.stroke(60+dx, 4+dy, 60+dx, 18+dy, 5, gold)
		p.disc(60+dx, 24+dy, 3, 3, gold)
	case Celebrate:
		for i := range 10 {
			k := float32((frame*3 + i*7) % 40)
			x := float32(6 + (i*23)%108)
			p.disc(x, 4+k*2.5, 2.5, 2.5, confetti[i%len(confetti)])
		}
	}
}

// eyes draws open eyes with pupils, a mouth and blush.
func (c *BuiltIn) eyes(p *pen, pe Persona, ex, ey float32, frame int) {
	ry := float32(9)
	if pe == Attention {
		ry = 11
	}
	// Blink for one frame in every 24 while idle or busy.
	if (pe == Idle || pe == Busy) && frame%24 == 23 {
		p.stroke(ex-21, ey, ex-7, ey, 3, ink)
		p.stroke(ex+7, ey, ex+21, ey, 3, ink)
	} else {
		var look float32
		if pe == Busy {
			look = float32(3 * math.Sin(float64(frame)*math.Pi/6))
		}
		for _, sx := range []float32{-14, 14} {
			p.disc(ex+sx, ey, 8, ry, eyeWhite)
			p.disc(ex+sx+look, ey+1, 4.5, 5.5, ink)
			p.disc(ex+sx+look+1.5, ey-1.5, 1.5, 1.5, eyeWhite)
		}
	}
	if c.Species != speciesBolt {
		p.disc(ex-24, ey+12, 5, 3, blush)
		p.disc(ex+24, ey+12, 5, 3, blush)
	}
	switch pe {
	case Attention:
		p.disc(ex, ey+18, 5, 5, ink)
	case Celebrate:
		p.begin(ex-10, ey+12, ex+10, ey+26)
		p.move(ex-10, ey+12)
		p.cube(ex-8, ey+26, ex+8, ey+26, ex+10, ey+12)
		p.z.ClosePath()
		p.fill(ink)
	default:
		p.smile(ex, ey+14, 6)
	}
}

// smile draws a small curved mouth.
func (p *pen) smile(cx, cy, w float32) {
	p.begin(cx-w, cy, cx+w, cy+w)
	p.move(cx-w, cy)
	p.cube(cx-w/2, cy+w*0.9, cx+w/2, cy+w*0.9, cx+w, cy)
	p.cube(cx+w/2, cy+w*0.5, cx-w/2, cy+w*0.5, cx-w, cy)
	p.z.ClosePath()
	p.fill(ink)
}

// clear fills r with c.
func clear(dst *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
}
