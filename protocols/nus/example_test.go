package nus_test

import (
	"fmt"

	"github.com/claude-pi/claude-pi/protocols/nus"
)

func ExampleAssembler() {
	a := nus.NewAssembler(nus.DefaultMaxLine)
	emit := func(line []byte, err error) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("line %d: %s\n", a.Line(), line) // copy line to keep it
	}
	// Two writes that cut a line in the middle of "é" (0xC3 0xA9).
	a.Feed([]byte("{\"msg\":\"caf\xc3"), emit)
	a.Feed([]byte("\xa9\"}\r\n\n{\"cmd\":\"status\"}\n"), emit)
	// Output:
	// line 1: {"msg":"café"}
	// line 3: {"cmd":"status"}
}

func ExampleAppendChunks() {
	line := []byte(`{"cmd":"permission","id":"req_7c1e","decision":"once"}` + "\n")
	chunks, err := nus.AppendChunks(nil, line, nus.DefaultMTU)
	if err != nil {
		panic(err)
	}
	for _, c := range chunks {
		fmt.Printf("%q\n", c)
	}
	// Output:
	// "{\"cmd\":\"permission\","
	// "\"id\":\"req_7c1e\",\"dec"
	// "ision\":\"once\"}\n"
}
