package buddy_test

import (
	"errors"
	"fmt"

	"github.com/claude-pi/claude-pi/protocols/buddy"
)

func ExampleDecode() {
	lines := []string{
		`{"total":1,"running":0,"waiting":1,"msg":"approve: Bash","entries":["10:41 Reading src/main.rs"],"tokens":5120,"tokens_today":880,"prompt":{"id":"req_7c1e","tool":"Bash","hint":"cargo test"}}`,
		`{"evt":"turn","role":"assistant","content":[{"type":"text","text":"Done."}]}`,
		`{"cmd":"status"}`,
		`{}`,
	}
	for _, line := range lines {
		m, err := buddy.Decode([]byte(line))
		if err != nil {
			fmt.Println("drop:", err)
			continue
		}
		switch m := m.(type) {
		case buddy.Heartbeat:
			fmt.Printf("heartbeat: waiting=%d prompt=%s (%s: %s)\n", m.Waiting, m.Prompt.ID, m.Prompt.Tool, m.Prompt.Hint)
		case buddy.TurnEvent:
			fmt.Println("turn from", m.Role, "- prompt state untouched")
		case buddy.Command:
			fmt.Println("command", m.CmdName())
		default:
			fmt.Println(m.Kind())
		}
	}
	// Output:
	// heartbeat: waiting=1 prompt=req_7c1e (Bash: cargo test)
	// turn from assistant - prompt state untouched
	// command status
	// keepalive
}

func ExampleEncodePermission() {
	m, _ := buddy.Decode([]byte(`{"waiting":1,"prompt":{"id":"req \"7c1e\" ✓","tool":"Bash","hint":""}}`))
	p := m.(buddy.Heartbeat).Prompt
	fmt.Printf("%s", buddy.EncodePermission(p.ID, buddy.Once))
	// Output:
	// {"cmd":"permission","id":"req \"7c1e\" ✓","decision":"once"}
}

// Every command gets exactly one ack, even one that fails to decode.
func ExampleCommandError() {
	for _, line := range []string{
		`{"cmd":"file","path":"idle_0.gif","size":-5}`,
		`{"cmd":"frobnicate"}`,
		`{"cmd":"owner","name":"Felix"}`,
	} {
		m, err := buddy.Decode([]byte(line))
		var ce *buddy.CommandError
		switch {
		case errors.As(err, &ce):
			fmt.Printf("%s", ce.Ack())
		case err != nil:
			fmt.Println("drop:", err)
		default:
			switch c := m.(type) {
			case buddy.UnknownCommand:
				fmt.Printf("%s", buddy.AckFail(c.Cmd, 0, "unknown command"))
			case buddy.Owner:
				fmt.Printf("%s", buddy.AckOK(c.CmdName(), 0))
			}
		}
	}
	// Output:
	// {"ack":"file","ok":false,"n":0,"error":"invalid size: want non-negative integer"}
	// {"ack":"frobnicate","ok":false,"n":0,"error":"unknown command"}
	// {"ack":"owner","ok":true,"n":0}
}

func ExampleEncodeStatus() {
	line := buddy.EncodeStatus(buddy.StatusAck{
		Name: "Claude_Pi", Sec: true,
		Bat: buddy.Battery{Pct: 100, MilliVolt: 5000, USB: true},
		Sys: buddy.System{Up: 60, Heap: 1 << 20},
	})
	fmt.Printf("%s", line)
	fmt.Println(buddy.ValidateStatusAck(line))
	// Output:
	// {"ack":"status","ok":true,"n":0,"data":{"name":"Claude_Pi","sec":true,"bat":{"pct":100,"mV":5000,"mA":0,"usb":true},"sys":{"up":60,"heap":1048576,"fsFree":0,"fsTotal":0},"stats":{"appr":0,"deny":0,"vel":0,"nap":0,"lvl":0}}}
	// <nil>
}
