//go:build !linux

package buddy

import (
	"runtime"
	"time"
)

// started stands in for boot time where sysinfo(2) is missing. The
// appliance runs on Linux; this keeps the package building for the
// developer-side binary on macOS and Windows (the CLI hook).
var started = time.Now()

// sysInfo reports the process's uptime and the Go heap's idle memory.
func sysInfo() (up, heap uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return uint64(time.Since(started).Seconds()), ms.HeapIdle - ms.HeapReleased
}
