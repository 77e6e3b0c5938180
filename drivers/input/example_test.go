package input_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/host/v3"

	"github.com/claude-pi/claude-pi/drivers/input"
)

func Example() {
	if _, err := host.Init(); err != nil {
		log.Fatal(err)
	}
	// Pin names belong to the board profile.
	b, err := input.New(map[string]gpio.PinIn{
		"A": gpioreg.ByName("GPIO5"),
		"B": gpioreg.ByName("GPIO6"),
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	context.AfterFunc(ctx, func() { b.Close() })

	// Ends when Close closes the channel.
	for ev := range b.Events() {
		if ev.Long {
			fmt.Println(ev.Name, "held")
		} else {
			fmt.Println(ev.Name, "pressed")
		}
	}
}

func ExampleButton() {
	const ms = time.Millisecond
	b := input.Button{Name: "A", Debounce: 20 * ms, LongPress: 700 * ms}
	b.Update(0, true)                // Edge: pressed.
	b.Update(20*ms, true)            // Held for Debounce: counts.
	_, ok := b.Update(250*ms, false) // Released...
	fmt.Println(ok)
	ev, ok := b.Update(270*ms, false) // ...and it stuck: a short press.
	fmt.Println(ev.Name, ev.Long, ev.Held, ok)
	// Output:
	// false
	// A false 250ms true
}
