package buddy

import "testing"

// A worst-case-ish desktop heartbeat: 8 entries and a prompt.
var benchHeartbeat = []byte(`{"total":3,"running":2,"waiting":1,"msg":"approve: Bash","entries":["10:40 user: fix the failing tests in the parser","10:41 Reading src/main.rs","10:41 Reading src/parser/mod.rs","10:42 Editing src/parser/mod.rs","10:42 Running cargo test --workspace","10:43 assistant: two tests still fail; looking at the fixtures","10:43 Reading tests/fixtures/heartbeat.json","10:44 Bash: cargo test -p parser"],"tokens":184502,"tokens_today":31200,"prompt":{"id":"toolu_01HqY8vJ7c3Nw2kPz5mXb9Ra","tool":"Bash","hint":"cargo test -p parser -- --nocapture"}}`)

func BenchmarkDecodeHeartbeat(b *testing.B) {
	b.SetBytes(int64(len(benchHeartbeat)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(benchHeartbeat); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodePermission(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		EncodePermission("toolu_01HqY8vJ7c3Nw2kPz5mXb9Ra", Once)
	}
}

func BenchmarkEncodeStatus(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		EncodeStatus(appliance)
	}
}
