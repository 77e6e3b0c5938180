package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// writeGIFPack writes a pack folder: a manifest and n animated GIFs of
// 96×100 with a few frames each, like the reference bufo pack.
func writeGIFPack(t *testing.T, dir, name string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pal := color.Palette{color.Black, color.White, color.RGBA{0xd9, 0x77, 0x57, 0xff}, color.RGBA{0x6b, 0x8e, 0x23, 0xff}}
	var idle []string
	for i := range n {
		g := &gif.GIF{}
		for f := range 4 {
			img := image.NewPaletted(image.Rect(0, 0, 96, 100), pal)
			for y := range 100 {
				for x := range 96 {
					img.SetColorIndex(x, y, uint8((x/8+y/8+f+i)%len(pal)))
				}
			}
			g.Image = append(g.Image, img)
			g.Delay = append(g.Delay, 20)
		}
		var buf bytes.Buffer
		if err := gif.EncodeAll(&buf, g); err != nil {
			t.Fatal(err)
		}
		file := fmt.Sprintf("idle_%d.gif", i)
		idle = append(idle, file)
		if err := os.WriteFile(filepath.Join(dir, file), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest, err := json.Marshal(map[string]any{
		"name":   name,
		"colors": map[string]string{"body": "#6B8E23", "bg": "#000000"},
		"states": map[string]any{"idle": idle, "attention": idle[0]},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".DS_Store"), []byte("skipped"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func buddyState(t *testing.T, a *rig) buddyactor.State {
	t.Helper()
	return supervisortest.Ask[buddyactor.State](t, a.Tree, buddyactor.ServiceName, buddyactor.GetState{})
}

func TestBuddyE2EFolderPush(t *testing.T) {
	e2e(t)
	dataDir := t.TempDir()
	a := startAppliance(t, dataDir)
	d := a.Dial(t, &fakedesktop.Options{StatusEvery: -1})
	ctx := context.Background()

	pack := filepath.Join(t.TempDir(), "folder-name")
	writeGIFPack(t, pack, "frog", 5)
	if err := d.PushPack(ctx, pack); err != nil {
		t.Fatal(err)
	}
	supervisortest.Within(t, 5*time.Second, "pack installed", func() bool { return buddyState(t, a).Pack == "frog" })
	// Every file arrived byte for byte somewhere under the data dir.
	_, files, err := fakedesktop.ReadPack(pack)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		matches, _ := filepath.Glob(filepath.Join(dataDir, "packs", "*", f.Name))
		found := slices.ContainsFunc(matches, func(p string) bool { b, _ := os.ReadFile(p); return bytes.Equal(b, f.Data) })
		if !found {
			t.Errorf("%s not installed intact under %s/packs (found %v)", f.Name, dataDir, matches)
		}
	}

	for _, bad := range []string{"../x", "a/b"} {
		err := d.PushFiles(ctx, "bad", []fakedesktop.PackFile{{Name: bad, Data: []byte("x")}})
		var pe *fakedesktop.PushError
		if !errors.As(err, &pe) || pe.Step != "file" || pe.Ack == nil || pe.Ack.OK || pe.Ack.Error == "" {
			t.Errorf("push of %q: %v, want file refused with an error", bad, err)
		}
	}

	// The desktop itself stops at 1,800,000 bytes, so a too-big pack is
	// announced by hand, as an older or foreign host might.
	ack, err := d.Command(ctx, pbuddy.CharBegin{Name: "huge", Total: 1_900_000})
	if err != nil || ack.OK || ack.Error == "" {
		t.Errorf("char_begin of 1.9 MB: %+v %v, want ok:false with an error", ack, err)
	}

	// A file shorter than announced fails file_end with the real count.
	for _, step := range []struct {
		cmd   pbuddy.Command
		ok    bool
		wantN int64
	}{
		{pbuddy.CharBegin{Name: "short", Total: 10}, true, 0},
		{pbuddy.File{Path: "manifest.json", Size: 10}, true, 0},
		{pbuddy.Chunk{D: "YWJjZGU="}, true, 5},
		{pbuddy.FileEnd{}, false, 5},
	} {
		ack, err := d.Command(ctx, step.cmd)
		if err != nil || ack.OK != step.ok || ack.N != step.wantN || (!ack.OK && ack.Error == "") {
			t.Fatalf("%s: %+v %v, want ok=%v n=%d", step.cmd.CmdName(), ack, err, step.ok, step.wantN)
		}
	}
	if got := buddyState(t, a).Pack; got != "frog" {
		t.Errorf("after failed pushes the pack is %q, want frog intact", got)
	}
}

func TestBuddyE2EStatsSurviveRestart(t *testing.T) {
	e2e(t)
	dataDir := t.TempDir()
	status := func(a *rig) pbuddy.StatusAck {
		d := a.Dial(t, &fakedesktop.Options{Owner: "Ada", StatusEvery: -1})
		defer d.Close()
		r := d.PollStatus(context.Background())
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		d.Close()
		a.linkDown(t)
		return r.Status
	}
	a := startAppliance(t, dataDir)
	d := a.Dial(t, &fakedesktop.Options{Owner: "Ada", StatusEvery: -1})
	for i, button := range []string{"A", "A", "B"} {
		id := fmt.Sprint("req_stats_", i)
		d.SetPrompt(id, "Bash", "true")
		a.awaitPrompt(t, id)
		a.Press(t, button)
		oneDecision(t, d, 50*time.Millisecond)
	}
	d.Update(func(s *fakedesktop.Session) { s.Tokens = 1000 })    // baseline
	d.Update(func(s *fakedesktop.Session) { s.Tokens = 121_000 }) // debounced into one beat
	time.Sleep(300 * time.Millisecond)
	d.Update(func(s *fakedesktop.Session) { s.Tokens = 1000 })
	time.Sleep(300 * time.Millisecond)
	d.Update(func(s *fakedesktop.Session) { s.Tokens = 121_000 })
	time.Sleep(300 * time.Millisecond)
	d.Close()
	a.linkDown(t)
	before := status(a)
	// Tokens 0 (connect) -> 121,000 credits 121,000; the drop to 1,000 is
	// a desktop restart (new baseline); back to 121,000 credits 120,000.
	if before.Stats.Appr != 2 || before.Stats.Deny != 1 || before.Stats.Lvl != 4 {
		t.Fatalf("stats before restart %+v, want appr 2 deny 1 lvl 4 (241,000 tokens)", before.Stats)
	}
	a.Stop()

	b := startAppliance(t, dataDir)
	after := status(b)
	if after.Stats != before.Stats || after.Owner != "Ada" {
		t.Fatalf("after restart: %+v owner %q, want %+v owner Ada", after.Stats, after.Owner, before.Stats)
	}
}

// TestBuddyE2ELatency measures, in process on the sim board, the time from
// the last byte of the heartbeat that carries a prompt to the permission
// line after an A press issued as soon as the ui shows the prompt. It logs
// p50/p99; it asserts nothing about time.
func TestBuddyE2ELatency(t *testing.T) {
	if testing.Short() {
		t.Skip("measurement")
	}
	a := startAppliance(t, t.TempDir())
	d := a.Dial(t, &fakedesktop.Options{StatusEvery: -1, Debounce: time.Millisecond})
	const n = 100
	var total, press []time.Duration
	for i := range n {
		id := fmt.Sprint("req_lat_", i)
		d.SetPrompt(id, "Bash", "true")
		a.awaitPrompt(t, id)
		pressed := time.Now()
		if _, _, err := a.Board.Buttons.Press("A", 0); err != nil {
			t.Fatal(err)
		}
		var p fakedesktop.Permission
		select {
		case p = <-d.Decisions():
		case <-time.After(5 * time.Second):
			t.Fatal("no decision")
		}
		if p.ID != id {
			t.Fatalf("decision for %q, want %q", p.ID, id)
		}
		total = append(total, p.At.Sub(d.PromptSentAt(id)))
		press = append(press, p.At.Sub(pressed))
	}
	pct := func(ds []time.Duration, q float64) time.Duration {
		s := slices.Clone(ds)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[int(q*float64(len(s)-1))]
	}
	t.Logf("prompt last byte -> permission line (press as soon as the ui shows it), n=%d: p50 %v p99 %v", n, pct(total, 0.5), pct(total, 0.99))
	t.Logf("press -> permission line, n=%d: p50 %v p99 %v", n, pct(press, 0.5), pct(press, 0.99))
}
