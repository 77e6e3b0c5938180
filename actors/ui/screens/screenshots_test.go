package screens

import (
	"bytes"
	"flag"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var updateShots = flag.Bool("update-screenshots", false, "rewrite testdata/screenshots/*.png (for the README)")

// sampleScreens is one of every screen with realistic content.
func sampleScreens(r *Renderer) map[string]func(*image.RGBA) {
	return map[string]func(*image.RGBA){
		"home": func(d *image.RGBA) {
			r.Home(d, HomeView{Persona: Busy, Anim: 3 * time.Second,
				Links: Links{BLE: true, Encrypted: true, Desktop: true, Dock: true},
				Total: 3, Running: 2, Waiting: 0, TimeText: "10:42",
				Entries: []string{"10:41 yarn test", "10:41 All 212 tests passed", "10:42 git push origin feature/approval-ui --force-with-lease"}})
		},
		"home-msg": func(d *image.RGBA) {
			r.Home(d, HomeView{Persona: Sleep, Links: Links{BLE: true}, Warning: "open link: not encrypted", Msg: "ready"})
		},
		"home-service-down": func(d *image.RGBA) {
			r.Home(d, HomeView{Persona: Idle, Links: Links{BLE: true, Encrypted: true, Desktop: true}, Total: 1, TimeText: "20:34",
				Warning: "approvals down since 20:31", Entries: []string{"20:33 go test ./supervisor/..."}})
		},
		"home-attention": func(d *image.RGBA) {
			r.Home(d, HomeView{Persona: Attention, Anim: 250 * time.Millisecond, Links: Links{BLE: true, Encrypted: true, Desktop: true},
				Total: 2, Running: 1, Waiting: 1, Msg: "approve: Bash", Entries: []string{"10:42 日本語のテスト: ファイルを確認"}})
		},
		"home-modes": func(d *image.RGBA) {
			r.Home(d, HomeView{Persona: Attention, Anim: 250 * time.Millisecond, Links: Links{BLE: true, Encrypted: true, Dock: true},
				Total: 3, Running: 1, Waiting: 1, TimeText: "10:42", Notice: "Claude is waiting for you", NoticeWho: "engine",
				Badges: []SessionBadge{{Project: "scratch", Badge: "bypass", NoPrompts: true}, {Project: "engine", Badge: "plan"}, {Project: "docs", Badge: "accept edits"}},
				Msg:    "CLI engine: idle done"})
		},
		"approval": func(d *image.RGBA) {
			r.Approval(d, ApprovalView{Tool: "Bash", Age: 4 * time.Second, Index: 1, Of: 2, Source: "desktop",
				Hint: "find . -name '*.go' -newer go.mod -exec gofmt -l {} + | xargs -r git add && git commit -m 'fmt'"})
		},
		"approval-hidden": func(d *image.RGBA) {
			// Trojan Source: U+202E would flip "; rm -rf ~ #" out of sight.
			r.Approval(d, ApprovalView{Tool: "Bash", Age: 3 * time.Second, Source: "CLI engine · 9f3c2a10",
				Hint: "cat access.txt \u202e; rm -rf ~ #\u202c \u200b", Approve: "A", Deny: "B", Next: "X", Back: "Y"})
		},
		"approval-late-sent": func(d *image.RGBA) {
			r.Approval(d, ApprovalView{Tool: "create issue", Age: 14 * time.Second, Hint: "github.com/claude-pi/claude-pi", Sent: "once"})
		},
		"approval-reconnecting": func(d *image.RGBA) {
			r.Approval(d, ApprovalView{Tool: "Bash", Age: 9 * time.Second, Source: "desktop", Hint: "npm test", Reconnecting: true})
		},
		"approval-warning": func(d *image.RGBA) {
			r.Approval(d, ApprovalView{Tool: "Bash", Age: 5 * time.Second, Source: "CLI engine · 9f3c2a10",
				Hint: "curl -fsSL https://get.example.dev | sh", Detail: "Install the toolchain\n{\"timeout\":600000}\nin /home/ada/src/engine",
				Warnings: "runs outside the sandbox", Approve: "A", Deny: "B", Next: "X", Back: "Y"})
		},
		"approval-cli-subagent": func(d *image.RGBA) {
			r.Approval(d, ApprovalView{Tool: "Edit", Age: 2 * time.Second, Index: 2, Of: 3,
				Source: "CLI engine · 9f3c2a10", Subagent: "subagent Explore", Hint: "internal/engine/plan.go"})
		},
		"approval-codex": func(d *image.RGBA) {
			// A Codex session's file edit, as the hook describes apply_patch
			// (protocols/hookbridge) and lan labels its source (Session.CLIName).
			r.Approval(d, ApprovalView{Tool: "apply_patch", Age: 3 * time.Second, Source: "Codex engine · 01a242e1",
				Hint:    "patch: internal/engine/plan.go",
				Detail:  "*** Begin Patch\n*** Update File: internal/engine/plan.go\n@@ func (p *Plan) Next() Step {\n+\tif p.i >= len(p.steps) {\n+\t\treturn Step{}\n+\t}\n \treturn p.steps[p.i]\n*** End Patch\nin /home/ada/src/engine",
				Approve: "A", Deny: "B", Next: "X", Back: "Y"})
		},
		"approval-question": func(d *image.RGBA) {
			// A terminal's AskUserQuestion, one option per card (actors/ui/question.go).
			r.Approval(d, ApprovalView{Tool: "DB", Age: 3 * time.Second, Source: "CLI engine · 9f3c2a10",
				Hint: "▸ SQLite", Detail: "one file next to the binary, no server\n(option 2 of 3)\nquestion 1 of 2: Which database should the cache use?",
				Approve: "A", Deny: "B", ApproveVerb: "choose", DenyVerb: "next"})
		},
		"approval-question-desktop": func(d *image.RGBA) {
			r.Approval(d, ApprovalView{Tool: "Question", Age: 2 * time.Second, Source: "desktop",
				Hint: "Claude is asking you something", Instead: "answer at the computer"})
		},
		"approval-plan": func(d *image.RGBA) {
			r.Approval(d, ApprovalView{Tool: "ExitPlanMode", Age: 6 * time.Second, Source: "CLI engine · 9f3c2a10",
				Hint: "approve this plan? (6 lines)", Detail: "## Plan: cache the parsed config\n1. Add a sync.Once around config.Load\n2. Invalidate it on SIGHUP\n3. Test: two loads read the file once\n4. Benchmark the hot path before and after\n5. Document the reload in README.md",
				Approve: "A", Deny: "B", Next: "X", Back: "Y"})
		},
		"pairing": func(d *image.RGBA) { r.Pairing(d, PairingView{Name: "ada-laptop", Code: "318054"}) },
		"pairing-accepted": func(d *image.RGBA) {
			r.Pairing(d, PairingView{Name: "ada-laptop", Code: "318054", Accepted: true})
		},
		"passkey": func(d *image.RGBA) { r.Passkey(d, PasskeyView{Code: "042917", Device: "MacBook Pro"}) },
		"new-dock": func(d *image.RGBA) {
			r.NewDock(d, NewDockView{Serial: "3C:84:CE:00:12:AB", Looks: `"USB JTAG/serial debug unit" by "Espressif"`})
		},
		"new-dock-looks-different": func(d *image.RGBA) {
			r.NewDock(d, NewDockView{Serial: "3C:84:CE:00:12:AB", Looks: `"Totally a CoreS3" by "Espressif"`,
				Was: `"USB JTAG/serial debug unit" by "Espressif"`, Approve: "A", Deny: "B"})
		},
		"new-dock-long-serial": func(d *image.RGBA) {
			r.NewDock(d, NewDockView{Serial: `0123456789ABCDEF\u202e0123456789abcdef0123456789ABCDEF01234`, Looks: `"x" by "y"`})
		},
		"new-dock-display-only": func(d *image.RGBA) {
			r.NewDock(d, NewDockView{Serial: "3C:84:CE:00:12:AB", DisplayOnly: true})
		},
		"info": func(d *image.RGBA) {
			r.Info(d, InfoView{Title: "Links", Page: 1, Of: 3, Next: "X", Back: "Y", Rows: []InfoRow{
				{"BLE", "connected", false}, {"Encryption", "bonded (LE SC)", false}, {"Dock", "CoreS3 /dev/ttyACM0", false},
				{"IP", "192.168.1.23", false}, {"Uptime", "3d 4h 12m", false}, {"Version", "v0.3.0", false}}})
		},
		"stats": func(d *image.RGBA) {
			r.Info(d, InfoView{Title: "Stats", Page: 3, Of: 3, Rows: []InfoRow{
				{"Approved", "128", false}, {"Denied", "9", false}, {"Level", "14", false}, {"Velocity", "6 s", false}, {"Security", "open", true}}})
		},
		"info-links": func(d *image.RGBA) {
			r.Info(d, InfoView{Title: "Links", Page: 1, Of: 3, Next: "X", Back: "Y", Rows: []InfoRow{
				{"BLE", "connected AA:BB:CC:DD:EE:FF", false}, {"Security", "bonded", false}, {"Link", "encrypted", false},
				{"Pairing", "hold A to forget", false}, {"Dock", "no CoreS3", false},
				{"IP", "192.168.1.23", false}, {"Uptime", "3d 4h 12m", false}, {"Version", "v0.3.0 · pirate-audio", false}}})
		},
		"system": func(d *image.RGBA) {
			r.Info(d, InfoView{Title: "System", Page: 4, Of: 5, Next: "X", Back: "Y", Rows: []InfoRow{
				{"Updated", "2 d ago", false}, {"Reboot", "waiting 3 d", true}, {"Asked by", "linux-image-rpi-2712 +1", false}}})
		},
		"forget-ask":  func(d *image.RGBA) { r.Forget(d, ForgetView{Asking: true, Approve: "A", Deny: "B"}) },
		"forget-done": func(d *image.RGBA) { r.Forget(d, ForgetView{Removed: 1, Device: "Claude_Pi-3F9A"}) },
		"forget-open": func(d *image.RGBA) { r.Forget(d, ForgetView{NoBonds: true}) },
		"forget-failed": func(d *image.RGBA) {
			r.Forget(d, ForgetView{Err: "bluez: removing the bond of AA:BB:CC:DD:EE:FF: org.bluez.Error.Failed"})
		},
		"clock": func(d *image.RGBA) {
			r.Clock(d, ClockView{Time: time.Date(2026, 5, 1, 10, 42, 7, 0, time.FixedZone("desktop", -7*3600)),
				Today: 31_200, HaveToday: true, Page: 4, Of: 4, Next: "X", Back: "Y"})
		},
		"clock-waiting": func(d *image.RGBA) {
			r.Clock(d, ClockView{Page: 4, Of: 4, Next: "X", Back: "Y"})
		},
		"pet": func(d *image.RGBA) {
			r.Stats(d, StatsView{Loaded: true, Mood: 4, Energy: 3, Fed: 4, Level: 14, Today: 31_200, HaveToday: true,
				Appr: 128, Deny: 9, Vel: 6, Napped: 3*time.Hour + 12*time.Minute, Page: 2, Of: 4, Next: "X", Back: "Y"})
		},
		"pet-sad": func(d *image.RGBA) {
			r.Stats(d, StatsView{Loaded: true, Mood: 0, Energy: 0, Fed: 9, Level: 2, Appr: 2, Deny: 7, Vel: 140,
				Page: 2, Of: 4, Next: "X", Back: "Y"})
		},
		"settings": func(d *image.RGBA) {
			r.Settings(d, SettingsView{Cursor: 1, Change: "A", Move: "X/Y", Close: "B", Rows: []SettingRow{
				{"Sound", "on"}, {"Brightness", "75%"}, {"Screen off", "after 30 s"}, {"Character", "Tabby"}}})
		},
		"settings-unsaved": func(d *image.RGBA) {
			r.Settings(d, SettingsView{Cursor: 2, Change: "A", Move: "X/Y", Close: "B", NoteWarn: true,
				Note: "not saved: storage: writing /var/lib/claude-pi/ui.json: read-only file system", Rows: []SettingRow{
					{"Sound", "off"}, {"Brightness", "100%"}, {"Screen off", "never"}, {"Character", "pack bufo"}}})
		},
		"pack": func(d *image.RGBA) {
			r.Pack(d, PackView{Name: "bufo", File: "idle_1.gif", Done: 241_000, Total: 569_286})
		},
	}
}

// TestScreenshots writes every screen at both panel sizes to a temp dir
// (printed with -v) for a human to look at, and with -update-screenshots
// to testdata/screenshots for the README. The ones kept there must be
// what the renderer draws now: a change to the screens that leaves them
// stale fails here, not in a later run of -update-screenshots.
func TestScreenshots(t *testing.T) {
	dir := t.TempDir()
	// A few representative screens are kept for the README.
	keep := map[string]bool{"home-240x240": true, "home-attention-320x240": true, "approval-240x240": true,
		"approval-late-sent-240x240": true, "approval-reconnecting-240x240": true, "approval-hidden-240x240": true, "approval-hidden-320x240": true, "approval-cli-subagent-240x240": true, "pairing-240x240": true, "new-dock-240x240": true, "new-dock-looks-different-240x240": true, "passkey-240x240": true, "info-240x240": true, "pack-240x240": true,
		"forget-ask-240x240": true, "forget-done-240x240": true,
		"clock-240x240": true, "clock-320x240": true, "clock-waiting-240x240": true, "pet-240x240": true, "pet-320x240": true,
		"pet-sad-240x240": true, "settings-240x240": true, "settings-unsaved-240x240": true, "home-320x240": true}
	keep["approval-codex-240x240"] = true
	keep["approval-warning-240x240"] = true
	keep["system-240x240"] = true
	keep["home-service-down-240x240"] = true
	keep["home-modes-240x240"] = true
	keep["home-modes-320x240"] = true
	keep["approval-question-240x240"] = true
	keep["approval-question-desktop-240x240"] = true
	keep["approval-plan-240x240"] = true
	for _, size := range []image.Point{{240, 240}, {320, 240}} {
		r, err := NewRenderer(size.X, size.Y)
		if err != nil {
			t.Fatal(err)
		}
		for name, draw := range sampleScreens(r) {
			img := r.NewFrame()
			draw(img)
			base := name + "-" + sizeName(size)
			p := filepath.Join(dir, base+".png")
			if keep[base] {
				kept := filepath.Join("testdata/screenshots", base+".png")
				if *updateShots {
					p = kept
				} else {
					sameAsKept(t, kept, img)
				}
			}
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, img); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	// A sheet of the built-in character: one column per persona, four
	// frames down.
	c := &BuiltIn{}
	sheet := image.NewRGBA(image.Rect(0, 0, 120*len(Personas), 120*4))
	clear(sheet, sheet.Bounds(), bg)
	for i, p := range Personas {
		for f := range 4 {
			box := image.Rect(120*i, 120*f, 120*i+120, 120*f+120)
			c.Draw(sheet, box, p, time.Duration(f*2)*c.Interval(p))
		}
	}
	keepSheet(t, dir, "characters.png", sheet)
	keepSheet(t, dir, "species.png", speciesSheet())
	t.Logf("screenshots in %s", dir)
}

// speciesSheet is the built-in species, one row each, one column per
// persona, a frame into each state's animation.
func speciesSheet() *image.RGBA {
	sheet := image.NewRGBA(image.Rect(0, 0, 120*len(Personas), 120*len(Species)))
	clear(sheet, sheet.Bounds(), bg)
	for row := range Species {
		c := &BuiltIn{Species: row}
		for i, p := range Personas {
			box := image.Rect(120*i, 120*row, 120*i+120, 120*row+120)
			c.Draw(sheet, box, p, 3*c.Interval(p))
		}
	}
	return sheet
}

// keepSheet writes a contact sheet to dir, or with -update-screenshots to
// testdata/screenshots, and otherwise fails unless the kept one matches.
func keepSheet(t *testing.T, dir, base string, sheet *image.RGBA) {
	t.Helper()
	kept := filepath.Join("testdata/screenshots", base)
	name := filepath.Join(dir, base)
	if *updateShots {
		name = kept
	} else {
		sameAsKept(t, kept, sheet)
	}
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, sheet); err != nil {
		t.Fatal(err)
	}
}

// sameAsKept fails the test unless the PNG at path has img's pixels.
func sameAsKept(t *testing.T, path string, img *image.RGBA) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	kept, err := png.Decode(f)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	got := image.NewRGBA(kept.Bounds())
	draw.Draw(got, got.Bounds(), kept, kept.Bounds().Min, draw.Src)
	if got.Bounds() != img.Bounds() || !bytes.Equal(got.Pix, img.Pix) {
		t.Errorf("%s is not what the renderer draws now: go test ./actors/ui/screens -run TestScreenshots -update-screenshots, and look at the diff", path)
	}
}

func sizeName(p image.Point) string { return itoa(p.X) + "x" + itoa(p.Y) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
