package screens

import (
	"testing"
	"time"
)

func TestZoneAndTokenLabels(t *testing.T) {
	for _, tt := range []struct {
		off  int
		want string
	}{{0, "UTC"}, {2 * 3600, "UTC+2"}, {-7 * 3600, "UTC−7"}, {5*3600 + 1800, "UTC+5:30"}, {-(3*3600 + 1800), "UTC−3:30"}} {
		if got := zoneName(time.Unix(0, 0).In(time.FixedZone("x", tt.off))); got != tt.want {
			t.Errorf("offset %d: %q, want %q", tt.off, got, tt.want)
		}
	}
	for _, tt := range []struct {
		n    uint64
		want string
	}{{0, "0"}, {9_999, "9999"}, {10_000, "10k"}, {31_200, "31.2k"}, {999_949, "999.9k"}, {4_100_000, "4.1M"}, {1 << 63, "9223372036854.8M"}} {
		if got := tokens(tt.n); got != tt.want {
			t.Errorf("tokens(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// Out-of-range inputs from a bad State draw clamped, never panic.
func TestStatsClamps(t *testing.T) {
	r, err := NewRenderer(240, 240)
	if err != nil {
		t.Fatal(err)
	}
	img := r.NewFrame()
	for _, v := range []StatsView{
		{Loaded: true, Mood: -3, Energy: -1, Fed: -5},
		{Loaded: true, Mood: 99, Energy: 99, Fed: 99, Level: 1<<32 - 1, Napped: 1 << 62},
	} {
		r.Stats(img, v)
	}
	r.Settings(img, SettingsView{Cursor: 99, Rows: []SettingRow{{"Sound", "on"}}})
	r.Clock(img, ClockView{Time: time.Date(9999, 12, 31, 23, 59, 0, 0, time.UTC), Today: 1 << 63, HaveToday: true})
}
