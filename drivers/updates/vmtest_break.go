//go:build vmtest_panic || vmtest_lanfail

package updates

// Deliberately broken builds of claude-pi for the .deb's upgrade VM test
// (packaging/deb/vmtest/upgrade.sh), to prove the health check rolls them
// back; never in a release, which builds without tags. The file lives
// here because every command links this package and the root holds only
// main.go. vmtest_panic makes `claude-pi run` panic at start;
// vmtest_lanfail holds the lan service's port (:7787 in the test's config)
// so that one service fails at start while the others run.

import (
	"net"
	"os"
	"slices"
)

func init() {
	if !slices.Contains(os.Args[1:], "run") {
		return // claude-pi status, --version: as a good build
	}
	if breakPanic {
		panic("vmtest_panic: this build is broken on purpose")
	}
	if breakLAN {
		if l, err := net.Listen("tcp", ":7787"); err == nil {
			heldLAN = l
		}
	}
}

var heldLAN net.Listener // kept open for the process's life
