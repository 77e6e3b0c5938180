package prefs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
)

var t0 = time.Date(2026, 5, 1, 10, 42, 0, 0, time.UTC)

func TestDecode(t *testing.T) {
	for _, tt := range []struct {
		in, err string
		want    Prefs
	}{
		{in: `{"v":1}`, want: Prefs{Version: 1}},
		{in: `{"v":1,"mute":true,"brightness":50,"screen_off_s":-1}`, want: Prefs{Version: 1, Mute: true, Brightness: 50, TimeoutSec: -1}},
		{in: `{"v":1,"screen_off_s":300}`, want: Prefs{Version: 1, TimeoutSec: 300}},
		{in: `{"v":2}`, err: "version 2"},
		{in: `{}`, err: "version 0"},
		{in: `{"v":1,"brightness":33}`, err: "brightness 33%"},
		{in: `{"v":1,"brightness":-5}`, err: "brightness -5%"},
		{in: `{"v":1,"screen_off_s":7}`, err: "screen_off_s 7"},
		{in: `{"v":1,"screen_off_s":-2}`, err: "screen_off_s -2"},
		{in: `{"v":1,"volume":3}`, err: "unknown field"},
		{in: `{"v":1} {"v":1}`, err: "data after"},
		{in: `{"v":1,"mute":"yes"}`, err: "cannot unmarshal"},
		{in: ``, err: "EOF"},
	} {
		got, err := Decode([]byte(tt.in))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.in, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: err %v, want %q", tt.in, err, tt.err)
		case err == nil && got != tt.want:
			t.Errorf("%s = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// The page's steps go round the offers, and a configured default that is
// not among them steps to the next offer up.
func TestSteps(t *testing.T) {
	p := Defaults()
	var seen []int
	for range 5 {
		p = p.NextBrightness()
		seen = append(seen, p.Percent())
	}
	if want := []int{25, 50, 75, 100, 25}; !slices.Equal(seen, want) {
		t.Errorf("brightness steps %v, want %v", seen, want)
	}
	p = Defaults()
	var steps []time.Duration
	for range 7 {
		p = p.NextTimeout(45 * time.Second)
		steps = append(steps, p.Timeout(45*time.Second))
	}
	want := []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, Never, 15 * time.Second, 30 * time.Second, time.Minute}
	if !slices.Equal(steps, want) {
		t.Fatalf("timeout steps from a 45 s default: %v, want %v", steps, want)
	}
	if got := Defaults().Timeout(45 * time.Second); got != 45*time.Second {
		t.Errorf("default timeout = %v, want the configured 45 s", got)
	}
}

// Saved settings load back; a missing file is the defaults; a damaged
// one is set aside (kept) and the defaults used, with an error naming it.
func TestSaveLoad(t *testing.T) {
	dir := statefile.Dir{Path: t.TempDir(), Now: func() time.Time { return t0 }}
	if p, err := Load(dir); err != nil || p != Defaults() {
		t.Fatalf("no file: %+v %v, want the defaults", p, err)
	}
	want := Prefs{Version: 1, Mute: true, Brightness: 75, TimeoutSec: 120}
	if err := Save(dir, want); err != nil {
		t.Fatal(err)
	}
	if p, err := Load(dir); err != nil || p != want {
		t.Fatalf("loaded %+v %v, want %+v", p, err, want)
	}
	if err := Save(dir, Prefs{Brightness: 42}); err == nil {
		t.Fatal("saved a brightness the page cannot set")
	}
	if p, _ := Load(dir); p != want {
		t.Fatalf("a refused save changed the file: %+v", p)
	}
	path := filepath.Join(dir.Path, File)
	if err := os.WriteFile(path, []byte(`{"v":1,"brightness":`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir)
	if err == nil || p != Defaults() || err.Reason != statefile.Truncated || !strings.Contains(err.Error(), "set aside") {
		t.Fatalf("damaged file: %+v %v, want the defaults and an error saying it was set aside", p, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the damaged file is still in place: %v", err)
	}
	entries, _ := os.ReadDir(dir.Path)
	if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), File) {
		t.Fatalf("data dir holds %v, want the set-aside copy only", entries)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"v":1}`, `{"v":1,"mute":true,"brightness":50,"screen_off_s":-1}`, `{"v":1,"screen_off_s":30}`, `{"v":1,"x":1}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(data)
		if err != nil {
			return
		}
		// Whatever decodes encodes, and reads back the same.
		b, err := p.Encode()
		if err != nil {
			t.Fatalf("decoded %+v does not encode: %v", p, err)
		}
		q, err := Decode(b)
		if err != nil || q != p {
			t.Fatalf("round trip %+v -> %s -> %+v, %v", p, b, q, err)
		}
	})
}

// Each damage to ui.json is set aside under its reason and the defaults
// used; the page's next save works.
func TestLoadSetsAsideEachDamage(t *testing.T) {
	for _, tt := range []struct {
		name   string
		reason statefile.Reason
		put    func(path string) error
	}{
		{"empty", statefile.Empty, func(p string) error { return os.WriteFile(p, nil, 0o644) }},
		{"truncated", statefile.Truncated, func(p string) error { return os.WriteFile(p, []byte(`{"v":1,"mu`), 0o644) }},
		{"invalid JSON", statefile.InvalidJSON, func(p string) error { return os.WriteFile(p, []byte(`{v:1}`), 0o644) }},
		{"wrong type", statefile.WrongType, func(p string) error { return os.WriteFile(p, []byte(`["v",1]`), 0o644) }},
		{"out of range", statefile.Invalid, func(p string) error { return os.WriteFile(p, []byte(`{"v":1,"brightness":33}`), 0o644) }},
		{"directory", statefile.Directory, func(p string) error { return os.MkdirAll(filepath.Join(p, "x"), 0o755) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := statefile.Dir{Path: t.TempDir(), Now: func() time.Time { return t0 }}
			if err := tt.put(filepath.Join(dir.Path, File)); err != nil {
				t.Fatal(err)
			}
			p, dmg := Load(dir)
			if dmg == nil || dmg.Reason != tt.reason || p != Defaults() {
				t.Fatalf("Load = %+v, %v; want the defaults and %s", p, dmg, tt.reason)
			}
			if err := Save(dir, Prefs{Version: 1, Mute: true}); err != nil {
				t.Fatalf("save after the set-aside: %v", err)
			}
			if p, dmg := Load(dir); dmg != nil || !p.Mute {
				t.Fatalf("reloaded %+v, %v", p, dmg)
			}
		})
	}
}
