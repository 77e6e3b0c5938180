package storage

import (
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
)

// pack is a small but real GIF pack: a manifest and two GIF files.
func pack(tag string) map[string][]byte {
	gif := func(n int) []byte {
		b := append([]byte("GIF89a"), make([]byte, n)...)
		copy(b[6:], tag)
		return b
	}
	return map[string][]byte{
		"manifest.json": []byte(`{"name":"` + tag + `","states":{"idle":["idle_0.gif","idle_1.gif"]}}`),
		"idle_0.gif":    gif(700),
		"idle_1.gif":    gif(300),
	}
}

// push runs a whole folder push through a real Receiver and returns the
// first failing ack, or char_end's.
func push(t *testing.T, r *folderpush.Receiver, files map[string][]byte) folderpush.Result {
	t.Helper()
	now := time.Unix(1775731234, 0)
	var total int64
	for _, b := range files {
		total += int64(len(b))
	}
	apply := func(in folderpush.Input) folderpush.Result { return r.Apply(in, now) }
	if res := apply(folderpush.Input{Cmd: folderpush.CmdBegin, Name: "test", Total: total}); !res.OK {
		return res
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		if res := apply(folderpush.Input{Cmd: folderpush.CmdFile, Path: name, Size: int64(len(data))}); !res.OK {
			return res
		}
		for off := 0; off < len(data); off += 256 {
			chunk := data[off:min(off+256, len(data))]
			if res := apply(folderpush.Input{Cmd: folderpush.CmdChunk, Data: base64.StdEncoding.EncodeToString(chunk)}); !res.OK {
				return res
			}
		}
		if res := apply(folderpush.Input{Cmd: folderpush.CmdFileEnd}); !res.OK {
			return res
		}
	}
	return apply(folderpush.Input{Cmd: folderpush.CmdEnd})
}

func readPack(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string][]byte)
	for _, e := range entries {
		if e.Name() == labelFile {
			continue // the pack's name, not one of its files (InstalledName)
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = b
	}
	return m
}

func samePack(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) })
}

// packsListing lists DATA/packs, to check that no staging or .old is left.
func packsListing(t *testing.T, data string) string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(data, packsDir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}

func newReceiver(t *testing.T, s *PackStore) *folderpush.Receiver {
	t.Helper()
	r, err := folderpush.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A pack from before packs carried their name is named by its manifest.
func TestPackStoreInstalledNameUnlabelled(t *testing.T) {
	data := t.TempDir()
	s, _ := OpenPackStore(data)
	if res := push(t, newReceiver(t, s), pack("bufo")); !res.OK {
		t.Fatal(res)
	}
	if err := os.Remove(filepath.Join(s.Dir(), labelFile)); err != nil {
		t.Fatal(err)
	}
	if name, labelled, installed := s.InstalledName(); name != "bufo" || labelled || !installed {
		t.Fatalf("InstalledName = %q %v %v, want the manifest's bufo, unlabelled", name, labelled, installed)
	}
}

func TestPackStoreFullPushAndReplace(t *testing.T) {
	data := t.TempDir()
	s, err := OpenPackStore(data)
	if err != nil {
		t.Fatal(err)
	}
	if s.Installed() {
		t.Fatal("fresh store reports an installed pack")
	}
	r := newReceiver(t, s)
	for _, tag := range []string{"first", "second"} {
		res := push(t, r, pack(tag))
		if !res.OK || res.Installed == nil {
			t.Fatalf("push %s: %+v", tag, res)
		}
		if got := readPack(t, s.Dir()); !samePack(got, pack(tag)) {
			t.Fatalf("installed pack after %s: %d files, want %v", tag, len(got), slices.Sorted(maps.Keys(pack(tag))))
		}
		if l := packsListing(t, data); l != currentDir {
			t.Fatalf("packs dir after %s = %q, want only %q", tag, l, currentDir)
		}
	}
}

// An injected write error fails the push; the old pack is untouched and no
// staging is left.
func TestPackStoreWriteErrorKeepsOldPack(t *testing.T) {
	data := t.TempDir()
	s, _ := OpenPackStore(data)
	r := newReceiver(t, s)
	if res := push(t, r, pack("old")); !res.OK {
		t.Fatal(res)
	}
	s.failWrite = func(name string) error {
		if name == "idle_1.gif" {
			return errors.New("EIO")
		}
		return nil
	}
	res := push(t, r, pack("new"))
	if res.OK || res.Ack != folderpush.CmdChunk || res.Err != "write failed" {
		t.Fatalf("push with a failing write: %+v", res)
	}
	if got := readPack(t, s.Dir()); !samePack(got, pack("old")) {
		t.Fatal("old pack damaged by a failed push")
	}
	if l := packsListing(t, data); l != currentDir {
		t.Fatalf("packs dir = %q, want only %q", l, currentDir)
	}
}

// A process killed mid-push leaves a staging folder behind; Recover at the
// next boot removes it and the old pack is intact.
func TestPackStoreKillMidPush(t *testing.T) {
	data := t.TempDir()
	s, _ := OpenPackStore(data)
	if res := push(t, newReceiver(t, s), pack("old")); !res.OK {
		t.Fatal(res)
	}
	r := newReceiver(t, s)
	now := time.Now()
	r.Apply(folderpush.Input{Cmd: folderpush.CmdBegin, Total: 2000}, now)
	r.Apply(folderpush.Input{Cmd: folderpush.CmdFile, Path: "idle_0.gif", Size: 1000}, now)
	if res := r.Apply(folderpush.Input{Cmd: folderpush.CmdChunk, Data: base64.StdEncoding.EncodeToString(make([]byte, 256))}, now); !res.OK {
		t.Fatal(res)
	}
	// "Kill": the receiver is abandoned without Abort, as a crash would.
	if !strings.Contains(packsListing(t, data), stagingPrefix) {
		t.Fatal("no staging folder during the push")
	}
	s2, err := OpenPackStore(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := readPack(t, s2.Dir()); !samePack(got, pack("old")) {
		t.Fatal("old pack damaged by a killed push")
	}
	if l := packsListing(t, data); l != currentDir {
		t.Fatalf("packs dir after recovery = %q, want only %q", l, currentDir)
	}
}

var errPowerCut = errors.New("power cut")

// Each Commit step interrupted as by a power cut, then recovered at boot:
// the store holds exactly one complete pack, the one the table names.
func TestPackStoreCrashPointRecovery(t *testing.T) {
	for _, tt := range []struct {
		step    string
		hadOld  bool
		wantNew bool
	}{
		{step: "synced", hadOld: true, wantNew: false},
		{step: "moved-old", hadOld: true, wantNew: false},
		{step: "swapped", hadOld: true, wantNew: true},
		{step: "synced", hadOld: false, wantNew: false},
		{step: "swapped", hadOld: false, wantNew: true},
	} {
		t.Run(fmt.Sprintf("%s/old=%v", tt.step, tt.hadOld), func(t *testing.T) {
			data := t.TempDir()
			s, _ := OpenPackStore(data)
			if tt.hadOld {
				if res := push(t, newReceiver(t, s), pack("old")); !res.OK {
					t.Fatal(res)
				}
			}
			s.hook = func(step string) error {
				if step == tt.step {
					return errPowerCut
				}
				return nil
			}
			// Stage and commit by hand: the receiver would Discard after
			// the failed Commit, which a real power cut never does.
			st, err := s.Stage()
			if err != nil {
				t.Fatal(err)
			}
			for name, b := range pack("new") {
				f, _ := st.Create(name)
				f.Write(b)
				f.Close()
			}
			if err := st.(folderpush.Labeler).Label("new pack"); err != nil {
				t.Fatal(err)
			}
			if err := st.Commit(); !errors.Is(err, errPowerCut) {
				t.Fatalf("Commit = %v, want the injected power cut", err)
			}
			s2, err := OpenPackStore(data)
			if err != nil {
				t.Fatal(err)
			}
			got := readPack(t, s2.Dir())
			switch {
			case tt.wantNew && !samePack(got, pack("new")):
				t.Fatalf("after recovery: %d files, want the new pack", len(got))
			case !tt.wantNew && tt.hadOld && !samePack(got, pack("old")):
				t.Fatalf("after recovery: %d files, want the old pack", len(got))
			case !tt.wantNew && !tt.hadOld && got != nil:
				t.Fatalf("after recovery: %d files, want no pack", len(got))
			}
			want := currentDir
			if got == nil {
				want = ""
			}
			if l := packsListing(t, data); l != want {
				t.Fatalf("packs dir after recovery = %q, want %q", l, want)
			}
			// The pack on disk names itself, whatever buddy.json
			// managed to record before the cut.
			name, labelled, installed := s2.InstalledName()
			switch wantName := map[bool]string{true: "new pack", false: "test"}[tt.wantNew]; {
			case installed != (got != nil):
				t.Fatalf("InstalledName installed = %v with %d files", installed, len(got))
			case installed && (name != wantName || !labelled):
				t.Fatalf("InstalledName = %q labelled %v, want %q", name, labelled, wantName)
			}
		})
	}
}

// A crash while .old was being deleted leaves part of it; Recover finishes.
func TestPackStoreRecoverHalfDeletedOld(t *testing.T) {
	data := t.TempDir()
	s, _ := OpenPackStore(data)
	if res := push(t, newReceiver(t, s), pack("new")); !res.OK {
		t.Fatal(res)
	}
	old := filepath.Join(data, packsDir, oldDir)
	os.Mkdir(old, 0o755)
	os.WriteFile(filepath.Join(old, "idle_1.gif"), []byte("GIF89a partial"), 0o644)
	if _, err := OpenPackStore(data); err != nil {
		t.Fatal(err)
	}
	if got := readPack(t, s.Dir()); !samePack(got, pack("new")) {
		t.Fatal("new pack damaged by recovery")
	}
	if l := packsListing(t, data); l != currentDir {
		t.Fatalf("packs dir = %q", l)
	}
}

func TestPackStoreFreeMatchesStatfs(t *testing.T) {
	data := t.TempDir()
	s, _ := OpenPackStore(data)
	got, err := s.Free()
	if err != nil {
		t.Fatal(err)
	}
	free, total, _ := FSInfo(data)
	// Other processes write meanwhile: allow 64 MiB of drift.
	if d := int64(free) - got; got <= 0 || uint64(got) > total || d > 64<<20 || d < -64<<20 {
		t.Fatalf("Free = %d, statfs free %d total %d", got, free, total)
	}
}

func TestStagingRefusesPathsOutsideStore(t *testing.T) {
	s, _ := OpenPackStore(t.TempDir())
	st, _ := s.Stage()
	for _, name := range []string{"../x", "a/b", ".hidden", ""} {
		if _, err := st.Create(name); err == nil {
			t.Errorf("Create(%q): no error", name)
		}
	}
	if err := st.Discard(); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkStagedWrite(b *testing.B) {
	s, _ := OpenPackStore(b.TempDir())
	st, _ := s.Stage()
	f, _ := st.Create("idle_0.gif")
	chunk := make([]byte, 256)
	b.ReportAllocs()
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		if _, err := f.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
	f.Close()
	st.Discard()
}
