package screens

import (
	"image"
	"testing"
	"time"
)

func BenchmarkRender(b *testing.B) {
	for _, sz := range []image.Point{{240, 240}, {320, 240}} {
		r := renderer(b, sz.X, sz.Y)
		for name, draw := range sampleScreens(r) {
			b.Run(name+"-"+sizeName(sz), func(b *testing.B) {
				img := r.NewFrame()
				b.ReportAllocs()
				b.SetBytes(int64(len(img.Pix)))
				for b.Loop() {
					draw(img)
				}
			})
		}
	}
}

// BenchmarkHomeTick is one animation step of the idle home screen: render
// the next frame and find its damage. damage-px is what goes to SPI.
func BenchmarkHomeTick(b *testing.B) {
	r := renderer(b, 240, 240)
	v := HomeView{Persona: Idle, Links: Links{BLE: true, Encrypted: true, Desktop: true},
		Total: 2, Running: 1, Entries: []string{"10:41 yarn test", "10:42 git push"}}
	prev, next := r.NewFrame(), r.NewFrame()
	r.Home(prev, v)
	b.ReportAllocs()
	px, n := 0, 0
	for b.Loop() {
		v.Anim += 125 * time.Millisecond
		r.Home(next, v)
		px += Area(Damage(prev, next))
		n++
		prev, next = next, prev
	}
	b.ReportMetric(float64(px)/float64(n), "damage-px/op")
}

// BenchmarkApprovalAge is the approval screen's once-a-second age update.
func BenchmarkApprovalAge(b *testing.B) {
	r := renderer(b, 240, 240)
	v := ApprovalView{Tool: "Bash", Hint: "npm run build && npm test -- --coverage"}
	prev, next := r.NewFrame(), r.NewFrame()
	r.Approval(prev, v)
	b.ReportAllocs()
	px, n := 0, 0
	for b.Loop() {
		v.Age += time.Second
		r.Approval(next, v)
		px += Area(Damage(prev, next))
		n++
		prev, next = next, prev
	}
	b.ReportMetric(float64(px)/float64(n), "damage-px/op")
}

func BenchmarkDamage(b *testing.B) {
	r := renderer(b, 240, 240)
	a, c := r.NewFrame(), r.NewFrame()
	r.Home(a, HomeView{Persona: Idle})
	r.Home(c, HomeView{Persona: Idle, Anim: 125 * time.Millisecond})
	b.ReportAllocs()
	b.SetBytes(int64(len(a.Pix)))
	for b.Loop() {
		Damage(a, c)
	}
}

// BenchmarkApproval4KB is a 4 KB command's approval screen: laying it out
// (a new prompt) and turning a page (the layout is cached).
func BenchmarkApproval4KB(b *testing.B) {
	var h hostile
	for _, c := range readHostile(b) {
		if c.Name == "long-command-bad" {
			h = c
		}
	}
	r := renderer(b, 240, 240)
	img := r.NewFrame()
	b.Run("layout", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			v := h.view()
			v.Index = i // a different view: no cache hit
			r.Approval(img, v)
		}
	})
	b.Run("page", func(b *testing.B) {
		v := h.view()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			v.Page = i
			r.Approval(img, v)
		}
	})
}

// BenchmarkSpecies is one animation frame of each built-in species, the
// per-frame cost of the home screen's character at 240×240.
func BenchmarkSpecies(b *testing.B) {
	box := image.Rect(50, 24, 190, 136)
	for i, name := range Species {
		b.Run(name, func(b *testing.B) {
			c := &BuiltIn{Species: i}
			dst := image.NewRGBA(image.Rect(0, 0, 240, 240))
			b.ReportAllocs()
			var t time.Duration
			for b.Loop() {
				clear(dst, box, bg)
				c.Draw(dst, box, Busy, t)
				t += c.Interval(Busy)
			}
		})
	}
}
