package folderpush_test

import (
	"encoding/base64"
	"testing"

	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
)

// nullFS keeps the benchmark on the receiver: writes go nowhere.
type nullFS struct{}

func (nullFS) Free() (int64, error)                   { return 1 << 40, nil }
func (nullFS) Stage() (folderpush.Staging, error)     { return nullFS{}, nil }
func (nullFS) Create(string) (folderpush.File, error) { return nullFS{}, nil }
func (nullFS) Commit() error                          { return nil }
func (nullFS) ReadFile(string) ([]byte, error)        { return nil, nil }
func (nullFS) Discard() error                         { return nil }
func (nullFS) Write(p []byte) (int, error)            { return len(p), nil }
func (nullFS) Close() error                           { return nil }

// BenchmarkChunk measures the per-chunk path: base64 decode, checks, write.
// The desktop sends about 2,230 of these for a 570 KB pack.
func BenchmarkChunk(b *testing.B) {
	r, err := folderpush.New(nullFS{}, &folderpush.Opts{MaxTotal: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	raw := make([]byte, 256)
	in := folderpush.Input{Cmd: folderpush.CmdChunk, Data: base64.StdEncoding.EncodeToString(raw)}
	r.Apply(folderpush.Input{Cmd: folderpush.CmdBegin}, t0)
	r.Apply(folderpush.Input{Cmd: folderpush.CmdFile, Path: "big.gif", Size: 1 << 39}, t0)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Apply(in, t0); !res.OK {
			b.Fatal(res.Err)
		}
	}
}
