package procwatch

import "testing"

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want int64
		ok   bool
	}{
		{"1234 (claude-pi) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 8 0 98765 123456 789", 98765 * 1e7, true},
		// A command name with spaces and parentheses.
		{"99 (a) b (c)) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 424242 1 2", 424242 * 1e7, true},
		{"99 (short) R 1 2 3", 0, false},
		{"no parenthesis at all", 0, false},
		{"1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5 1 1", 0, false},
		{"1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12x 1 1", 0, false},
	} {
		got, ok := parseStat(tc.stat)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseStat(%q) = %d, %v; want %d, %v", tc.stat, got, ok, tc.want, tc.ok)
		}
	}
}
