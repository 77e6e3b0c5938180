package st7789

import "image/color"

// RGB565 is a colour as the panel stores it: 5 bits red, 6 green, 5 blue.
type RGB565 uint16

// RGBA implements color.Color. Channels are widened by replicating their
// top bits so that white stays 0xFFFF rather than 0xF800.
func (c RGB565) RGBA() (r, g, b, a uint32) {
	r5 := uint32(c>>11) & 0x1F
	g6 := uint32(c>>5) & 0x3F
	b5 := uint32(c) & 0x1F
	r8 := r5<<3 | r5>>2
	g8 := g6<<2 | g6>>4
	b8 := b5<<3 | b5>>2
	return r8 * 0x101, g8 * 0x101, b8 * 0x101, 0xFFFF
}

// RGB565Model converts any colour to RGB565, premultiplied over black.
var RGB565Model = color.ModelFunc(func(c color.Color) color.Color {
	if c, ok := c.(RGB565); ok {
		return c
	}
	r, g, b, _ := c.RGBA()
	return RGB565(to565(r, g, b))
})

// to565 packs 16-bit channels as returned by color.Color.RGBA.
func to565(r, g, b uint32) uint16 {
	return uint16(r>>11<<11 | g>>10<<5 | b>>11)
}
