// Package screens draws the appliance's screens: pure functions from a
// view model to an *image.RGBA at the panel's size (240×240 or 320×240),
// plus the damage tracker that tells the display driver which rectangles
// changed, the built-in character and the character-pack players.
//
// Nothing here talks to actors or hardware; the ui actor owns the timing
// (animation ticks, screen timeout) and sends the damaged rectangles to
// the st7789 driver or the sim framebuffer.
//
// Fonts: Latin, Greek and Cyrillic use Go's own fonts
// (golang.org/x/image/font/gofont, BSD licence), embedded in the binary: Go
// Bold for large text, Go Regular for body text and Go Mono for commands.
// Everything else comes from GNU Unifont (Debian fonts-unifont, GPL-2+
// with the font exception or OFL-1.1): the whole BMP, CJK and Hangul
// included, and the upper planes' emoji in monochrome, drawn at 16 or 32
// px where its pixels stay crisp. It is read from the system at start (the
// image and .ci/run install it) rather than embedded: 5.7 MB of fonts
// would double the binary. Without it, each such character draws as a
// grey ⟨U+XXXX⟩ box, and a warning is logged once, naming the package.
//
// Text goes through protocols/safetext (text.go): hidden characters become
// boxed escapes, nothing is reordered, labels are elided in the middle.
package screens
