package ctlsock_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock/ctlsocktest"
)

// Serve a Backend on a socket, then print the table `supervisorctl status`
// would print, without Python.
func ExampleStatus() {
	dir, _ := os.MkdirTemp("", "ctlsock")
	defer os.RemoveAll(dir)
	backend := ctlsocktest.New([]string{"ble", "dock"}, "advertising as Claude_Pi", "CoreS3 on /dev/ttyACM0")
	srv, err := ctlsock.Listen(filepath.Join(dir, "claude-pi.sock"), backend, ctlsock.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	if err := ctlsock.Status(context.Background(), srv.Path(), nil, os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ble                              RUNNING   advertising as Claude_Pi
	// dock                             RUNNING   CoreS3 on /dev/ttyACM0
}

// Decode the request supervisorctl sends first on every command.
func ExampleDecodeMethodCall() {
	body := "<?xml version='1.0'?>\n<methodCall>\n<methodName>supervisor.getVersion</methodName>\n<params>\n</params>\n</methodCall>\n"
	mc, err := ctlsock.DecodeMethodCall(strings.NewReader(body))
	fmt.Println(mc.Method, len(mc.Params), err)
	// Output: supervisor.getVersion 0 <nil>
}

// A fault, encoded as supervisorctl expects to find it.
func ExampleAppendFault() {
	fmt.Printf("%s", ctlsock.AppendFault(nil, &ctlsock.Fault{Code: ctlsock.BadName, String: "BAD_NAME: foo"}))
	// Output:
	// <?xml version="1.0"?>
	// <methodResponse><fault><value><struct><member><name>faultCode</name><value><int>10</int></value></member><member><name>faultString</name><value><string>BAD_NAME: foo</string></value></member></struct></value></fault></methodResponse>
}
