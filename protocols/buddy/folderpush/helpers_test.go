package folderpush_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"maps"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush/memfs"
)

var t0 = time.Date(2026, 4, 16, 10, 0, 0, 0, time.UTC)

// makeGIF draws a small three-frame animation so the pack holds real GIF
// bytes of a few hundred bytes, i.e. several 256-byte chunks.
func makeGIF(t testing.TB, c color.RGBA) []byte {
	t.Helper()
	pal := color.Palette{color.RGBA{0, 0, 0, 255}, c}
	g := &gif.GIF{}
	seed := uint32(c.R)<<16 | uint32(c.G)<<8 | uint32(c.B)
	for range 3 {
		img := image.NewPaletted(image.Rect(0, 0, 32, 24), pal)
		for i := range img.Pix {
			seed = seed*1664525 + 1013904223 // noise defeats LZW, so frames stay big
			img.Pix[i] = uint8(seed >> 31)
		}
		g.Image = append(g.Image, img)
		g.Delay = append(g.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type packFile struct {
	name string
	data []byte
}

// testPack is a small GIF pack; manifest.json deliberately comes last, as
// the desktop's directory order does not put it first.
func testPack(t testing.TB) []packFile {
	t.Helper()
	manifest := `{"name":"bufo","colors":{"body":"#6B8E23","bg":"#000000"},` +
		`"states":{"idle":["idle_0.gif","idle_1.gif"],"busy":"idle_0.gif","extra":42}}`
	return []packFile{
		{"idle_0.gif", makeGIF(t, color.RGBA{200, 80, 40, 255})},
		{"idle_1.gif", makeGIF(t, color.RGBA{40, 200, 80, 255})},
		{"README.md", []byte("ignored by the device\n")},
		{"manifest.json", []byte(manifest)},
	}
}

func oldPack() map[string][]byte {
	return map[string][]byte{
		"manifest.json": []byte(`{"states":{"idle":"old.gif"}}`),
		"old.gif":       []byte("GIF89a-old"),
	}
}

func newFS() *memfs.FS {
	return &memfs.FS{Size: 4 << 20, Current: oldPack()}
}

func newReceiver(t testing.TB, fs folderpush.FS) *folderpush.Receiver {
	t.Helper()
	r, err := folderpush.New(fs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func total(files []packFile) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f.data))
	}
	return n
}

// apply sends one command and checks the ack's invariants that hold for
// every command: Ack echoes Cmd, and OK and Err disagree.
func apply(t testing.TB, r *folderpush.Receiver, in folderpush.Input) folderpush.Result {
	t.Helper()
	res := r.Apply(in, t0)
	if res.Ack != in.Cmd {
		t.Fatalf("%s: ack %q", in.Cmd, res.Ack)
	}
	if res.OK == (res.Err != "") {
		t.Fatalf("%s: ok=%v with error %q", in.Cmd, res.OK, res.Err)
	}
	return res
}

func mustOK(t testing.TB, r *folderpush.Receiver, in folderpush.Input, wantN int64) {
	t.Helper()
	res := apply(t, r, in)
	if !res.OK || res.N != wantN {
		t.Fatalf("%s %q: ok=%v n=%d err=%q cause=%v, want ok n=%d", in.Cmd, in.Path, res.OK, res.N, res.Err, res.Cause, wantN)
	}
}

func chunk(b []byte) folderpush.Input {
	return folderpush.Input{Cmd: folderpush.CmdChunk, Data: base64.StdEncoding.EncodeToString(b)}
}

// sendFile sends file, its 256-byte chunks and file_end, as the desktop does.
func sendFile(t testing.TB, r *folderpush.Receiver, f packFile) {
	t.Helper()
	mustOK(t, r, folderpush.Input{Cmd: folderpush.CmdFile, Path: f.name, Size: int64(len(f.data))}, 0)
	for off := 0; off < len(f.data); off += 256 {
		end := min(off+256, len(f.data))
		mustOK(t, r, chunk(f.data[off:end]), int64(end))
	}
	mustOK(t, r, folderpush.Input{Cmd: folderpush.CmdFileEnd}, int64(len(f.data)))
}

func begin(t testing.TB, r *folderpush.Receiver, files []packFile) {
	t.Helper()
	mustOK(t, r, folderpush.Input{Cmd: folderpush.CmdBegin, Name: "bufo", Total: total(files)}, 0)
}

func assertPack(t testing.TB, fs *memfs.FS, want map[string][]byte) {
	t.Helper()
	if !maps.EqualFunc(fs.Current, want, bytes.Equal) {
		t.Fatalf("installed pack has %d files %v, want %d", len(fs.Current), keys(fs.Current), len(want))
	}
	if len(fs.Misuse) > 0 {
		t.Fatalf("FS contract violated: %v", fs.Misuse)
	}
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func asMap(files []packFile) map[string][]byte {
	m := make(map[string][]byte)
	for _, f := range files {
		m[f.name] = f.data
	}
	return m
}
