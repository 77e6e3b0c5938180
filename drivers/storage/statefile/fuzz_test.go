package statefile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"
)

// FuzzLoadJSON: whatever bytes are on disk, Load either accepts a
// document that validates or sets the file aside whole, never panics and
// never leaves the bytes in place.
func FuzzLoadJSON(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"level":5}`, `{"v":1,"level":5}` + "\n", `{"v":1`, `{"v":1,"level":500}`,
		`{"v":1,"x":2}`, `[]`, `null`, "", " ", "\x00\x00", `{"v":1}{}`, `{"v":1,"level":5e3}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := Dir{Path: t.TempDir(), Now: func() time.Time { return stamp }}
		path := d.path("ui.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		v, found, dmg := LoadJSON(d, "ui.json", 4096, settings{V: 1})
		if !found {
			t.Fatal("an existing file reported missing")
		}
		if dmg == nil {
			if err := v.Validate(); err != nil {
				t.Fatalf("accepted %q as %+v: %v", data, v, err)
			}
			// What was accepted saves, and loads back the same.
			if err := d.SaveJSON("ui.json", v, 0o644); err != nil {
				t.Fatalf("saving %+v: %v", v, err)
			}
			if back, _, dmg := LoadJSON(d, "ui.json", 4096, settings{}); dmg != nil || back != v {
				t.Fatalf("round trip of %x: %+v, %v; want %+v", data, back, dmg, v)
			}
			return
		}
		if v != (settings{V: 1}) {
			t.Fatalf("damaged %q gave %+v, want the defaults", data, v)
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("damaged file still in place: %v", err)
		}
		if b, err := os.ReadFile(dmg.Copy); err != nil || !bytes.Equal(b, data) {
			t.Fatalf("copy holds %q, %v; want the damaged bytes", b, err)
		}
	})
}
