package folderpush_test

import (
	"encoding/base64"
	"fmt"
	"time"

	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush/memfs"
)

// A text-mode pack pushed as the desktop would, one ack per command.
func ExampleReceiver() {
	fs := &memfs.FS{Size: 2 << 20}
	r, err := folderpush.New(fs, nil)
	if err != nil {
		panic(err)
	}
	manifest := []byte(`{"mode":"text","states":{"idle":{"frames":["(o_o)","(-_-)"]}}}`)
	now := time.Now()
	for _, in := range []folderpush.Input{
		{Cmd: folderpush.CmdBegin, Name: "blink", Total: int64(len(manifest))},
		{Cmd: folderpush.CmdFile, Path: "manifest.json", Size: int64(len(manifest))},
		{Cmd: folderpush.CmdChunk, Data: base64.StdEncoding.EncodeToString(manifest)},
		{Cmd: folderpush.CmdFileEnd},
		{Cmd: folderpush.CmdEnd},
	} {
		res := r.Apply(in, now)
		fmt.Printf("%s ok=%v n=%d\n", res.Ack, res.OK, res.N)
		if res.Installed != nil {
			fmt.Println("installed", res.Pack, res.Installed.Frames["idle"].Frames)
		}
	}
	// Output:
	// char_begin ok=true n=0
	// file ok=true n=0
	// chunk ok=true n=62
	// file_end ok=true n=62
	// char_end ok=true n=0
	// installed blink [(o_o) (-_-)]
}

func ExampleCheckName() {
	for _, name := range []string{"idle_0.gif", "../etc/passwd"} {
		fmt.Println(name, folderpush.CheckName(name))
	}
	// Output:
	// idle_0.gif <nil>
	// ../etc/passwd invalid path "../etc/passwd": starts with a dot
}
