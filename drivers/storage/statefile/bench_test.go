package statefile

import (
	"os"
	"testing"
	"time"
)

// BenchmarkLoadJSON is a start's read of a healthy ui.json.
func BenchmarkLoadJSON(b *testing.B) {
	d := Dir{Path: b.TempDir()}
	if err := d.SaveJSON("ui.json", settings{V: 1, Level: 5}, 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, dmg := LoadJSON(d, "ui.json", 4096, settings{V: 1}); dmg != nil {
			b.Fatal(dmg)
		}
	}
}

// BenchmarkSetAside is a damaged file found and set aside, the path a
// start takes once per damage.
func BenchmarkSetAside(b *testing.B) {
	d := Dir{Path: b.TempDir(), Now: func() time.Time { return stamp }}
	path := d.path("stats.json")
	for b.Loop() {
		if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, dmg := d.Load("stats.json", 4096, func(b []byte) error { return DecodeJSON(b, new(settings)) }); dmg == nil || dmg.AsideErr != nil {
			b.Fatal(dmg)
		}
	}
}
