package screens

import (
	"image/color"
	"math"
)

// The built-in species: characters of our own design, each a body drawn
// from vector shapes on the 120-unit grid around the shared face. The
// desktop's {"cmd":"species","idx":N} and the settings page pick one by
// its index; actors/buddy.BuiltInSpecies is held to len(Species).
const (
	speciesPip = iota
	speciesTabby
	speciesBolt
	speciesWisp
)

// Species names the built-ins, in index order.
var Species = []string{"Pip", "Tabby", "Bolt", "Wisp"}

type species struct {
	colour color.RGBA
	body   func(p *pen, c color.RGBA, dx, dy, squash float32, frame int)
}

var speciesTable = [...]species{
	speciesPip:   {claudeOrange, pipBody},
	speciesTabby: {color.RGBA{0x9a, 0xa6, 0xb8, 0xff}, tabbyBody},
	speciesBolt:  {color.RGBA{0x4f, 0xb0, 0xa5, 0xff}, boltBody},
	speciesWisp:  {color.RGBA{0xd9, 0xd2, 0xf2, 0xff}, wispBody},
}

func speciesOf(i int) species {
	if i < 0 || i >= len(speciesTable) {
		i = speciesPip
	}
	return speciesTable[i]
}

var shadow = color.RGBA{0, 0, 0, 0x50}

// darker is c at three quarters of its brightness, for a second tone.
func darker(c color.RGBA) color.RGBA {
	return color.RGBA{c.R / 4 * 3, c.G / 4 * 3, c.B / 4 * 3, c.A}
}

// pipBody is the round buddy with two feet.
func pipBody(p *pen, c color.RGBA, dx, dy, squash float32, _ int) {
	p.disc(60, 104, 30-dy/2, 4, shadow)
	p.disc(60+dx, 66+dy+squash/2, 38+squash/2, 34-squash/2, c)
	p.disc(45+dx, 99+dy/3, 8, 4, c)
	p.disc(75+dx, 99+dy/3, 8, 4, c)
}

// tabbyBody is a cat: pointed ears, stripes on the brow, whiskers and a
// tail that sways.
func tabbyBody(p *pen, c color.RGBA, dx, dy, squash float32, frame int) {
	stripe := darker(c)
	p.disc(60, 104, 32-dy/2, 4, shadow)
	// The tail first, behind the body: a thick stroke from the hip.
	sway := float32(6 * math.Sin(float64(frame)*math.Pi/10))
	p.stroke(88+dx, 92+dy, 104+dx+sway, 70+dy, 7, stripe)
	p.disc(104+dx+sway, 70+dy, 3.5, 3.5, stripe)
	for _, side := range []float32{-1, 1} {
		x := 60 + dx + side*22
		p.begin(x-16, 18+dy, x+16, 50+dy)
		p.move(x-side*14, 44+dy)
		p.line(x+side*6, 20+dy)
		p.line(x+side*14, 46+dy)
		p.z.ClosePath()
		p.fill(c)
	}
	p.disc(60+dx, 66+dy+squash/2, 37+squash/2, 33-squash/2, c)
	for i := range 3 {
		x := 50 + dx + float32(i)*10
		p.stroke(x, 36+dy, x, 44+dy, 2.5, stripe)
	}
	for _, side := range []float32{-1, 1} {
		for j := range 2 {
			y := 72 + dy + float32(j)*5
			p.stroke(60+dx+side*26, y, 60+dx+side*40, y-3+float32(j)*4, 1.5, ink)
		}
	}
	p.disc(46+dx, 99+dy/3, 7, 4, stripe)
	p.disc(74+dx, 99+dy/3, 7, 4, stripe)
}

// boltBody is a robot: a rounded box on two legs, an antenna whose tip
// blinks, and a panel on the chest.
func boltBody(p *pen, c color.RGBA, dx, dy, squash float32, frame int) {
	p.disc(60, 106, 28-dy/2, 4, shadow)
	p.stroke(48+dx, 92+dy, 48+dx, 104+dy/3, 6, darker(c))
	p.stroke(72+dx, 92+dy, 72+dx, 104+dy/3, 6, darker(c))
	p.stroke(60+dx, 34+dy, 60+dx, 18+dy, 3, darker(c))
	tip := gold
	if frame%8 >= 4 {
		tip = darker(gold)
	}
	p.disc(60+dx, 16+dy, 5, 5, tip)
	p.roundRect(24+dx, 32+dy+squash, 96+dx, 97+dy, 14, c)
	p.roundRect(46+dx, 84+dy, 74+dx, 93+dy, 3, darker(c))
	for i := range 3 {
		on := (frame/2+i)%3 == 0
		led := eyeWhite
		if !on {
			led = darker(c)
		}
		p.disc(52+dx+float32(i)*8, 88.5+dy, 2, 2, led)
	}
}

// wispBody is a small ghost: a dome with a hem that ripples, floating
// over its shadow.
func wispBody(p *pen, c color.RGBA, dx, dy, squash float32, frame int) {
	float := float32(3 * math.Sin(float64(frame)*math.Pi/12))
	p.disc(60, 106, 24-float, 3.5, shadow)
	top, hem := 28+dy-float+squash, 96+dy-float
	p.begin(20+dx, top, 100+dx, hem+8)
	p.move(22+dx, 64+dy-float)
	p.cube(22+dx, top-6, 98+dx, top-6, 98+dx, 64+dy-float)
	p.line(98+dx, hem)
	// Four scallops along the hem, their phase running with the frame.
	ph := float64(frame) * math.Pi / 6
	for i := 4; i > 0; i-- {
		x0, x1 := 22+dx+float32(i)*19, 22+dx+float32(i-1)*19
		d := float32(6 + 3*math.Sin(ph+float64(i)))
		p.cube(x0-4, hem+d, x1+4, hem+d, x1, hem)
	}
	p.z.ClosePath()
	p.fill(c)
}

// roundRect fills a rectangle with corners of radius r.
func (p *pen) roundRect(x0, y0, x1, y1, r float32, c color.Color) {
	const k = 0.5523
	p.begin(x0, y0, x1, y1)
	p.move(x0+r, y0)
	p.line(x1-r, y0)
	p.cube(x1-r+k*r, y0, x1, y0+r-k*r, x1, y0+r)
	p.line(x1, y1-r)
	p.cube(x1, y1-r+k*r, x1-r+k*r, y1, x1-r, y1)
	p.line(x0+r, y1)
	p.cube(x0+r-k*r, y1, x0, y1-r+k*r, x0, y1-r)
	p.line(x0, y0+r)
	p.cube(x0, y0+r-k*r, x0+r-k*r, y0, x0+r, y0)
	p.z.ClosePath()
	p.fill(c)
}
