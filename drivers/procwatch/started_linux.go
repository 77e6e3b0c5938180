package procwatch

import (
	"os"
	"strconv"
	"strings"
)

// userHZ is the unit of /proc's clock ticks: fixed at 100 by the kernel's
// ABI on every architecture Go runs on, whatever CONFIG_HZ is.
const userHZ = 100

func started() (int64, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	return parseStat(string(b))
}

// parseStat reads field 22 of /proc/PID/stat, starttime, in clock ticks
// since boot. Field 2, the command name, is in parentheses and may hold
// spaces and parentheses itself, so the count starts after the last ")".
func parseStat(s string) (int64, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:]) // field 3 onwards
	const starttime = 22 - 3
	if len(fields) <= starttime {
		return 0, false
	}
	ticks, err := strconv.ParseInt(fields[starttime], 10, 64)
	if err != nil || ticks < 0 {
		return 0, false
	}
	return ticks * (1e9 / userHZ), true
}
