package supervisor

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

func TestRingRetainsTailAndCountsTotal(t *testing.T) {
	tests := []struct {
		name      string
		size      int
		writes    []string
		clearAt   int // clear before writes[clearAt]; -1 for never
		wantTail  string
		wantTotal int64
	}{
		{"empty", 8, nil, -1, "", 0},
		{"fits", 8, []string{"abc", "de"}, -1, "abcde", 5},
		{"exactly full", 8, []string{"abcd", "efgh"}, -1, "abcdefgh", 8},
		{"wraps", 8, []string{"abc", "defgh", "ij"}, -1, "cdefghij", 10},
		{"wraps twice", 4, []string{"abc", "def", "ghi"}, -1, "fghi", 9},
		{"one write larger than ring", 4, []string{"ab", "0123456789"}, -1, "6789", 12},
		{"clear keeps total", 8, []string{"abcdef", "gh"}, 1, "gh", 8},
		{"clear then wrap", 4, []string{"abc", "de", "fgh"}, 1, "efgh", 8},
		{"clear at end", 4, []string{"abc", ""}, 1, "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRing(tt.size)
			for i, w := range tt.writes {
				if i == tt.clearAt {
					r.Clear()
				}
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			got, total := r.Bytes()
			if string(got) != tt.wantTail || total != tt.wantTotal {
				t.Fatalf("Bytes() = %q, %d; want %q, %d", got, total, tt.wantTail, tt.wantTotal)
			}
		})
	}
}

// TestRingBytesIsACopy pins that callers may keep the slice: a later write
// must not change what an earlier Log call returned.
func TestRingBytesIsACopy(t *testing.T) {
	r := NewRing(4)
	r.Write([]byte("abcd"))
	got, _ := r.Bytes()
	r.Write([]byte("wxyz"))
	if string(got) != "abcd" {
		t.Fatalf("retained slice changed to %q", got)
	}
}

func TestRingFollowReceivesLaterWrites(t *testing.T) {
	r := NewRing(64)
	r.Write([]byte("before\n"))
	ch, stop := r.Follow()
	r.Write([]byte("one\n"))
	r.Write([]byte("two\n"))
	var got []string
	for range 2 {
		got = append(got, string(<-ch))
	}
	if strings.Join(got, "") != "one\ntwo\n" {
		t.Fatalf("followed %q, want the two later writes", got)
	}
	stop()
	stop() // idempotent
	if _, ok := <-ch; ok {
		t.Fatal("channel still open after stop")
	}
	r.Write([]byte("after\n")) // must not panic on the closed channel
}

// TestRingSlowFollowerLosesDataWriterNeverBlocks: a follower that never
// reads must cost the writer nothing but its own losses.
func TestRingSlowFollowerLosesDataWriterNeverBlocks(t *testing.T) {
	r := NewRing(MinLogRingBytes)
	ch, stop := r.Follow()
	defer stop()
	const writes = followBuffer * 4
	line := []byte("time=now level=INFO msg=tick\n")
	for range writes { // would deadlock here if Write blocked
		r.Write(line)
	}
	if got := len(ch); got != followBuffer {
		t.Fatalf("follower holds %d writes, want its buffer of %d", got, followBuffer)
	}
	if lost, want := r.lost(), int64((writes-followBuffer)*len(line)); lost != want {
		t.Fatalf("lost %d bytes, want %d", lost, want)
	}
	if _, total := r.Bytes(); total != int64(writes*len(line)) {
		t.Fatalf("total %d, want %d", total, writes*len(line))
	}
}

// TestRingConcurrentWritesKeepLinesWhole is meant for -race: lines from
// many writers interleave but never tear.
func TestRingConcurrentWritesKeepLinesWhole(t *testing.T) {
	r := NewRing(1 << 20)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				fmt.Fprintf(r, "writer=%d line=%03d\n", w, i)
			}
		})
	}
	wg.Wait()
	got, _ := r.Bytes()
	lines := bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n"))
	if len(lines) != 8*200 {
		t.Fatalf("%d lines, want %d", len(lines), 8*200)
	}
	for _, l := range lines {
		var w, i int
		if n, err := fmt.Sscanf(string(l), "writer=%d line=%d", &w, &i); n != 2 || err != nil {
			t.Fatalf("torn line %q", l)
		}
	}
}

func BenchmarkRingWrite(b *testing.B) {
	line := []byte(`time=2025-01-02T03:04:05.000Z level=INFO msg="central connected" actor=ble addr=aa:bb:cc:dd:ee:ff` + "\n")
	for _, followers := range []int{0, 1} {
		b.Run(fmt.Sprintf("followers=%d", followers), func(b *testing.B) {
			r := NewRing(MinLogRingBytes)
			for range followers {
				ch, stop := r.Follow()
				defer stop()
				go func() {
					for range ch {
					}
				}()
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				r.Write(line)
			}
		})
	}
}

// BenchmarkActorLogLine is the whole cost of one actor log line: slog text
// formatting plus the actor's ring and the main ring.
func BenchmarkActorLogLine(b *testing.B) {
	tr, err := New(Options{Logger: slog.New(slog.DiscardHandler)}, svc("ble"))
	if err != nil {
		b.Fatal(err)
	}
	log := tr.procs[0].h.Logger()
	b.ReportAllocs()
	for b.Loop() {
		log.Info("central connected", "addr", "aa:bb:cc:dd:ee:ff", "rssi", -61)
	}
	_, total := tr.procs[0].ring.Bytes()
	b.SetBytes(total / int64(b.N))
}
