package screens

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font"

	"github.com/claude-pi/claude-pi/protocols/safetext"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden/*.png from the current rendering")

// hostile is one prompt of the shared corpus of hostile prompts.
type hostile struct {
	Name, Tool, Hint, Detail, Label string
}

func readHostile(t testing.TB) []hostile {
	t.Helper()
	b, err := os.ReadFile("../../../protocols/safetext/testdata/hostile.json")
	if err != nil {
		t.Fatal(err)
	}
	var c []hostile
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal("hostile.json:", err)
	}
	return c
}

func (h hostile) view() ApprovalView {
	src, sub := "CLI engine · 9f3c2a10", ""
	if h.Label != "" {
		src = h.Label
		if i := strings.Index(src, " · subagent"); i >= 0 {
			src, sub = src[:i], src[i+len(" · "):]
		}
	}
	return ApprovalView{Tool: h.Tool, Hint: h.Hint, Detail: h.Detail, Source: src, Subagent: sub,
		Age: 18 * time.Second, Approve: "A", Deny: "B", Next: "X", Back: "Y"}
}

// inked counts the pixels that are not blank.
func inked(img *image.RGBA) int {
	n := 0
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i]|img.Pix[i+1]|img.Pix[i+2] != 0 {
			n++
		}
	}
	return n
}

// pagesOf renders every page of v.
func pagesOf(r *Renderer, v ApprovalView) []*image.RGBA {
	n := r.ApprovalPages(v)
	out := make([]*image.RGBA, n)
	for i := range n {
		out[i] = r.NewFrame()
		v.Page = i
		if d := r.Approval(out[i], v); d.Page != i || d.Pages != n {
			panic(fmt.Sprintf("Approval drew page %d of %d, asked %d of %d", d.Page, d.Pages, i, n))
		}
	}
	return out
}

func requireFallback(t testing.TB) {
	t.Helper()
	if len(FallbackFonts()) < 2 {
		t.Fatalf("fallback fonts missing (found %q): apt install fonts-unifont", FallbackFonts())
	}
}

// TestHostile_everyRuneDrawnOrEscaped: each character of the corpus is
// drawn from a font glyph that leaves ink, or is an escape box; with no
// fallback fonts, what the Go fonts lack becomes a ⟨U+XXXX⟩ box, never a
// blank.
func TestHostile_everyRuneDrawnOrEscaped(t *testing.T) {
	requireFallback(t)
	r := renderer(t, 240, 240)
	bare := &fonts{faces: map[faceKey][]font.Face{}}
	for _, h := range readHostile(t) {
		for _, fs := range []*fonts{r.f, bare} {
			cs, _ := fs.cells(Mono, approvalHintSize, h.Tool+h.Hint+"\n"+h.Detail+h.Label, false)
			seen := map[rune]bool{}
			for _, c := range cs {
				if seen[c.r] {
					continue
				}
				seen[c.r] = true
				switch c.kind {
				case safetext.Plain:
					if c.r == ' ' {
						continue
					}
					img := image.NewRGBA(image.Rect(0, 0, 40, 40))
					fs.drawCells(img, 4, 4, Mono, approvalHintSize, fg, []cell{c})
					if n := inked(img); n == 0 {
						t.Errorf("%s: %U is plain but draws no ink (fallbacks %d)", h.Name, c.r, len(fs.fallbacks))
					}
				case safetext.Newline:
				default:
					if c.label == "" || c.w <= 0 {
						t.Errorf("%s: escape of %U has no label", h.Name, c.r)
					}
				}
			}
			if fs == r.f {
				for _, c := range cs {
					if c.kind == safetext.NoGlyph && c.r < 0xE000 {
						t.Errorf("%s: %U has no glyph even with Unifont", h.Name, c.r)
					}
				}
			}
		}
	}
}

// TestHostile_oneCharacterShows: two prompts that differ in one character
// render differently on some page, at both panel sizes: a replaced
// letter, a Cyrillic look-alike, an inserted zero-width space, wherever
// it is (start, middle, end of a 4 KB command, the middle of an elided
// 200-character name).
func TestHostile_oneCharacterShows(t *testing.T) {
	requireFallback(t)
	corpus := readHostile(t)
	type pair struct {
		name string
		a, b ApprovalView
	}
	var pairs []pair
	byName := map[string]hostile{}
	for _, h := range corpus {
		byName[h.Name] = h
		for _, field := range []string{"hint", "detail", "label"} {
			for _, mut := range []string{"ascii", "cyrillic", "zwsp"} {
				for _, at := range []string{"start", "middle", "end"} {
					m, ok := mutate(h, field, mut, at)
					if ok {
						pairs = append(pairs, pair{h.Name + "/" + field + "/" + mut + "/" + at, h.view(), m.view()})
					}
				}
			}
		}
	}
	pairs = append(pairs, pair{"4 KB command, last line", byName["long-command-ok"].view(), byName["long-command-bad"].view()})
	for _, sz := range []image.Point{{240, 240}, {320, 240}} {
		r := renderer(t, sz.X, sz.Y)
		for _, p := range pairs {
			if !rendersDiffer(r, p.a, p.b) {
				t.Errorf("%v %s: the two prompts render the same on every page", sz, p.name)
			}
		}
	}
}

// rendersDiffer reports whether a and b differ on some page, drawing
// pages only until they do.
func rendersDiffer(r *Renderer, a, b ApprovalView) bool {
	n := r.ApprovalPages(a)
	if n != r.ApprovalPages(b) {
		return true
	}
	ia, ib := r.NewFrame(), r.NewFrame()
	for i := range n {
		a.Page, b.Page = i, i
		r.Approval(ia, a)
		r.Approval(ib, b)
		if !bytes.Equal(ia.Pix, ib.Pix) {
			return true
		}
	}
	return false
}

// mutate changes one character of a field of h.
func mutate(h hostile, field, mut, at string) (hostile, bool) {
	ptr := map[string]*string{"hint": &h.Hint, "detail": &h.Detail, "label": &h.Label}[field]
	rs := []rune(*ptr)
	if len(rs) < 3 {
		return h, false
	}
	i := map[string]int{"start": 0, "middle": len(rs) / 2, "end": len(rs) - 1}[at]
	switch mut {
	case "ascii":
		if rs[i] == 'x' {
			rs[i] = 'y'
		} else {
			rs[i] = 'x'
		}
	case "cyrillic":
		// The first letter from i on with a Cyrillic twin.
		twins := map[rune]rune{'a': 'а', 'e': 'е', 'o': 'о', 'c': 'с', 'p': 'р', 'x': 'х', 'i': 'і', 's': 'ѕ'}
		for ; i < len(rs); i++ {
			if tw, ok := twins[rs[i]]; ok {
				rs[i] = tw
				break
			}
		}
		if i == len(rs) {
			return h, false
		}
	case "zwsp":
		rs = append(rs[:i:i], append([]rune{0x200B}, rs[i:]...)...)
	}
	*ptr = string(rs)
	return h, true
}

// TestHostile_golden compares the first page of each hostile prompt with
// testdata/golden at 240×240 and 320×240. After a deliberate change to
// the screens, rewrite them with -update-golden and look at the diff.
func TestHostile_golden(t *testing.T) {
	requireFallback(t)
	golden := map[string]bool{"trojan-source-rlo": true, "zero-width-rm": true, "ansi-colour": true,
		"cjk-emoji-rtl": true, "long-command-bad": true, "long-names": true, "no-glyph-private-use": true}
	for _, sz := range []image.Point{{240, 240}, {320, 240}} {
		r := renderer(t, sz.X, sz.Y)
		for _, h := range readHostile(t) {
			if !golden[h.Name] {
				continue
			}
			img := r.NewFrame()
			r.Approval(img, h.view())
			path := filepath.Join("testdata/golden", h.Name+"-"+sizeName(sz)+".png")
			if *updateGolden {
				writePNG(t, path, img)
				continue
			}
			want, err := readPNG(path)
			if err != nil {
				t.Fatalf("%v (rewrite with go test ./actors/ui/screens -run Golden -update-golden)", err)
			}
			if !bytes.Equal(want.Pix, img.Pix) {
				got := filepath.Join(t.TempDir(), filepath.Base(path))
				writePNG(t, got, img)
				t.Errorf("%s differs from its golden image; got %s (if the change is meant, -update-golden)", path, got)
			}
		}
	}
}

func writePNG(t testing.TB, path string, img image.Image) {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readPNG(path string) (*image.RGBA, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out, nil
}
