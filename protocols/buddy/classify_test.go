package buddy

import (
	"testing"
)

// classifySeeds are lines on both sides of every rule in Classify: each
// kind of line, each heartbeat field with a usable and an unusable value.
var classifySeeds = []string{
	`{"total":1,"running":0,"waiting":1,"msg":"approve: Bash","entries":[],"tokens":10,"tokens_today":3,"prompt":{"id":"a","tool":"Bash","hint":"ls"}}`,
	`{"total":1}`,
	`{"prompt":{"id":"a"}}`,
	`{"prompt":null}`,
	`{"total":"3","msg":7,"entries":"x","completed":1,"tokens":-1}`,
	`{"total":4294967296,"tokens_today":9223372036854775808}`,
	`{"completed":true}`,
	`{"completed":false,"total":2}`,
	`{"total":1,"total":null}`,
	`{}`,
	`{"unknown":1}`,
	`{"cmd":"status"}`,
	`{"cmd":"owner","name":3}`,
	`{"evt":"turn","role":"assistant","content":[]}`,
	`{"time":[1775731234,-25200]}`,
	`{"ack":"x","total":1}`,
	`[{"total":1}]`,
	`{"total":1`,
	` {"total" : 1 , "msg" : "\u00e9"} `,
	``,
}

func TestClassifyAgreesWithDecode(t *testing.T) {
	lines := append(append([]string(nil), classifySeeds...), transcript...)
	for _, line := range lines {
		checkClassify(t, []byte(line))
	}
}

func TestClassifyFields(t *testing.T) {
	c := Classify([]byte(`{"total":1,"waiting":"x","msg":"m","tokens":42,"completed":true,"prompt":{"id":"p"}}`))
	want := LineClass{Heartbeat: true, Fields: FieldTotal | FieldMsg | FieldTokens | FieldCompleted, Tokens: 42, Completed: true}
	if c != want {
		t.Fatalf("Classify = %+v, want %+v", c, want)
	}
	if c := Classify([]byte(`{"cmd":"status","total":1}`)); c.Heartbeat {
		t.Fatalf("a command classified as a heartbeat: %+v", c)
	}
}

func TestSupersedes(t *testing.T) {
	hb := func(line string) LineClass { return Classify([]byte(line)) }
	full := `{"total":1,"running":0,"waiting":1,"msg":"m","entries":[],"tokens":10,"tokens_today":1`
	for _, tc := range []struct {
		older, newer string
		want         bool
	}{
		{full + `,"prompt":{"id":"a"}}`, full + `,"prompt":{"id":"b"}}`, true},
		{full + `}`, full + `,"prompt":{"id":"b"}}`, true},
		{full + `,"prompt":{"id":"a"}}`, full + `}`, true},    // no prompt key: no prompt, newer decides
		{`{"total":1,"entries":["x"]}`, `{"total":2}`, false}, // entries would be lost
		{`{"total":1,"entries":["x"]}`, `{"total":2,"entries":7}`, false},
		{`{"total":1}`, `{"total":2,"entries":["y"]}`, true},
		{`{"tokens":10}`, `{"tokens":9}`, false}, // a drop re-baselines: keep both
		{`{"tokens":10}`, `{"tokens":10}`, true},
		{`{"total":1,"completed":true}`, `{"total":1,"completed":false}`, false},
		{`{"total":1,"completed":false}`, `{"total":1,"completed":false}`, true},
		{`{"total":1}`, `{}`, false},               // a keepalive is not a heartbeat
		{`{"total":1}`, `{"cmd":"status"}`, false}, // nor is a command
		{`{"cmd":"status"}`, `{"total":1}`, false},
		{`{"total":1}`, `{"total":1`, false},
	} {
		if got := hb(tc.newer).Supersedes(hb(tc.older)); got != tc.want {
			t.Errorf("%s supersedes %s = %v, want %v", tc.newer, tc.older, got, tc.want)
		}
	}
}

// FuzzClassify: Classify agrees with Decode on every line: a heartbeat
// exactly when Decode returns one, with the same Present fields, tokens
// and completed.
func FuzzClassify(f *testing.F) {
	for _, line := range classifySeeds {
		f.Add([]byte(line))
	}
	for _, line := range transcript {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkClassify(t, line) })
}

func checkClassify(t *testing.T, line []byte) {
	t.Helper()
	c := Classify(line)
	m, err := Decode(line)
	h, isHB := m.(Heartbeat)
	if err != nil || !isHB {
		if c != (LineClass{}) {
			t.Fatalf("Classify(%q) = %+v, but Decode gives %T, %v", line, c, m, err)
		}
		return
	}
	want := LineClass{Heartbeat: true, Fields: h.Present, Completed: h.Completed}
	if h.Present.Has(FieldTokens) {
		want.Tokens = h.Tokens
	}
	if c != want {
		t.Fatalf("Classify(%q) = %+v, want %+v (from Decode)", line, c, want)
	}
}

func BenchmarkClassifyHeartbeat(b *testing.B) {
	b.SetBytes(int64(len(benchHeartbeat)))
	b.ReportAllocs()
	for b.Loop() {
		if !Classify(benchHeartbeat).Heartbeat {
			b.Fatal("not a heartbeat")
		}
	}
}
