package buddy

import (
	"bufio"
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// sysInfo measures the status ack's sys.up (seconds since boot) and
// sys.heap (memory available to new allocations: MemAvailable, which
// counts reclaimable cache, unlike MemFree).
func sysInfo() (up, heap uint64) {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil {
		up = uint64(si.Uptime)
		heap = uint64(si.Freeram) * uint64(si.Unit)
	}
	if avail, ok := memAvailable(); ok {
		heap = avail
	}
	return up, heap
}

func memAvailable() (uint64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "MemAvailable:" {
			kb, err := strconv.ParseUint(string(f[1]), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}
