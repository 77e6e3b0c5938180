package ui

import (
	"slices"
	"time"

	"github.com/claude-pi/claude-pi/supervisor"
)

// downLine is the home screen's line while any service is not RUNNING,
// "approvals down since 20:31" ("approvals +1 ..." for more, the longest
// down first), or "" when all run. A service never started (autostart
// off) has no DownSince and is not down. clock turns the Pi's time into
// the one the top bar shows.
func downLine(ps []supervisor.ProcessInfo, clock func(time.Time) time.Time) string {
	var down []supervisor.ProcessInfo
	for _, p := range ps {
		if p.State != supervisor.Running && !p.DownSince.IsZero() {
			down = append(down, p)
		}
	}
	if len(down) == 0 {
		return ""
	}
	slices.SortStableFunc(down, func(a, b supervisor.ProcessInfo) int { return a.DownSince.Compare(b.DownSince) })
	names := make([]string, len(down))
	for i, p := range down {
		names[i] = p.Name
	}
	return firstAndCount(names) + " down since " + clock(down[0].DownSince).Format("15:04")
}

// shownClock is the zone of the top bar: the desktop's once its time
// line arrived, else the Pi's.
func (s *state) shownClock(t time.Time) time.Time {
	if s.buddy != nil && s.buddy.Desktop != nil {
		return s.buddy.Desktop.Now(t)
	}
	return t.Local()
}
