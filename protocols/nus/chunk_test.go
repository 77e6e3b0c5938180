package nus

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestChunks(t *testing.T) {
	long := []byte(`{"cmd":"permission","id":"` + strings.Repeat("x", 300) + `","decision":"once"}` + "\n")
	tests := []struct {
		name  string
		line  []byte
		mtu   int
		sizes []int
	}{
		{"fits default", []byte("{}\n"), DefaultMTU, []int{3}},
		{"exactly one payload", []byte(strings.Repeat("a", 19) + "\n"), 23, []int{20}},
		{"one over", []byte(strings.Repeat("a", 20) + "\n"), 23, []int{20, 1}},
		{"newline alone in last chunk", []byte(strings.Repeat("a", 20) + "\n"), 23, []int{20, 1}},
		{"long at 23", long, 23, splitSizes(len(long), 20)},
		{"long at 185", long, 185, splitSizes(len(long), 182)},
		{"long at 517", long, 517, []int{len(long)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Chunks(tt.line, tt.mtu)
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int
			for _, c := range got {
				sizes = append(sizes, len(c))
			}
			if !equalInts(sizes, tt.sizes) {
				t.Fatalf("chunk sizes %v, want %v", sizes, tt.sizes)
			}
			if joined := bytes.Join(got, nil); !bytes.Equal(joined, tt.line) {
				t.Fatalf("chunks join to %q, want %q", joined, tt.line)
			}
		})
	}
}

func TestChunksErrors(t *testing.T) {
	tests := []struct {
		name string
		line string
		mtu  int
		want string
	}{
		{"mtu too small", "{}\n", 22, "nus: ATT MTU 22 out of range 23..517"},
		{"mtu too large", "{}\n", 518, "nus: ATT MTU 518 out of range 23..517"},
		{"empty", "", 23, ErrUnterminated.Error()},
		{"no newline", "{}", 23, ErrUnterminated.Error()},
		{"two lines", "{}\n{}\n", 23, ErrEmbeddedNewline.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Chunks([]byte(tt.line), tt.mtu)
			if err == nil || err.Error() != tt.want || got != nil {
				t.Fatalf("Chunks = %q, %v; want error %q", got, err, tt.want)
			}
		})
	}
	var me *MTUError
	if _, err := Chunks([]byte("{}\n"), 0); !errors.As(err, &me) || me.MTU != 0 {
		t.Fatalf("err = %v, want *MTUError{0}", err)
	}
}

func TestClampMTU(t *testing.T) {
	for in, want := range map[int]int{-1: 23, 0: 23, 23: 23, 185: 185, 517: 517, 9000: 517} {
		if got := ClampMTU(in); got != want {
			t.Errorf("ClampMTU(%d) = %d, want %d", in, got, want)
		}
	}
}

// Chunks produced by AppendChunks, fed to an Assembler, give the line back.
func TestChunksRoundTrip(t *testing.T) {
	line := []byte(`{"ack":"status","ok":true,"n":0,"data":{"name":"Clawd 🐸"}}` + "\n")
	for mtu := MinMTU; mtu <= 80; mtu++ {
		chunks, err := Chunks(line, mtu)
		if err != nil {
			t.Fatal(err)
		}
		if got := feedAll(0, chunks...); len(got) != 1 || got[0].line+"\n" != string(line) {
			t.Fatalf("mtu %d: got %q", mtu, got)
		}
	}
}

func BenchmarkAppendChunks(b *testing.B) {
	line := []byte(`{"ack":"status","ok":true,"n":0,"data":{"name":"Clawd","owner":"Felix","sec":true,"bat":{"pct":100,"mV":5000,"mA":0,"usb":true},"sys":{"up":8412,"heap":412000000,"fsFree":52000000,"fsTotal":60000000},"stats":{"appr":1,"deny":0,"vel":4,"nap":0,"lvl":0}}}` + "\n")
	dst := make([][]byte, 0, 16)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = AppendChunks(dst[:0], line, 23)
	}
}

func splitSizes(n, size int) []int {
	var s []int
	for ; n > size; n -= size {
		s = append(s, size)
	}
	return append(s, n)
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
