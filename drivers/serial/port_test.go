package serial

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/creack/pty"
)

// openPty opens a pty and a Port on its slave, standing in for the CoreS3.
func openPty(t testing.TB, o *Opts) (*Port, *os.File) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	if o == nil {
		o = &Opts{}
	}
	if o.Settle == 0 {
		o.Settle = time.Millisecond
	}
	p, err := OpenPath(context.Background(), slave.Name(), o)
	// Only the Port holds the slave from here, so closing the master is
	// the whole "unplug".
	slave.Close()
	if err != nil {
		master.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(); master.Close() })
	return p, master
}

// checkGoroutines fails if goroutines started during the test outlive it.
func checkGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		for range 200 {
			if runtime.NumGoroutine() <= before {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	})
}

func TestPortReadFragmented(t *testing.T) {
	checkGoroutines(t)
	p, master := openPty(t, nil)
	want := []byte{}
	for i := range 300 {
		want = append(want, byte(i), '\n', '\r', 0x03, 0x11)
	}
	go func() {
		for chunk := range slices(want, 7) {
			master.Write(chunk)
			time.Sleep(100 * time.Microsecond)
		}
	}()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(p, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %x, want %x (raw mode must pass every byte)", got, want)
	}
}

func slices(b []byte, n int) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(b) > 0 {
			k := min(n, len(b))
			if !yield(b[:k]) {
				return
			}
			b = b[k:]
		}
	}
}

func TestPortWrite(t *testing.T) {
	checkGoroutines(t)
	p, master := openPty(t, nil)
	want := bytes.Repeat([]byte("AZ\x00\xff\n\r"), 2000) // larger than the pty buffer
	errc := make(chan error, 1)
	go func() {
		_, err := p.Write(want)
		errc <- err
	}()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(master, got); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("master read differs from what the Port wrote")
	}
}

func TestPortQuietLineNeverReturnsZero(t *testing.T) {
	p, master := openPty(t, &Opts{ReadTimeout: 5 * time.Millisecond})
	type res struct {
		n   int
		err error
	}
	done := make(chan res, 1)
	go func() {
		n, err := p.Read(make([]byte, 16))
		done <- res{n, err}
	}()
	// Let several read timeouts pass inside Read before any data arrives.
	for p.reads.Load() < 4 {
		time.Sleep(time.Millisecond)
	}
	select {
	case r := <-done:
		t.Fatalf("Read returned %d, %v on a quiet line", r.n, r.err)
	default:
	}
	master.Write([]byte("x"))
	if r := <-done; r.n != 1 || r.err != nil {
		t.Fatalf("Read = %d, %v, want 1, nil", r.n, r.err)
	}
}

func TestPortDisconnect(t *testing.T) {
	checkGoroutines(t)
	// A long read timeout: a disconnect must not depend on it expiring.
	p, master := openPty(t, &Opts{ReadTimeout: time.Hour})
	errc := make(chan error, 1)
	go func() {
		_, err := p.Read(make([]byte, 16))
		errc <- err
	}()
	for p.reads.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	master.Close()
	var err error
	select {
	case err = <-errc:
	case <-time.After(5 * time.Second):
		t.Fatal("Read still blocked 5 s after the master closed")
	}
	if !errors.Is(err, ErrDisconnected) {
		t.Fatalf("Read after unplug = %v, want ErrDisconnected", err)
	}
	// No busy loop: one underlying read sees the hang-up.
	if n := p.reads.Load(); n > 2 {
		t.Fatalf("%d underlying reads for one disconnect", n)
	}
	for range 3 {
		if _, err := p.Read(make([]byte, 1)); !errors.Is(err, ErrDisconnected) {
			t.Fatalf("later Read = %v, want ErrDisconnected", err)
		}
		if _, err := p.Write([]byte("x")); !errors.Is(err, ErrDisconnected) {
			t.Fatalf("later Write = %v, want ErrDisconnected", err)
		}
	}
	if n := p.reads.Load(); n > 2 {
		t.Fatalf("dead port kept reading the device: %d reads", n)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close after unplug = %v", err)
	}
}

func TestPortCloseUnblocksRead(t *testing.T) {
	checkGoroutines(t)
	p, _ := openPty(t, &Opts{ReadTimeout: time.Hour})
	errc := make(chan error, 1)
	go func() {
		_, err := p.Read(make([]byte, 16))
		errc <- err
	}()
	for p.reads.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("Read after Close = %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock Read")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	if _, err := p.Write([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Write after Close = %v, want ErrClosed", err)
	}
}

func TestPortContextCancel(t *testing.T) {
	checkGoroutines(t)
	master, slave, err := pty.Open()
	if err != nil {
		t.Skip(err)
	}
	defer master.Close()
	defer slave.Close()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := OpenPath(ctx, slave.Name(), &Opts{Settle: time.Millisecond, ReadTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := p.Read(make([]byte, 16))
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("Read after cancel = %v, want ErrClosed", err)
	}
}

func TestOpenPath(t *testing.T) {
	off := false
	master, slave, err := pty.Open()
	if err != nil {
		t.Skip(err)
	}
	defer master.Close()
	defer slave.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := OpenPath(ctx, slave.Name(), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("OpenPath(canceled) = %v", err)
	}
	// Cancelled during the settle wait: the port must be released.
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := OpenPath(ctx, slave.Name(), &Opts{Settle: time.Hour}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("OpenPath(cancel during settle) = %v", err)
	}
	// A pty has no modem lines: the TIOCMSET fails and it is opened plainly.
	p, err := OpenPath(context.Background(), slave.Name(), &Opts{Settle: time.Millisecond, DTR: &off, RTS: &off})
	if err != nil {
		t.Fatalf("OpenPath with DTR/RTS on a pty = %v", err)
	}
	if p.Path() != slave.Name() || p.String() != "serial("+slave.Name()+")" {
		t.Fatalf("Path/String = %q, %q", p.Path(), p.String())
	}
	p.Close()
	if _, err := OpenPath(context.Background(), "/nonexistent/ttyACM0", nil); err == nil || !bytes.Contains([]byte(err.Error()), []byte("/nonexistent/ttyACM0")) {
		t.Fatalf("OpenPath(missing) = %v, want an error naming the path", err)
	}
	if _, err := OpenPath(context.Background(), os.DevNull, nil); err == nil {
		t.Fatal("OpenPath(/dev/null) succeeded; it is not a tty")
	}
}

func BenchmarkPortRead(b *testing.B) {
	p, master := openPty(b, nil)
	chunk := bytes.Repeat([]byte{0x5a}, 4120) // one max-size dock frame
	go func() {
		for {
			if _, err := master.Write(chunk); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 4120)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := io.ReadFull(p, buf); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	p.Close()
	master.Close()
}

func BenchmarkPortWrite(b *testing.B) {
	p, master := openPty(b, nil)
	go io.Copy(io.Discard, master)
	chunk := bytes.Repeat([]byte{0x5a}, 4120)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := p.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	p.Close()
	master.Close()
}
