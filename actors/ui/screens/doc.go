// Package screens draws the appliance's screens: pure functions from a
// view model to an *image.RGBA at the panel's size (240×240 or 320×240),
// plus the damage tracker that tells the display driver which rectangles
// changed, the built-in character and the character-pack players.
//
// Nothing here talks to actors or hardware; the ui actor owns the timing
// (animation ticks, screen timeout) and sends the damaged rectangles to
// the st7789 driver or the sim framebuffer.
//
// Fonts: Latin text uses Go's own fonts (golang.org/x/image/font/gofont,
// BSD licence), embedded in the binary: Go Bold for large text, Go Regular
// for body text and Go Mono for commands. Go fonts have no kana or kanji,
// and an embedded CJK font would add 5–20 MB to a 20 MB binary, so Japanese
// and Chinese glyphs come from a CJK TrueType/OpenType font found on the
// system at start (Debian fonts-ipafont-gothic, fonts-vlgothic or
// fonts-noto-cjk; the image installs one). Without one, each such
// character draws as an outlined box ("tofu"), and a warning is logged
// once, naming the packages that fix it.
package screens
