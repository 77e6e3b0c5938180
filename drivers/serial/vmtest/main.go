//go:build linux

// Command vmtest runs inside the QEMU guest of the serial VM test (run.sh):
// a real kernel's USB stack, with dummy_hcd joining a configfs CDC-ACM
// gadget that has the CoreS3's ids (303a:1001) to cdc_acm on the host side.
// For each of the nine dock.dtr/dock.rts settings it opens the port with
// drivers/serial as the dock does, closes it, and reads from usbmon every
// SET_CONTROL_LINE_STATE the host sent meanwhile. A verdict line per
// setting:
//
//	PASS dtr=false rts=false: DTR=1 RTS=1, DTR=0 RTS=0, DTR=0 RTS=0
//	FAIL dtr=false rts=unset: DTR=0 RTS=1 holds the ESP32-S3 in reset
//
// A setting passes when no request put the lines in reset or download, the
// state held while open is the one drivers/serial promises, and a refused
// setting sent nothing at all.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/serial"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: vmtest TTY USBMON (e.g. /dev/ttyACM0 /sys/kernel/debug/usb/usbmon/0u)")
		os.Exit(2)
	}
	mon, err := os.Open(os.Args[2])
	if err != nil {
		fmt.Println("FAIL usbmon:", err)
		os.Exit(1)
	}
	states := make(chan serial.Lines, 256)
	go watch(mon, states)
	on, off := true, false
	type setting struct {
		name string
		v    *bool
	}
	settings := []setting{{"unset", nil}, {"true", &on}, {"false", &off}}
	failed := 0
	for _, d := range settings {
		for _, r := range settings {
			name := "dtr=" + d.name + " rts=" + r.name
			verdict := check(os.Args[1], d.v, r.v, states)
			if !strings.HasPrefix(verdict, "PASS") {
				failed++
			}
			word, rest, _ := strings.Cut(verdict, " ")
			fmt.Printf("%s %s: %s\n", word, name, rest)
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}

// check opens and closes the port once with dtr/rts and judges the line
// states usbmon saw.
func check(tty string, dtr, rts *bool, states <-chan serial.Lines) string {
	drain(states, 0)
	want, refused := serial.WantLines(dtr, rts)
	p, err := serial.OpenPath(context.Background(), tty, &serial.Opts{DTR: dtr, RTS: rts, Settle: 100 * time.Millisecond})
	if err == nil {
		time.Sleep(100 * time.Millisecond)
		p.Close()
	}
	seen := drain(states, 500*time.Millisecond)
	var text []string
	for _, s := range seen {
		text = append(text, s.String())
	}
	got := strings.Join(text, ", ")
	for _, s := range seen {
		if h := s.Hazard(); h != "" {
			return fmt.Sprintf("FAIL %s %s (all: %s)", s, h, got)
		}
	}
	switch {
	case refused != nil && err == nil:
		return "FAIL opened a setting WantLines refuses: " + got
	case refused != nil && len(seen) > 0:
		return "FAIL refused, yet the lines moved: " + got
	case refused != nil:
		return "PASS refused, no request sent"
	case err != nil:
		return "FAIL " + err.Error()
	case len(seen) < 2 || seen[0] != serial.LinesRaised || seen[len(seen)-1] != (serial.Lines{}):
		return "FAIL want the kernel's raise on open and the drop on close: " + got
	}
	// cdc_acm sends nothing for an unchanged state, and always on close.
	held := serial.LinesRaised
	if len(seen) > 2 {
		held = seen[len(seen)-2]
	}
	if held != want {
		return fmt.Sprintf("FAIL held %s while open, want %s: %s", held, want, got)
	}
	return "PASS " + got
}

// drain returns the states that arrive until quiet has passed without one.
func drain(states <-chan serial.Lines, quiet time.Duration) []serial.Lines {
	var out []serial.Lines
	for {
		select {
		case s := <-states:
			out = append(out, s)
		case <-time.After(max(quiet, time.Millisecond)):
			return out
		}
	}
}

// watch parses usbmon's text lines for class requests to an interface
// (bmRequestType 0x21) SET_CONTROL_LINE_STATE (0x22), whose wValue holds
// DTR in bit 0 and RTS in bit 1:
//
//	ff1e... 47615384 S Co:1:002:0 s 21 22 0003 0000 0000 0
func watch(mon *os.File, out chan<- serial.Lines) {
	sc := bufio.NewScanner(mon)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[2] != "S" || f[4] != "s" || f[5] != "21" || f[6] != "22" {
			continue
		}
		v, err := strconv.ParseUint(f[7], 16, 16)
		if err != nil {
			continue
		}
		out <- serial.Lines{DTR: v&1 != 0, RTS: v&2 != 0}
	}
}
