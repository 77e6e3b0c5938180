package sim

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/claude-pi/claude-pi/drivers/input"
)

// Button names. A and B match the two buttons every supported HAT has; X
// and Y are the Pimoroni HATs' other two (the sim profile maps them to the
// info pages).
const (
	ButtonA = "A" // approve
	ButtonB = "B" // deny
	ButtonX = "X" // next page
	ButtonY = "Y" // previous page, home
)

// LongPress is how long a button must be held to count as a long press,
// the same threshold M5Stack's firmware uses for "hold".
const LongPress = 500 * time.Millisecond

// MaxHold caps a simulated hold; anything longer is a typo, not a press.
const MaxHold = 60 * time.Second

// Press is one button press, delivered when the button is released.
type Press struct {
	Name string        // ButtonA or ButtonB
	Long bool          // held for LongPress or longer
	Hold time.Duration // how long it was held
}

// Buttons is the set of simulated buttons and the subscribers to their
// presses. A subscriber that does not keep up loses presses rather than
// blocking the web request that pressed the button.
type Buttons struct {
	names []string

	mu      sync.Mutex
	subs    map[int]chan Press
	events  chan input.Event // made by the first Events call
	next    int
	dropped int
}

var _ input.Source = (*Buttons)(nil)

// eventsBuffer is how many presses wait for a slow ui, as on hardware.
const eventsBuffer = 16

// Events implements input.Source, so the ui reads the sim's buttons as it
// reads a HAT's: one channel, the same on every call and never closed,
// since the board outlives the ui's incarnations.
func (b *Buttons) Events() <-chan input.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.events == nil {
		b.events = make(chan input.Event, eventsBuffer)
	}
	return b.events
}

// NewButtons returns the buttons with the given names (ButtonA and ButtonB
// when none are given).
func NewButtons(names ...string) *Buttons {
	if len(names) == 0 {
		names = []string{ButtonA, ButtonB}
	}
	return &Buttons{names: slices.Clone(names), subs: map[int]chan Press{}}
}

// Names lists the buttons.
func (b *Buttons) Names() []string { return slices.Clone(b.names) }

// Has reports whether a button with this name exists.
func (b *Buttons) Has(name string) bool { return slices.Contains(b.names, name) }

// Subscribe returns a channel of presses with room for buf of them, and a
// function that ends the subscription and closes the channel.
func (b *Buttons) Subscribe(buf int) (<-chan Press, func()) {
	if buf < 1 {
		buf = 1
	}
	ch := make(chan Press, buf)
	b.mu.Lock()
	id := b.next
	b.next++
	b.subs[id] = ch
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, id)
			b.mu.Unlock()
			close(ch)
		})
	}
}

// Press presses and releases the named button after hold, delivering the
// press to Events and every subscriber at once (the hold is not waited
// for: the web page measures it). It returns how many received it.
func (b *Buttons) Press(name string, hold time.Duration) (Press, int, error) {
	if !b.Has(name) {
		return Press{}, 0, fmt.Errorf("sim buttons: no button %q (have %v)", name, b.names)
	}
	if hold < 0 || hold > MaxHold {
		return Press{}, 0, fmt.Errorf("sim buttons: hold %v out of range 0..%v", hold, MaxHold)
	}
	p := Press{Name: name, Long: hold >= LongPress, Hold: hold}
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	if b.events != nil {
		select {
		case b.events <- input.Event{Name: p.Name, Long: p.Long, Held: p.Hold}:
			n++
		default:
			b.dropped++
		}
	}
	for _, ch := range b.subs {
		select {
		case ch <- p:
			n++
		default:
			b.dropped++
		}
	}
	return p, n, nil
}

// Dropped is how many deliveries were lost to full subscriber channels.
func (b *Buttons) Dropped() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped
}
