package serial_test

import (
	"context"
	"fmt"
	"time"

	"github.com/claude-pi/claude-pi/drivers/serial"
)

// A dock actor's outer loop: wait for the CoreS3, open it, run the protocol
// until the port fails, repeat.
func ExampleWatcher() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	fake := func() ([]*serial.PortDetails, error) {
		return []*serial.PortDetails{{Name: "/dev/ttyACM0", IsUSB: true, VID: "303A", PID: "1001", SerialNumber: "F4:12"}}, nil
	}
	w := &serial.Watcher{Enumerate: fake}
	for ev := range w.Watch(ctx) {
		switch ev := ev.(type) {
		case serial.Plugged:
			fmt.Println("plugged", ev.Path, ev.Serial)
			// port, err := serial.OpenPath(ctx, ev.Path, &opts); then the handshake.
			cancel()
		case serial.Unplugged:
			fmt.Println("unplugged", ev.Path)
		}
	}
	// Output: plugged /dev/ttyACM0 F4:12
}
