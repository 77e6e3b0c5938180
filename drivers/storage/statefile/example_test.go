package statefile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
)

// Settings is a kept file's document; Validate refuses what the
// appliance would never write.
type Settings struct {
	V    int  `json:"v"`
	Mute bool `json:"mute,omitempty"`
}

func (s Settings) Validate() error {
	if s.V != 1 {
		return fmt.Errorf("version %d, want 1", s.V)
	}
	return nil
}

func Example() {
	data, _ := os.MkdirTemp("", "statefile")
	defer os.RemoveAll(data)
	dir := statefile.Dir{Path: data, Now: func() time.Time { return time.Date(2026, 12, 4, 20, 23, 41, 0, time.UTC) }}

	// A power cut left half a file.
	os.WriteFile(filepath.Join(data, "ui.json"), []byte(`{"v":1,"mu`), 0o644)
	s, _, dmg := statefile.LoadJSON(dir, "ui.json", 4096, Settings{V: 1})
	fmt.Printf("%+v\n", s)
	fmt.Println(dmg.Summary())

	// The defaults save, and the damaged copy stays listed.
	if err := dir.SaveJSON("ui.json", Settings{V: 1, Mute: true}, 0o644); err != nil {
		fmt.Println(err)
	}
	list, _ := statefile.List(data)
	fmt.Println(len(list), filepath.Base(list[0].Copy))
	// Output:
	// {V:1 Mute:false}
	// ui.json (truncated) at 2026-12-04 20:23:41 UTC
	// 1 ui.json.damaged-20261204T202341Z-1-truncated
}
