package sim

import (
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/drivers/input"
)

// TestButtonsAreAnInputSource: the ui reads the sim's presses through
// input.Source, on one channel that every call returns.
func TestButtonsAreAnInputSource(t *testing.T) {
	b := NewButtons()
	if _, n, _ := b.Press(ButtonA, 0); n != 0 {
		t.Fatalf("a press before anyone reads was delivered %d times", n)
	}
	var src input.Source = b
	ch := src.Events()
	if b.Events() != ch {
		t.Fatal("Events returned a second channel: a restarted ui would miss presses")
	}
	if _, n, err := b.Press(ButtonB, 600*time.Millisecond); n != 1 || err != nil {
		t.Fatalf("press delivered %d times: %v", n, err)
	}
	if got := <-ch; got != (input.Event{Name: ButtonB, Long: true, Held: 600 * time.Millisecond}) {
		t.Fatalf("got %+v", got)
	}
	for range eventsBuffer + 1 {
		b.Press(ButtonA, 0)
	}
	if b.Dropped() != 1 {
		t.Fatalf("%d presses dropped past a full buffer of %d, want 1", b.Dropped(), eventsBuffer)
	}
}
