package bluez

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
	"github.com/claude-pi/claude-pi/protocols/nus"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// countingSerials numbers a connection's messages the way libdbus does, by
// counting. godbus's own generator remembers every serial until its reply
// comes, and a call with NO_REPLY_EXPECTED gets none: a flood sent with it
// would grow the sender's map, and the measurement with it.
type countingSerials struct {
	mu   sync.Mutex
	next uint32
}

func (s *countingSerials) GetSerial() uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	if s.next == 0 {
		s.next++
	}
	return s.next
}

func (s *countingSerials) RetireSerial(uint32) {}

// flooder is a second connection that writes to RX the way bluetoothd
// does for a characteristic with write-without-response: every call with
// NO_REPLY_EXPECTED, and the options bluetoothd sets (gatt-database.c
// append_options).
type flooder struct {
	rx   dbus.BusObject
	opts map[string]dbus.Variant
}

func newFlooder(tb testing.TB, r *rig, addr string) *flooder {
	tb.Helper()
	c, err := dbus.Connect(addr, dbus.WithSerialGenerator(&countingSerials{}))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	r.fake.mu.Lock()
	peer := r.fake.peer
	r.fake.mu.Unlock()
	return &flooder{
		rx: c.Object(peer, "/org/claudepi/nus/service0/char0"),
		opts: map[string]dbus.Variant{
			"device": dbus.MakeVariant(dev), "link": dbus.MakeVariant("LE"), "mtu": dbus.MakeVariant(uint16(517)),
		},
	}
}

// command writes without waiting, as bluetoothd does.
func (f *flooder) command(tb testing.TB, value []byte) {
	if c := f.rx.Go(ifaceGattChar+".WriteValue", dbus.FlagNoReplyExpected, nil, value, f.opts); c.Err != nil {
		tb.Fatal(c.Err)
	}
}

// request writes and waits for the reply. godbus's read loop handles
// messages in order, so once it is answered every write sent before it has
// been queued or refused.
func (f *flooder) request(value []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return f.rx.CallWithContext(ctx, ifaceGattChar+".WriteValue", 0, value, f.opts).Err
}

func setRXLimit(r *rig, limit int) {
	q := r.p.rxq
	q.mu.Lock()
	q.limit = limit
	q.mu.Unlock()
}

// rxStats is what the queue holds now and the most it ever held.
func rxStats(r *rig) (held, highWater, writes int) {
	q := r.p.rxq
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.held, q.highWater, len(q.pending)
}

// drainRX reads every RX byte the peripheral delivers until its queue is
// empty. The queue's weight drops only after the event was sent, so once
// it is 0 everything is in r.events.
func drainRX(t testing.TB, r *rig) []byte {
	t.Helper()
	var got []byte
	take := func(ev drv.Event) {
		if rcv, ok := ev.(drv.Received); ok {
			got = append(got, rcv.Data...)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if held, _, _ := rxStats(r); held == 0 {
			for {
				select {
				case ev := <-r.events:
					take(ev)
				default:
					return got
				}
			}
		}
		if time.Now().After(deadline) {
			held, _, n := rxStats(r)
			t.Fatalf("RX queue still holds %d writes (%d bytes) after 20 s", n, held)
		}
		select {
		case ev := <-r.events:
			take(ev)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// record is flood write i: 100 bytes, numbered, with no newline in it, so
// every '\n' in what is delivered is one the peripheral put there.
func record(i int) []byte {
	b := fmt.Appendf(nil, "{%05d|", i)
	return append(b, bytes.Repeat([]byte{'x'}, 100-len(b))...)
}

// A central floods RX while nobody reads the link. The queue never holds
// more than its cap, everything it took arrives intact and in order with a
// '\n' at each gap, a caller that waits is told its write was refused, the
// log names the central once, and writes are taken again once it drained.
func TestRXFloodIsCappedInOrderAndRefusedLoudly(t *testing.T) {
	var logs supervisortest.SyncBuffer
	addr := startBus(t)
	// The owner reads nothing while the test floods: the events channel
	// is unbuffered, so the pump holds the first write of each flood and
	// delivers nothing more until the test reads.
	r := startOn(t, addr, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, make(chan drv.Event))
	connect(r)
	const limit = 16 << 10 // 46 writes of 100 bytes
	setRXLimit(r, limit)
	f := newFlooder(t, r, addr)

	// Each flood fills the queue, and the test then reads everything.
	const phases, perPhase = 3, 300
	var got []byte
	for phase := range phases {
		for i := range perPhase {
			f.command(t, record(phase*perPhase+i))
		}
		err := f.request([]byte("{barrier}"))
		var de dbus.Error
		if !errors.As(err, &de) || de.Name != "org.bluez.Error.Failed" || !strings.Contains(fmt.Sprint(de.Body...), "queue full") {
			t.Fatalf("write past the cap = %v, want org.bluez.Error.Failed naming the full queue", err)
		}
		held, highWater, writes := rxStats(r)
		if highWater > limit || held > limit {
			t.Fatalf("queue held %d bytes at most (%d now, %d writes), cap %d", highWater, held, writes, limit)
		}
		if held <= limit-(100+rxWriteOverhead) {
			t.Fatalf("queue holds %d bytes, want it filled to the cap %d", held, limit)
		}
		got = append(got, drainRX(t, r)...)
	}

	last, taken := -1, 0
	for i, run := range bytes.Split(got, []byte{'\n'}) {
		if len(run)%100 != 0 {
			t.Fatalf("run %d between gaps is %d bytes, want whole 100-byte writes: %q", i, len(run), run)
		}
		for off := 0; off < len(run); off += 100 {
			w := run[off : off+100]
			k, err := strconv.Atoi(string(w[1:6]))
			if err != nil || !bytes.Equal(w, record(k)) {
				t.Fatalf("write torn or garbled: %q", w)
			}
			switch {
			case k <= last:
				t.Fatalf("write %d delivered after write %d", k, last)
			case off == 0 && i > 0 && k == last+1:
				t.Fatalf("gap marker before write %d, which follows write %d", k, last)
			case off > 0 && k != last+1:
				t.Fatalf("writes %d to %d refused with no gap marker before %d", last+1, k-1, k)
			}
			last = k
			taken++
		}
	}
	if gaps := bytes.Count(got, []byte{'\n'}); !bytes.HasPrefix(got, record(0)) || gaps != phases-1 || taken < phases*(limit/(100+rxWriteOverhead)) {
		t.Fatalf("delivered %d of %d writes with %d gaps, starting %q: want the first one, a gap before each flood after the first, and at least a full queue each time",
			taken, phases*perPhase, gaps, got[:min(len(got), 10)])
	}

	// Drained: a write is taken again, and the gap before it is marked.
	// The reply waits for delivery, so the test reads while it waits.
	after := make(chan error, 1)
	go func() { after <- f.request([]byte("{after}\n")) }()
	var tail []byte
	for len(tail) < len("\n{after}\n") {
		select {
		case ev := <-r.events:
			if rcv, ok := ev.(drv.Received); ok {
				tail = append(tail, rcv.Data...)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("after the flood got only %q within 10 s", tail)
		}
	}
	if string(tail) != "\n{after}\n" {
		t.Fatalf("after the flood got %q, want the gap marker and the write", tail)
	}
	if err := <-after; err != nil {
		t.Fatalf("write after the queue drained: %v", err)
	}

	warnings := strings.Count(logs.String(), "refusing RX writes")
	if warnings != 1 || !strings.Contains(logs.String(), "central=AA:BB:CC:DD:EE:FF") || !strings.Contains(logs.String(), "fix=") {
		t.Fatalf("want one warning naming the central and the fix, got %d:\n%s", warnings, logs.String())
	}
}

// The queue's bookkeeping on its own: taken up to the cap, refused past
// it until drained to half, with the gap marked on the first write taken.
func TestRXQueueAdmitsToTheCapThenResumesAtHalf(t *testing.T) {
	q := newRXQueue()
	w := func() *rxWrite { return &rxWrite{value: make([]byte, 100)} }
	weight := w().weight()
	q.limit = 5 * weight
	var taken []*rxWrite
	for range 5 {
		x := w()
		if !q.admit(x) {
			t.Fatalf("refused at %d of %d", q.held, q.limit)
		}
		taken = append(taken, x)
	}
	if q.admit(w()) || !q.refusing || q.held != q.limit || q.highWater != q.limit {
		t.Fatalf("past the cap: refusing %v, held %d, high water %d, cap %d", q.refusing, q.held, q.highWater, q.limit)
	}
	deliver := func() { q.held -= q.pending[0].weight(); q.pending = q.pending[1:] }
	deliver() // 4 of 5 held: room for one, but not drained to half
	if q.admit(w()) {
		t.Fatal("took a write before the queue drained to half")
	}
	deliver()
	deliver() // 2 of 5 held
	x := w()
	if !q.admit(x) || !x.gapBefore || q.refusing {
		t.Fatalf("at half: gap %v, refusing %v, want the write taken with a gap marker", x.gapBefore, q.refusing)
	}
	if y := w(); !q.admit(y) || y.gapBefore {
		t.Fatal("a second write after the gap must carry no marker")
	}
	if taken[0].gapBefore || q.refused != 2 || len(q.pending) != 4 {
		t.Fatalf("first write gap %v, refused %d, queued %d, want false, 2 and 4", taken[0].gapBefore, q.refused, len(q.pending))
	}
}

// BenchmarkRXFlood floods RX with b.N writes, as bluetoothd sends them,
// while nobody reads the link, and reports what the peripheral holds then:
// writes queued, the most weight queued (max-queued-B, the cap is 256 KiB),
// the heap and goroutine stacks grown since before the flood (after a GC;
// stack-B includes stacks the runtime keeps for reuse), goroutines left,
// and what the queue itself holds: the heap freed when it is drained
// (queue-B, and per write, which rxWriteOverhead follows). Run it with
// -benchtime=20000x and 100000x: no figure may grow with the flood.
func BenchmarkRXFlood(b *testing.B) {
	for _, size := range []int{1, 180, 512} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) { benchmarkRXFlood(b, size) })
	}
}

func benchmarkRXFlood(b *testing.B, size int) {
	addr := startBus(b)
	r := startOn(b, addr, Options{}, make(chan drv.Event, 64))
	connect(r)
	f := newFlooder(b, r, addr)
	value := bytes.Repeat([]byte{'x'}, size)
	heap := func() (runtime.MemStats, int) {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m, runtime.NumGoroutine()
	}
	before, goroutines := heap()
	b.ResetTimer()
	for range b.N {
		f.command(b, value)
	}
	_ = f.request(value) // refused, or taken if b.N is small: either way all are in
	b.StopTimer()
	full, goroutinesFull := heap()
	_, highWater, writes := rxStats(r)
	drainRX(b, r)
	drained, _ := heap()
	queue := int64(full.HeapAlloc) - int64(drained.HeapAlloc)
	b.ReportMetric(float64(writes), "queued-writes")
	b.ReportMetric(float64(highWater), "max-queued-B")
	b.ReportMetric(float64(int64(full.HeapAlloc)-int64(before.HeapAlloc)), "heap-B")
	b.ReportMetric(float64(int64(full.StackInuse)-int64(before.StackInuse)), "stack-B")
	b.ReportMetric(float64(goroutinesFull-goroutines), "goroutines")
	b.ReportMetric(float64(queue), "queue-B")
	if writes > 0 {
		b.ReportMetric(float64(queue)/float64(writes)-float64(size), "queue-B/write-beyond-value")
	}
}

// Two push chunk lines, the end of the first and the start of the second
// refused: joined, the halves would make one valid chunk line carrying the
// wrong bytes. The gap marker makes them two broken lines instead, and the
// next whole line after them is intact.
func TestRXGapCannotJoinTwoTornLines(t *testing.T) {
	addr := startBus(t)
	r := startOn(t, addr, Options{}, make(chan drv.Event))
	connect(r)
	f := newFlooder(t, r, addr)
	a := []byte(`{"cmd":"chunk","d":"` + strings.Repeat("A", 90) + "\"}\n")
	b := []byte(`{"cmd":"chunk","d":"` + strings.Repeat("B", 90) + "\"}\n")
	slices := func(line []byte) [][]byte { return [][]byte{line[:40], line[40:80], line[80:]} }
	as, bs := slices(a), slices(b)
	// Room for a's first two slices: the pump holds the first (nobody
	// reads), the queue the second; the next two are refused.
	setRXLimit(r, len(as[0])+len(as[1])+2*rxWriteOverhead)
	for _, s := range [][]byte{as[0], as[1], as[2], bs[0]} {
		f.command(t, s)
	}
	if err := f.request([]byte("{barrier}")); err == nil {
		t.Fatal("the queue took a write past its cap")
	}
	got := drainRX(t, r)
	setRXLimit(r, maxRXQueued) // room for the rest
	done := make(chan error, 1)
	go func() {
		for _, s := range [][]byte{bs[1], bs[2]} {
			f.command(t, s)
		}
		done <- f.request([]byte("{\"cmd\":\"status\"}\n"))
	}()
	for !bytes.HasSuffix(got, []byte("{\"cmd\":\"status\"}\n")) {
		select {
		case ev := <-r.events:
			if rcv, ok := ev.(drv.Received); ok {
				got = append(got, rcv.Data...)
			}
		case err := <-done:
			if err != nil {
				t.Fatalf("status write after the gap: %v", err)
			}
			done = nil // answered; its bytes are still on their way
		case <-time.After(10 * time.Second):
			t.Fatalf("got only %q within 10 s", got)
		}
	}

	var lines []string
	nus.NewAssembler(0).Feed(got, func(line []byte, err error) {
		if err == nil {
			lines = append(lines, string(line))
		}
	})
	var parsed []string
	for _, l := range lines {
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) == nil {
			parsed = append(parsed, l)
		}
	}
	if len(parsed) != 1 || parsed[0] != `{"cmd":"status"}` {
		t.Fatalf("lines that parse: %q (of %q); want only the status command after the torn chunks", parsed, lines)
	}
	// And without the marker the torn halves would have made a chunk.
	joined := bytes.ReplaceAll(got, []byte("\n"+string(bs[1])), bs[1])
	var v map[string]any
	if l, _, _ := bytes.Cut(joined, []byte{'\n'}); json.Unmarshal(l, &v) != nil || v["cmd"] != "chunk" {
		t.Fatalf("the test is wrong: without the marker %q should parse as a chunk", l)
	}
}
