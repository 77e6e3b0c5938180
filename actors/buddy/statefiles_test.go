package buddy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
)

// A name sent while the disk is full is refused, not acked ok: the name
// stays what buddy.json holds. Sent again once there is room it is acked
// ok, and a restart keeps it (issue 32 item 3b).
func TestActorAcksNameOnlyWhenSaved(t *testing.T) {
	data := t.TempDir()
	h := newHarness(t, data)
	h.full.Store(true)
	h.line(`{"cmd":"name","name":"Clawd"}`)
	if ack := string(h.nextLine()); ack != `{"ack":"name","ok":false,"n":0,"error":"not saved: storage full"}`+"\n" {
		t.Fatalf("name on a full disk acked %s, want a failure", ack)
	}
	if st := h.mustState(); st.Name == "Clawd" {
		t.Fatalf("the unsaved name shows: %+v", st.Name)
	}
	h.line(`{"cmd":"species","idx":2}`)
	if ack := string(h.nextLine()); !strings.Contains(ack, `"ok":false`) || h.mustState().Character() == 2 {
		t.Fatalf("species on a full disk: %s, species %d", ack, h.mustState().Character())
	}
	h.full.Store(false)
	h.line(`{"cmd":"name","name":"Clawd"}`)
	if ack := string(h.nextLine()); !strings.Contains(ack, `"ok":true`) {
		t.Fatalf("name with room: %s", ack)
	}
	h.restart()
	if st := h.mustState(); st.Name != "Clawd" {
		t.Fatalf("after a restart the name is %q, want the acked Clawd", st.Name)
	}
}

// installPack puts a pack in packs/current as PackStore would, with the
// name it carries (label "" for a pack from before packs were labelled).
func installPack(t *testing.T, data, label, manifestName string) {
	t.Helper()
	dir := filepath.Join(data, "packs", "current")
	files := map[string]string{
		"manifest.json": `{"name":"` + manifestName + `","mode":"text","states":{"idle":{"frames":["o_o"]}}}`,
	}
	if label != "" {
		files[".pack.json"] = `{"name":"` + label + `"}`
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeIdentity(t *testing.T, data, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(data, IdentityFile), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func savedIdentity(t *testing.T, data string) identity {
	t.Helper()
	var id identity
	b, err := os.ReadFile(filepath.Join(data, IdentityFile))
	if err != nil || json.Unmarshal(b, &id) != nil {
		t.Fatalf("buddy.json: %q %v", b, err)
	}
	return id
}

// buddy.json follows the pack on disk at start (issue 32 item 3a).
func TestActorReconcilesPackAtStart(t *testing.T) {
	for _, tt := range []struct {
		name, identity, label, manifest string
		wantPack                        string
		wantSpecies                     int
	}{
		// Killed after the swap: buddy.json names the previous pack and
		// its species choice; the new pack shows, as after an install.
		{"killed after the swap", `{"owner":"Ada","name":"Clawd","pack":"old","species":1}`, "bufo", "Bufo", "bufo", SpeciesDefault},
		// Killed after the first swap: no buddy.json at all.
		{"first push killed", "", "bufo", "Bufo", "bufo", SpeciesDefault},
		// A pack from before packs carried their name keeps buddy.json's.
		{"unlabelled pack, recorded", `{"owner":"","name":"","pack":"bufo","species":255}`, "", "Bufo", "bufo", SpeciesPack},
		// ... and without buddy.json takes its manifest's name.
		{"unlabelled pack, unrecorded", "", "", "Bufo", "Bufo", SpeciesDefault},
		// A damaged buddy.json is set aside, and the pack is still found.
		{"damaged buddy.json", `{"owner":`, "bufo", "Bufo", "bufo", SpeciesDefault},
		// buddy.json names a pack that is not there.
		{"no pack", `{"owner":"","name":"","pack":"gone","species":255}`, "-", "", "", SpeciesDefault},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			if tt.label != "-" {
				installPack(t, data, tt.label, tt.manifest)
			}
			if tt.identity != "" {
				writeIdentity(t, data, tt.identity)
			}
			h := newHarness(t, data)
			st := h.mustState()
			if st.Pack != tt.wantPack || st.Character() != tt.wantSpecies {
				t.Fatalf("pack %q species %d, want %q and %d", st.Pack, st.Character(), tt.wantPack, tt.wantSpecies)
			}
			if id := savedIdentity(t, data); id.Pack != tt.wantPack {
				t.Errorf("buddy.json names pack %q, want %q", id.Pack, tt.wantPack)
			}
			h.line(`{"cmd":"species","idx":255}`)
			ack := string(h.nextLine())
			if ok := strings.Contains(ack, `"ok":true`); ok != (tt.wantPack != "") {
				t.Errorf("species 255 acked %s with pack %q", ack, tt.wantPack)
			}
		})
	}
}

// Every kind of damage to stats.json and buddy.json is set aside and the
// service starts fresh; the next save works (issue 32 item 2).
func TestActorSetsAsideDamagedFiles(t *testing.T) {
	kinds := []struct {
		name   string
		reason statefile.Reason
		put    func(path string) error
	}{
		{"empty", statefile.Empty, func(p string) error { return os.WriteFile(p, nil, 0o644) }},
		{"truncated", statefile.Truncated, func(p string) error { return os.WriteFile(p, []byte(`{"v":1,"ap`), 0o644) }},
		{"invalid JSON", statefile.InvalidJSON, func(p string) error { return os.WriteFile(p, []byte("\x00\x00\x00"), 0o644) }},
		{"wrong type", statefile.WrongType, func(p string) error { return os.WriteFile(p, []byte(`[1,2]`), 0o644) }},
		{"directory", statefile.Directory, func(p string) error { return os.MkdirAll(filepath.Join(p, "x"), 0o755) }},
	}
	for _, file := range []string{StatsFile, IdentityFile} {
		for _, k := range kinds {
			t.Run(file+"/"+k.name, func(t *testing.T) {
				data := t.TempDir()
				if err := k.put(filepath.Join(data, file)); err != nil {
					t.Fatal(err)
				}
				h := newHarness(t, data)
				list, err := statefile.List(data)
				if err != nil || len(list) != 1 || list[0].File != file || list[0].Reason != k.reason {
					t.Fatalf("set aside: %+v, %v; want %s (%s)", list, err, file, k.reason)
				}
				// The service runs and saves again.
				h.line(`{"cmd":"owner","name":"Ada"}`)
				if ack := h.nextLine(); !bytes.Contains(ack, []byte(`"ok":true`)) {
					t.Fatalf("owner after a damaged %s: %s", file, ack)
				}
				h.send(Nap{Start: time.Now().Add(-time.Minute), End: time.Now()})
				for deadline := time.Now().Add(10 * time.Second); h.mustState().Stats.Nap != 60; time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("nap never counted: %+v", h.mustState().Stats)
					}
				}
				h.restart() // saves the stats on the way down
				if st := h.mustState(); st.Owner != "Ada" || st.Stats.Nap != 60 {
					t.Fatalf("after a restart: owner %q nap %d, want both kept", st.Owner, st.Stats.Nap)
				}
			})
		}
	}
}
