package hookbridge

import (
	"encoding/json"
	"strings"
	"testing"
)

// The hook decodes one input per dialog, the Pi one request per prompt:
// neither is hot in the CPU sense, but a Write's tool_input can be
// megabytes, and the Pi decodes on a Pi Zero 2's core.

func BenchmarkDecodeHookInput(b *testing.B) {
	write := `{"session_id":"abc123","cwd":"/home/ada/src/engine","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"Write","tool_input":{"file_path":"/home/ada/src/engine/big.go","content":` +
		string(mustJSON(strings.Repeat("func f() { return }\n", 3200))) + `}}`
	for _, bc := range []struct{ name, in string }{
		{"bash", realisticPermission},
		{"write64k", write},
	} {
		b.Run(bc.name, func(b *testing.B) {
			in := []byte(bc.in)
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := DecodeHookInput(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRequestDetail is the summary the hook makes of each input: a
// Bash call, and a 64 KB Write with a field its summary does not show.
func BenchmarkRequestDetail(b *testing.B) {
	write := HookInput{CWD: "/home/ada/src/engine", ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/home/ada/src/engine/big.go","mode":"0755","content":` +
		string(mustJSON(strings.Repeat("func f() { return }\n", 3200))) + `}`)}
	bash, err := DecodeHookInput([]byte(realisticPermission))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		in   HookInput
	}{{"bash", bash}, {"write64k", write}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = DescribeRequest(bc.in)
			}
		})
	}
}

func BenchmarkDecodePermissionRequest(b *testing.B) {
	r := PermissionRequest{ID: "5f0c1e2a9b7d3c4e8a6f1b2d", Session: "9f3c2a10-7d1e-4b8a-bc55-2f6e1d0a9c77", Project: "engine",
		Tool: "Bash", Hint: "rm -rf build && make -j8", Detail: "Clean rebuild\nin /home/ada/src/engine", Mode: "default"}
	in := mustJSON(r)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := DecodePermissionRequest(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeEvent(b *testing.B) {
	in := mustJSON(Event{Session: "9f3c2a10-7d1e-4b8a-bc55-2f6e1d0a9c77", Event: EventPostToolUse, Project: "engine", Activity: "Bash make -j8"})
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := DecodeEvent(in); err != nil {
			b.Fatal(err)
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkCodeGuess is one guess of a relay that grinds a code offline:
// the certificates hashed once, then one nonce pair per guess. It says
// what the rationed Pi nonces are worth: a million guesses take about
// this many microseconds each, so grinding is cheap, and only the
// commitment keeps it from helping.
func BenchmarkCodeGuess(b *testing.B) {
	h := NewCodeHasher(make([]byte, 420), make([]byte, 400))
	nc, np := make([]byte, NonceSize), make([]byte, NonceSize)
	for i := 0; b.Loop(); i++ {
		nc[0], nc[1] = byte(i), byte(i>>8)
		h.Code(nc, np)
	}
}
