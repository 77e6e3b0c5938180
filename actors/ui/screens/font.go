package screens

import (
	"image"
	"image/color"
	"image/draw"
	"log/slog"
	"os"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// CJKFontPaths are tried in order for a font with kana and kanji. The first
// that parses wins. TTC collections use their first face.
var CJKFontPaths = []string{
	"/usr/share/fonts/opentype/ipafont-gothic/ipagp.ttf",
	"/usr/share/fonts/truetype/fonts-japanese-gothic.ttf",
	"/usr/share/fonts/truetype/vlgothic/VL-Gothic-Regular.ttf",
	"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/opentype/noto/NotoSansCJKjp-Regular.otf",
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
	parseOnce sync.Once
	goFonts   [3]*sfnt.Font
	cjkFont   *sfnt.Font
	cjkPath   string
	warnOnce  sync.Once
)

func loadFonts() {
	for i, ttf := range [][]byte{goregular.TTF, gobold.TTF, gomono.TTF} {
		f, err := opentype.Parse(ttf)
		if err != nil {
			panic("BUG: embedded Go font does not parse: " + err.Error())
		}
		goFonts[i] = f
	}
	for _, p := range CJKFontPaths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if c, err := opentype.ParseCollection(b); err == nil && c.NumFonts() > 0 {
			if f, err := c.Font(0); err == nil {
				cjkFont, cjkPath = f, p
				return
			}
		}
	}
}

// CJKFont reports the system CJK font in use, or "" if none was found.
func CJKFont() string {
	parseOnce.Do(loadFonts)
	return cjkPath
}

// faceKey identifies a cached face.
type faceKey struct {
	style Style
	size  float64
}

// fonts caches faces. Faces keep scratch buffers, so one fonts value
// belongs to one Renderer and is not shared between goroutines.
type fonts struct {
	faces map[faceKey][2]font.Face // [primary, CJK or nil]
}

func newFonts() *fonts {
	parseOnce.Do(loadFonts)
	return &fonts{faces: map[faceKey][2]font.Face{}}
}

func (fs *fonts) face(st Style, size float64) [2]font.Face {
	k := faceKey{st, size}
	if f, ok := fs.faces[k]; ok {
		return f
	}
	opts := &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull}
	var pair [2]font.Face
	pair[0], _ = opentype.NewFace(goFonts[st], opts)
	if cjkFont != nil {
		pair[1], _ = opentype.NewFace(cjkFont, opts)
	}
	fs.faces[k] = pair
	return pair
}

// glyphFace picks the face that has r: Go first, then the CJK font. nil
// means tofu.
func glyphFace(pair [2]font.Face, r rune) (font.Face, fixed.Int26_6) {
	if adv, ok := pair[0].GlyphAdvance(r); ok || r == ' ' {
		return pair[0], adv
	}
	if pair[1] != nil {
		if adv, ok := pair[1].GlyphAdvance(r); ok {
			return pair[1], adv
		}
	}
	if r >= 0x2E80 {
		warnOnce.Do(func() {
			slog.Warn("screens: no CJK font; Japanese and Chinese text shows as boxes",
				"fix", "apt install fonts-ipafont-gothic (or fonts-vlgothic, fonts-noto-cjk)")
		})
	}
	return nil, fixed.I(int(pair[0].Metrics().Height.Round()) / 2)
}

// measure returns the advance width of s in pixels.
func (fs *fonts) measure(st Style, size float64, s string) int {
	pair := fs.face(st, size)
	var w fixed.Int26_6
	for _, r := range s {
		_, adv := glyphFace(pair, r)
		w += adv
	}
	return w.Ceil()
}

// lineHeight is the distance between baselines.
func (fs *fonts) lineHeight(st Style, size float64) int {
	return fs.face(st, size)[0].Metrics().Height.Ceil()
}

// ascent is the baseline's distance below a line's top.
func (fs *fonts) ascent(st Style, size float64) int {
	return fs.face(st, size)[0].Metrics().Ascent.Ceil()
}

// text draws s with its top-left at (x, y) and returns the x after it.
func (fs *fonts) text(dst draw.Image, x, y int, st Style, size float64, c color.Color, s string) int {
	pair := fs.face(st, size)
	src := image.NewUniform(c)
	asc := pair[0].Metrics().Ascent
	dot := fixed.Point26_6{X: fixed.I(x), Y: fixed.I(y) + asc}
	for _, r := range s {
		f, adv := glyphFace(pair, r)
		if f == nil {
			tofu(dst, dot, adv, asc, c)
			dot.X += adv
			continue
		}
		dr, mask, mp, a, ok := f.Glyph(dot, r)
		if ok {
			draw.DrawMask(dst, dr, src, image.Point{}, mask, mp, draw.Over)
		}
		dot.X += a
	}
	return dot.X.Ceil()
}

// tofu outlines a box where a glyph is missing.
func tofu(dst draw.Image, dot fixed.Point26_6, adv, asc fixed.Int26_6, c color.Color) {
	x0, x1 := dot.X.Round()+1, (dot.X+adv).Round()-2
	y0, y1 := (dot.Y - asc*3/4).Round(), dot.Y.Round()
	for x := x0; x <= x1; x++ {
		dst.Set(x, y0, c)
		dst.Set(x, y1, c)
	}
	for y := y0; y <= y1; y++ {
		dst.Set(x0, y, c)
		dst.Set(x1, y, c)
	}
}
