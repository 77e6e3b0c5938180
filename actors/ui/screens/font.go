package screens

import (
	"image"
	"image/color"
	"image/draw"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// FallbackFontPaths are GNU Unifont's faces: the whole Basic Multilingual
// Plane (CJK, Hangul, Arabic, Hebrew, symbols), then the upper planes
// (emoji, in monochrome). Each entry is a glob; the first file it matches
// that parses joins the fallback chain after the Go fonts, in order.
// Debian's fonts-unifont comes first (the image and CI); then where
// Homebrew's font-gnu-unifont cask puts it, so `go run .` on a Mac draws the
// same glyphs.
var FallbackFontPaths = [][]string{
	{"/usr/share/fonts/opentype/unifont/unifont.otf", "/Library/Fonts/unifont-*.otf", "~/Library/Fonts/unifont-*.otf"},
	{"/usr/share/fonts/opentype/unifont/unifont_upper.otf", "/Library/Fonts/unifont_upper-*.otf", "~/Library/Fonts/unifont_upper-*.otf"},
}

// Style selects a typeface.
type Style int

// The typefaces.
const (
	Regular Style = iota
	Bold
	Mono
)

var (
	parseOnce     sync.Once
	goFonts       [3]*sfnt.Font
	fallbackFonts []*sfnt.Font
	fallbackPaths []string
	warnOnce      sync.Once
)

func loadFonts() {
	for i, ttf := range [][]byte{goregular.TTF, gobold.TTF, gomono.TTF} {
		f, err := opentype.Parse(ttf)
		if err != nil {
			panic("BUG: embedded Go font does not parse: " + err.Error())
		}
		goFonts[i] = f
	}
	home, _ := os.UserHomeDir()
	for _, globs := range FallbackFontPaths {
	face:
		for _, g := range globs {
			if strings.HasPrefix(g, "~/") {
				g = filepath.Join(home, g[2:])
			}
			matches, _ := filepath.Glob(g)
			for _, p := range matches {
				b, err := os.ReadFile(p)
				if err != nil {
					continue
				}
				if f, err := opentype.Parse(b); err == nil {
					fallbackFonts = append(fallbackFonts, f)
					fallbackPaths = append(fallbackPaths, p)
					break face
				}
			}
		}
	}
}

// FallbackFonts reports the fallback fonts in use; none means characters
// outside the Go fonts (Latin, Greek, Cyrillic) show as ⟨U+XXXX⟩.
func FallbackFonts() []string {
	parseOnce.Do(loadFonts)
	return fallbackPaths
}

// faceKey identifies a cached face.
type faceKey struct {
	style Style
	size  float64
}

// fonts caches faces. Faces keep scratch buffers, so one fonts value
// belongs to one Renderer and is not shared between goroutines.
type fonts struct {
	faces     map[faceKey][]font.Face // the Go face, then the fallbacks
	fallbacks []*sfnt.Font
}

func newFonts() *fonts {
	parseOnce.Do(loadFonts)
	return &fonts{faces: map[faceKey][]font.Face{}, fallbacks: fallbackFonts}
}

// unifontSize is the size a fallback is drawn at for text of size s:
// Unifont is a 16-pixel bitmap design, crisp only at multiples of 16.
func unifontSize(s float64) float64 {
	if s >= 24 {
		return 32
	}
	return 16
}

func (fs *fonts) face(st Style, size float64) []font.Face {
	k := faceKey{st, size}
	if f, ok := fs.faces[k]; ok {
		return f
	}
	chain := make([]font.Face, 0, 1+len(fs.fallbacks))
	f, _ := opentype.NewFace(goFonts[st], &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	chain = append(chain, f)
	for _, fb := range fs.fallbacks {
		f, _ := opentype.NewFace(fb, &opentype.FaceOptions{Size: unifontSize(size), DPI: 72, Hinting: font.HintingNone})
		chain = append(chain, f)
	}
	fs.faces[k] = chain
	return chain
}

// glyphFace picks the first face of the chain that has r, nil when none.
func glyphFace(chain []font.Face, r rune) (font.Face, fixed.Int26_6) {
	for _, f := range chain {
		if adv, ok := f.GlyphAdvance(r); ok {
			return f, adv
		}
	}
	if r >= 0x2E80 && len(chain) == 1 {
		warnOnce.Do(func() {
			slog.Warn("screens: no fallback font; CJK, Hangul and emoji show as ⟨U+XXXX⟩ escapes",
				"fix", "apt install fonts-unifont (macOS: brew install --cask font-gnu-unifont)")
		})
	}
	return nil, 0
}

// hasGlyph reports whether some face of the style draws r.
func (fs *fonts) hasGlyph(st Style, size float64, r rune) bool {
	f, _ := glyphFace(fs.face(st, size), r)
	return f != nil
}

// lineHeight is the distance between baselines.
func (fs *fonts) lineHeight(st Style, size float64) int {
	return fs.face(st, size)[0].Metrics().Height.Ceil()
}

// ascent is the baseline's distance below a line's top.
func (fs *fonts) ascent(st Style, size float64) int {
	return fs.face(st, size)[0].Metrics().Ascent.Ceil()
}

// glyph draws the character r with its baseline at dot and returns its
// advance. The caller has checked that a face has it.
func (fs *fonts) glyph(dst draw.Image, dot fixed.Point26_6, st Style, size float64, c color.Color, r rune) fixed.Int26_6 {
	f, adv := glyphFace(fs.face(st, size), r)
	if f == nil {
		return 0
	}
	dr, mask, mp, _, ok := f.Glyph(dot, r)
	if ok {
		draw.DrawMask(dst, dr, image.NewUniform(c), image.Point{}, mask, mp, draw.Over)
	}
	return adv
}
