package folderpush_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush/memfs"
)

type in = folderpush.Input

func TestPushInstallsPack(t *testing.T) {
	fs := newFS()
	r := newReceiver(t, fs)
	files := testPack(t)
	if len(files[0].data) <= 256 {
		t.Fatalf("test GIF is %d bytes; want several chunks", len(files[0].data))
	}
	begin(t, r, files)
	for _, f := range files {
		sendFile(t, r, f)
	}
	// Mid-push the old pack is still the installed one.
	assertPack(t, fs, oldPack())
	if p := r.Progress(); !p.Active || p.Name != "bufo" || p.Received != total(files) || p.Total != total(files) {
		t.Fatalf("progress before char_end = %+v", p)
	}
	res := apply(t, r, in{Cmd: folderpush.CmdEnd})
	if !res.OK || res.N != 0 || res.Installed == nil || res.Pack != "bufo" {
		t.Fatalf("char_end = %+v", res)
	}
	if got := res.Installed.GIFs["idle"]; len(got) != 2 || got[1] != "idle_1.gif" {
		t.Fatalf("installed idle state = %q", got)
	}
	if res.Installed.Colors.Body != "#6B8E23" {
		t.Fatalf("body colour = %q", res.Installed.Colors.Body)
	}
	assertPack(t, fs, asMap(files))
	if r.Active() || fs.HasStaging() || fs.Commits != 1 {
		t.Fatalf("after install: active=%v staging=%v commits=%d", r.Active(), fs.HasStaging(), fs.Commits)
	}
}

func TestProgressDuringFile(t *testing.T) {
	r := newReceiver(t, newFS())
	mustOK(t, r, in{Cmd: folderpush.CmdBegin, Total: 1000}, 0)
	mustOK(t, r, in{Cmd: folderpush.CmdFile, Path: "a.gif", Size: 10}, 0)
	mustOK(t, r, chunk([]byte("abcd")), 4)
	want := folderpush.Progress{Active: true, Name: "pet", File: "a.gif", FileN: 4, FileSize: 10, Received: 4, Total: 1000}
	if got := r.Progress(); got != want {
		t.Fatalf("Progress() = %+v, want %+v", got, want)
	}
}

func TestInvalidPathRefused(t *testing.T) {
	for _, name := range []string{"../x", "a/b", `a\b`, "..", ".", ".hidden", "", "a:b",
		"a\x00b", "tab\there", "del\x7f", "c1\u0085", "bad\xffutf8", strings.Repeat("x", 65), "/etc/passwd"} {
		t.Run(name, func(t *testing.T) {
			fs := newFS()
			r := newReceiver(t, fs)
			mustOK(t, r, in{Cmd: folderpush.CmdBegin}, 0)
			res := apply(t, r, in{Cmd: folderpush.CmdFile, Path: name, Size: 1})
			if res.OK || res.Err != "invalid path" || !errors.Is(res.Cause, folderpush.ErrInvalidPath) {
				t.Fatalf("file %q = %+v", name, res)
			}
			if r.Active() || fs.HasStaging() {
				t.Fatal("a refused file left the push running")
			}
			assertPack(t, fs, oldPack())
		})
	}
}

func TestFileEndSizeMismatch(t *testing.T) {
	for _, tt := range []struct {
		name    string
		size    int64
		data    string
		wantN   int64
		wantErr string
	}{
		{"short", 10, "abcdef", 6, "wrote 6 of 10"},
		{"empty but announced", 3, "", 0, "wrote 0 of 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFS()
			r := newReceiver(t, fs)
			mustOK(t, r, in{Cmd: folderpush.CmdBegin}, 0)
			mustOK(t, r, in{Cmd: folderpush.CmdFile, Path: "f.gif", Size: tt.size}, 0)
			if tt.data != "" {
				mustOK(t, r, chunk([]byte(tt.data)), int64(len(tt.data)))
			}
			res := apply(t, r, in{Cmd: folderpush.CmdFileEnd})
			if res.OK || res.N != tt.wantN || res.Err != tt.wantErr {
				t.Fatalf("file_end = ok %v n %d err %q, want n %d err %q", res.OK, res.N, res.Err, tt.wantN, tt.wantErr)
			}
			assertPack(t, fs, oldPack())
		})
	}
}

// The reference accepts any length when the announced size is 0 (spec §12
// item 9); we refuse the first byte.
func TestLongFileRefused(t *testing.T) {
	for _, size := range []int64{0, 5} {
		r := newReceiver(t, newFS())
		mustOK(t, r, in{Cmd: folderpush.CmdBegin}, 0)
		mustOK(t, r, in{Cmd: folderpush.CmdFile, Path: "f.gif", Size: size}, 0)
		res := apply(t, r, chunk([]byte("123456")))
		if res.OK || res.Err != "file too long" || res.N != 0 {
			t.Fatalf("size %d: chunk = %+v", size, res)
		}
	}
}

func TestCapacity(t *testing.T) {
	for _, tt := range []struct {
		name    string
		size    int64 // memfs size; the old pack uses 39 bytes of it
		total   int64
		wantOK  bool
		wantN   int64
		wantErr string
	}{
		// The spec's negative example, byte for byte.
		{"storage too small", 1_200_000 + 39, 1_790_000, false, 1_200_000, "need 1748K, have 1171K"},
		{"over the desktop limit", 8 << 20, 1_800_001, false, 1_800_000, "need 1757K, have 1757K"},
		{"exactly the limit", 8 << 20, 1_800_000, true, 0, ""},
		{"reserve counts", 39 + 10_000 + 4096, 10_001, false, 14_096, "need 9K, have 13K"},
		{"reserve fits", 39 + 10_000 + 4096, 10_000, true, 0, ""},
		{"negative total", 8 << 20, -1, false, 0, "invalid total"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := &memfs.FS{Size: tt.size, Current: oldPack()}
			r := newReceiver(t, fs)
			res := apply(t, r, in{Cmd: folderpush.CmdBegin, Name: "huge", Total: tt.total})
			if res.OK != tt.wantOK || res.N != tt.wantN || res.Err != tt.wantErr {
				t.Fatalf("char_begin = ok %v n %d err %q, want ok %v n %d err %q", res.OK, res.N, res.Err, tt.wantOK, tt.wantN, tt.wantErr)
			}
			if r.Active() != tt.wantOK {
				t.Fatalf("active = %v", r.Active())
			}
			assertPack(t, fs, oldPack())
		})
	}
}

// Without an announced total the running sizes are still held to the
// capacity fixed at char_begin.
func TestUnannouncedTotalStillLimited(t *testing.T) {
	fs := &memfs.FS{Size: 39 + 4096 + 100, Current: oldPack()}
	r := newReceiver(t, fs)
	mustOK(t, r, in{Cmd: folderpush.CmdBegin}, 0)
	mustOK(t, r, in{Cmd: folderpush.CmdFile, Path: "a.gif", Size: 60}, 0)
	mustOK(t, r, chunk(make([]byte, 60)), 60)
	mustOK(t, r, in{Cmd: folderpush.CmdFileEnd}, 60)
	// Rewriting a file frees its old share.
	mustOK(t, r, in{Cmd: folderpush.CmdFile, Path: "a.gif", Size: 70}, 0)
	res := apply(t, r, in{Cmd: folderpush.CmdFile, Path: "b.gif", Size: 31})
	if res.OK || res.Err != "too large" {
		t.Fatalf("file over capacity = %+v", res)
	}
}

func TestFailuresKeepOldPack(t *testing.T) {
	boom := errors.New("boom")
	failOn := func(op memfs.Op, nth int) func(memfs.Op, string) error {
		seen := 0
		return func(o memfs.Op, _ string) error {
			if o == op {
				if seen++; seen == nth {
					return boom
				}
			}
			return nil
		}
	}
	files := testPack(t)
	for _, tt := range []struct {
		name    string
		fail    func(memfs.Op, string) error
		mangle  func([]packFile) []packFile
		wantErr string // of the first failing ack
	}{
		{name: "third write fails", fail: failOn(memfs.OpWrite, 3), wantErr: "write failed"},
		{name: "create fails", fail: failOn(memfs.OpCreate, 2), wantErr: "open failed"},
		{name: "close fails", fail: failOn(memfs.OpClose, 1), wantErr: "write failed"},
		{name: "commit fails", fail: failOn(memfs.OpCommit, 1), wantErr: "install failed"},
		{name: "commit and discard fail", fail: func(o memfs.Op, _ string) error {
			if o == memfs.OpCommit || o == memfs.OpDiscard {
				return boom
			}
			return nil
		}, wantErr: "install failed"},
		{name: "stage fails", fail: failOn(memfs.OpStage, 1), wantErr: "storage error"},
		{name: "free fails", fail: failOn(memfs.OpFree, 1), wantErr: "storage error"},
		{name: "manifest missing", mangle: func(f []packFile) []packFile { return f[:3] }, wantErr: "manifest missing"},
		{name: "manifest names a missing GIF", mangle: func(f []packFile) []packFile {
			return append([]packFile{f[0]}, f[2:]...)
		}, wantErr: "manifest invalid"},
		{name: "manifest not JSON", mangle: func(f []packFile) []packFile {
			return append(f[:3:3], packFile{"manifest.json", []byte("{nope")})
		}, wantErr: "manifest invalid"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFS()
			fs.Fail = tt.fail
			r := newReceiver(t, fs)
			push := files
			if tt.mangle != nil {
				push = tt.mangle(files)
			}
			var first *folderpush.Result
			send := func(i in) {
				if res := apply(t, r, i); !res.OK && first == nil {
					first = &res
				}
			}
			send(in{Cmd: folderpush.CmdBegin, Total: total(push)})
			for _, f := range push {
				send(in{Cmd: folderpush.CmdFile, Path: f.name, Size: int64(len(f.data))})
				for off := 0; off < len(f.data); off += 256 {
					send(chunk(f.data[off:min(off+256, len(f.data))]))
				}
				send(in{Cmd: folderpush.CmdFileEnd})
			}
			send(in{Cmd: folderpush.CmdEnd})
			if first == nil || first.Err != tt.wantErr || first.Cause == nil {
				t.Fatalf("first failure = %+v, want %q", first, tt.wantErr)
			}
			assertPack(t, fs, oldPack())
			if r.Active() {
				t.Fatal("push still active after a failure")
			}
		})
	}
}

func TestAbandon(t *testing.T) {
	for _, tt := range []struct {
		name string
		stop func(r *folderpush.Receiver) bool
	}{
		{"disconnect", func(r *folderpush.Receiver) bool { return r.Abort() == nil }},
		{"idle 30 s", func(r *folderpush.Receiver) bool {
			if gone, _ := r.Tick(t0.Add(29 * time.Second)); gone {
				return false
			}
			gone, err := r.Tick(t0.Add(30 * time.Second))
			return gone && err == nil
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFS()
			r := newReceiver(t, fs)
			files := testPack(t)
			begin(t, r, files)
			sendFile(t, r, files[0])
			mustOK(t, r, in{Cmd: folderpush.CmdFile, Path: "manifest.json", Size: 5}, 0)
			if !tt.stop(r) {
				t.Fatal("push not abandoned")
			}
			if r.Active() || fs.HasStaging() || r.Progress().Active {
				t.Fatal("abandoned push left state behind")
			}
			assertPack(t, fs, oldPack())
			res := apply(t, r, chunk([]byte("x")))
			if res.OK || res.Err != "no transfer" {
				t.Fatalf("chunk after abandon = %+v", res)
			}
		})
	}
}

// A second char_begin restarts rather than being refused (spec §8.2 step 1):
// the desktop retries char_begin when an ack is late, and a refusal would
// end its push with our error text.
// A char_begin retried before any file (the desktop's answer to a slow
// ack) starts the push afresh (spec §8.2 step 1).
func TestRetriedBeginRestarts(t *testing.T) {
	fs := newFS()
	r := newReceiver(t, fs)
	files := testPack(t)
	begin(t, r, files)
	begin(t, r, files)
	if got := fs.Staged(); len(got) != 0 {
		t.Fatalf("restart kept staged files %q", got)
	}
	assertPack(t, fs, oldPack())
	for _, f := range files {
		sendFile(t, r, f)
	}
	mustOK(t, r, in{Cmd: folderpush.CmdEnd}, 0)
	assertPack(t, fs, asMap(files))
}

// A char_begin while files are moving is another push: refused with an
// error, and the running push is untouched and still completes.
func TestBeginDuringPushIsRefused(t *testing.T) {
	fs := newFS()
	r := newReceiver(t, fs)
	files := testPack(t)
	begin(t, r, files)
	sendFile(t, r, files[0])
	res := r.Apply(in{Cmd: folderpush.CmdBegin, Name: "other", Total: 10}, t0)
	if res.OK || res.Err == "" || !strings.Contains(res.Err, "in progress") || res.Cause == nil {
		t.Fatalf("char_begin during a push = %+v, want ok:false with an error", res)
	}
	if !r.Busy() || r.Progress().Received == 0 {
		t.Fatalf("refused char_begin disturbed the running push: %+v", r.Progress())
	}
	for _, f := range files[1:] {
		sendFile(t, r, f)
	}
	mustOK(t, r, in{Cmd: folderpush.CmdEnd}, 0)
	assertPack(t, fs, asMap(files))
}

// Each script is followed by a full push, which must succeed: nothing a
// confused host sends may leave the receiver stuck.
func TestOutOfOrder(t *testing.T) {
	b := in{Cmd: folderpush.CmdBegin}
	for _, tt := range []struct {
		name    string
		script  []in
		wantErr string // of the last command
	}{
		{"chunk outside a push", []in{chunk([]byte("x"))}, "no transfer"},
		{"file outside a push", []in{{Cmd: folderpush.CmdFile, Path: "a", Size: 1}}, "no transfer"},
		{"file_end outside a push", []in{{Cmd: folderpush.CmdFileEnd}}, "no transfer"},
		{"char_end outside a push", []in{{Cmd: folderpush.CmdEnd}}, "no transfer"},
		{"chunk before file", []in{b, chunk([]byte("x"))}, "no file open"},
		{"file_end without file", []in{b, {Cmd: folderpush.CmdFileEnd}}, "no file open"},
		{"char_end with open file", []in{b, {Cmd: folderpush.CmdFile, Path: "a", Size: 0}, {Cmd: folderpush.CmdEnd}}, "file still open"},
		{"file without file_end", []in{b, {Cmd: folderpush.CmdFile, Path: "a", Size: 0},
			{Cmd: folderpush.CmdFile, Path: "b", Size: 0}, {Cmd: folderpush.CmdFileEnd}, {Cmd: folderpush.CmdEnd}}, "incomplete file"},
		{"missing size", []in{b, {Cmd: folderpush.CmdFile, Path: "a", Size: -1}}, "invalid size"},
		{"bad base64", []in{b, {Cmd: folderpush.CmdFile, Path: "a", Size: 9}, {Cmd: folderpush.CmdChunk, Data: "!!!!"}}, "bad base64"},
		{"huge chunk text", []in{b, {Cmd: folderpush.CmdFile, Path: "a", Size: 9}, {Cmd: folderpush.CmdChunk, Data: strings.Repeat("A", 20000)}}, "chunk too large"},
		{"huge manifest", []in{b, {Cmd: folderpush.CmdFile, Path: "manifest.json", Size: 1 << 20}}, "manifest too large"},
		{"not a push command", []in{b, {Cmd: "status"}}, "unknown command"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFS()
			r := newReceiver(t, fs)
			var last folderpush.Result
			for _, i := range tt.script {
				last = apply(t, r, i)
			}
			if last.OK || last.Err != tt.wantErr {
				t.Fatalf("last ack = %+v, want error %q", last, tt.wantErr)
			}
			assertPack(t, fs, oldPack())
			files := testPack(t)
			begin(t, r, files)
			for _, f := range files {
				sendFile(t, r, f)
			}
			mustOK(t, r, in{Cmd: folderpush.CmdEnd}, 0)
			assertPack(t, fs, asMap(files))
		})
	}
}

func TestChunkEncodings(t *testing.T) {
	for _, tt := range []struct {
		name, d string
		wantOK  bool
		wantN   int64
	}{
		{"padded", "YWI=", true, 2},
		{"unpadded", "YWI", true, 2},
		{"empty", "", true, 0},
		{"url alphabet", "-_-_", false, 0},
		{"padding in the middle", "YQ==YWI=", false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t, newFS())
			mustOK(t, r, in{Cmd: folderpush.CmdBegin}, 0)
			mustOK(t, r, in{Cmd: folderpush.CmdFile, Path: "a", Size: 8}, 0)
			res := apply(t, r, in{Cmd: folderpush.CmdChunk, Data: tt.d})
			if res.OK != tt.wantOK || res.N != tt.wantN {
				t.Fatalf("chunk %q = %+v", tt.d, res)
			}
		})
	}
}

func TestRewriteSameFile(t *testing.T) {
	fs := newFS()
	r := newReceiver(t, fs)
	files := testPack(t)
	begin(t, r, files)
	sendFile(t, r, packFile{"idle_0.gif", []byte("first version, longer")})
	for _, f := range files {
		sendFile(t, r, f)
	}
	mustOK(t, r, in{Cmd: folderpush.CmdEnd}, 0)
	assertPack(t, fs, asMap(files))
}

func TestNewRejectsBadOpts(t *testing.T) {
	if _, err := folderpush.New(nil, nil); err == nil {
		t.Fatal("New(nil FS) succeeded")
	}
	if _, err := folderpush.New(newFS(), &folderpush.Opts{Reserve: -1}); err == nil {
		t.Fatal("New with a negative reserve succeeded")
	}
}
