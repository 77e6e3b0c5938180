package buddy

import (
	"slices"
	"testing"
	"time"

	bleactor "github.com/claude-pi/claude-pi/actors/ble"
)

// BenchmarkHeartbeatToSetPrompts measures, in process, the time from a
// heartbeat line reaching the buddy mailbox to its SetPrompts reaching
// approvals: decode, session update and one actor hop. p50 and p99 are
// reported as metrics.
func BenchmarkHeartbeatToSetPrompts(b *testing.B) {
	h := newHarness(b, b.TempDir())
	line := []byte(`{"total":2,"running":1,"waiting":1,"msg":"approve: Bash","entries":["10:41 yarn test","10:42 git push"],"tokens":184502,"tokens_today":31200,"prompt":{"id":"req_abc123","tool":"Bash","hint":"npm test"}}`)
	lat := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		start := time.Now()
		h.send(bleactor.Line{Data: line})
		<-h.prompts
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}

// BenchmarkSessionHeartbeat is the pure state update alone.
func BenchmarkSessionHeartbeat(b *testing.B) {
	s, _ := newTestSession(b)
	line := []byte(`{"total":2,"running":1,"waiting":1,"msg":"approve: Bash","entries":["10:41 yarn test","10:42 git push"],"tokens":184502,"tokens_today":31200,"prompt":{"id":"req_abc123","tool":"Bash","hint":"npm test"}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		s.line(line, t0)
	}
}
