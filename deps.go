//go:build tools

// This file pins the project's dependencies in go.mod before every package
// that uses them exists, so that parallel work never races on go.mod. It is
// never built (the "tools" tag is never set).
package main

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/asynkron/protoactor-go/actor"
	_ "github.com/asynkron/protoactor-go/testkit"
	_ "github.com/creack/pty"
	_ "github.com/go-ble/ble"
	_ "github.com/go-ble/ble/linux"
	_ "github.com/godbus/dbus/v5"
	_ "go.bug.st/serial"
	_ "go.bug.st/serial/enumerator"
	_ "golang.org/x/image/font/basicfont"
	_ "golang.org/x/image/font/opentype"
	_ "periph.io/x/conn/v3/display"
	_ "periph.io/x/conn/v3/gpio/gpiotest"
	_ "periph.io/x/conn/v3/spi/spitest"
	_ "periph.io/x/devices/v3/ssd1306"
	_ "periph.io/x/host/v3"
)
