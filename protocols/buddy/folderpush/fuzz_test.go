package folderpush_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush/memfs"
)

// pushScript turns fuzz bytes into a command sequence. Files come from a
// valid pack so that random scripts do reach char_end with something
// installable; opcodes also inject bad names, wrong sizes, garbage base64,
// aborts, idle time and storage faults.
type pushScript struct {
	data []byte
	pack []packFile
}

func (s *pushScript) next() (byte, bool) {
	if len(s.data) == 0 {
		return 0, false
	}
	b := s.data[0]
	s.data = s.data[1:]
	return b, true
}

var badNames = []string{"../x", "a/b", ".x", "", "a\x00"}

func FuzzPush(f *testing.F) {
	pack := testPack(f)
	good := goodScript(pack)
	f.Add(good)
	f.Add(append(append([]byte{}, good[:len(good)/2]...), 0x05))
	f.Add([]byte{0x02, 0x03, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00})
	f.Add([]byte{0x07, 0x03, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) { runPushScript(t, pack, data) })
}

// The good seed must really install, or the fuzzer would mostly exercise
// failure paths.
func TestPushScriptSeedInstalls(t *testing.T) {
	pack := testPack(t)
	if fs := runPushScript(t, pack, goodScript(pack)); fs.Commits != 1 {
		t.Fatalf("good script made %d commits", fs.Commits)
	}
}

func goodScript(pack []packFile) []byte {
	good := []byte{0x00, 0x00}
	for i, p := range pack {
		good = append(good, 0x01, byte(i), 0x00)
		for range (len(p.data) + 255) / 256 {
			good = append(good, 0x02, 0x00)
		}
		good = append(good, 0x03, 0x00)
	}
	return append(good, 0x04, 0x00)
}

// runPushScript plays data against a fresh receiver and checks the
// invariants after every step.
func runPushScript(t testing.TB, pack []packFile, data []byte) *memfs.FS {
	fs := &memfs.FS{Size: 1 << 20, Current: oldPack()}
	var failOp memfs.Op
	failAt := -1
	fs.Fail = func(op memfs.Op, _ string) error {
		if op == failOp && failAt >= 0 {
			if failAt--; failAt < 0 {
				return errors.New("injected")
			}
		}
		return nil
	}
	r, err := folderpush.New(fs, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &pushScript{data: data, pack: pack}
	now := t0
	cur := -1 // pack index of the open file
	off := 0
	for {
		op, ok := s.next()
		if !ok {
			break
		}
		arg, _ := s.next()
		var i folderpush.Input
		switch op % 8 {
		case 0:
			i = folderpush.Input{Cmd: folderpush.CmdBegin, Name: "fz", Total: int64(arg) * 1000}
		case 1:
			sz, _ := s.next()
			cur, off = int(arg)%(len(pack)+len(badNames)), 0
			if cur < len(pack) {
				size := int64(len(pack[cur].data))
				if sz != 0 {
					size = int64(sz) // deliberately wrong
				}
				i = folderpush.Input{Cmd: folderpush.CmdFile, Path: pack[cur].name, Size: size}
			} else {
				i = folderpush.Input{Cmd: folderpush.CmdFile, Path: badNames[cur-len(pack)], Size: 1}
				cur = -1
			}
		case 2:
			var b []byte
			if cur >= 0 && off < len(pack[cur].data) {
				b = pack[cur].data[off:min(off+256-int(arg&0x0f), len(pack[cur].data))]
				off += len(b)
			} else {
				b = []byte{arg}
			}
			d := base64.StdEncoding.EncodeToString(b)
			if arg == 0xff {
				d = "*" + d
			}
			i = folderpush.Input{Cmd: folderpush.CmdChunk, Data: d}
		case 3:
			i = folderpush.Input{Cmd: folderpush.CmdFileEnd}
		case 4:
			i = folderpush.Input{Cmd: folderpush.CmdEnd}
		case 5:
			_ = r.Abort()
			checkIdle(t, r, fs)
			continue
		case 6:
			now = now.Add(time.Duration(arg) * time.Second)
			if gone, _ := r.Tick(now); gone {
				checkIdle(t, r, fs)
			}
			continue
		case 7:
			failOp = []memfs.Op{memfs.OpWrite, memfs.OpCreate, memfs.OpClose, memfs.OpCommit, memfs.OpDiscard, memfs.OpStage, memfs.OpFree}[arg%7]
			failAt = int(arg >> 3)
			continue
		}
		before := maps.Clone(fs.Current)
		commits := fs.Commits
		busy := r.Busy()
		res := r.Apply(i, now)
		if res.Ack != i.Cmd || res.OK == (res.Err != "") {
			t.Fatalf("%s: ack %q ok %v err %q", i.Cmd, res.Ack, res.OK, res.Err)
		}
		if !res.OK && i.Cmd == folderpush.CmdBegin && busy {
			// Refused because a push is moving files: that push goes on.
			if !r.Busy() {
				t.Fatal("a refused char_begin ended the running push")
			}
		} else if !res.OK {
			checkIdle(t, r, fs)
			if res.Cause == nil {
				t.Fatalf("%s failed without a cause", i.Cmd)
			}
		}
		if res.Installed == nil {
			if fs.Commits != commits || !maps.EqualFunc(before, fs.Current, bytes.Equal) {
				t.Fatalf("%s changed the installed pack without installing", i.Cmd)
			}
		} else {
			if fs.Commits != commits+1 {
				t.Fatal("installed without a commit")
			}
			if _, err := folderpush.ParseManifest(fs.Current[folderpush.ManifestName], func(n string) bool {
				_, ok := fs.Current[n]
				return ok
			}); err != nil {
				t.Fatalf("installed pack has a bad manifest: %v", err)
			}
		}
		if len(fs.Misuse) > 0 {
			t.Fatalf("FS contract violated: %v", fs.Misuse)
		}
	}
	return fs
}

// checkIdle asserts that the receiver holds nothing after a push ended
// without an install.
func checkIdle(t testing.TB, r *folderpush.Receiver, fs *memfs.FS) {
	t.Helper()
	if r.Active() || r.Progress() != (folderpush.Progress{}) {
		t.Fatalf("receiver still active: %+v", r.Progress())
	}
	if _, ok := fs.Current[folderpush.ManifestName]; !ok {
		t.Fatal("installed pack lost its manifest")
	}
}
