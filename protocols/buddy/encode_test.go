package buddy

import (
	"reflect"
	"strings"
	"testing"
)

func TestEncoders(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"permission once", EncodePermission("req_abc123", Once), `{"cmd":"permission","id":"req_abc123","decision":"once"}`},
		{"permission deny", EncodePermission("req_abc123", Deny), `{"cmd":"permission","id":"req_abc123","decision":"deny"}`},
		{"zero decision is deny", EncodePermission("r", Decision{}), `{"cmd":"permission","id":"r","decision":"deny"}`},
		{"id escaped", EncodePermission(`a"b\c`, Once), `{"cmd":"permission","id":"a\"b\\c","decision":"once"}`},
		{"ack ok", AckOK("chunk", 256), `{"ack":"chunk","ok":true,"n":256}`},
		{"ack fail", AckFail("file", 0, "invalid path"), `{"ack":"file","ok":false,"n":0,"error":"invalid path"}`},
		{"ack fail always has error", AckFail("char_end", 0, ""), `{"ack":"char_end","ok":false,"n":0,"error":"failed"}`},
		{"ack echoes unknown cmd", AckFail("fro\"b", 0, "unknown command"), `{"ack":"fro\"b","ok":false,"n":0,"error":"unknown command"}`},
		{"capacity nack", AckFail(CmdCharBegin, 1200000, "need 1748K, have 1171K"), `{"ack":"char_begin","ok":false,"n":1200000,"error":"need 1748K, have 1171K"}`},
		{"empty heartbeat keeps meaning", Encode(Heartbeat{}), `{"prompt":null}`},
		{"time", Encode(TimeSync{Epoch: 1775731234, Offset: -25200}), `{"time":[1775731234,-25200]}`},
		{"keepalive", Encode(Keepalive{}), `{}`},
		{"species", Encode(Species{Idx: 255}), `{"cmd":"species","idx":255}`},
		{"other event", Encode(OtherEvent{Evt: "x"}), `{"evt":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if string(tt.got) != tt.want+"\n" {
				t.Fatalf("got %q, want %q", tt.got, tt.want+"\n")
			}
			if strings.Count(string(tt.got), "\n") != 1 {
				t.Fatalf("line must hold exactly one newline, at its end: %q", tt.got)
			}
		})
	}
	if Once.String() != "once" || Deny.String() != "deny" {
		t.Fatalf("decision strings %q %q", Once, Deny)
	}
}

// A raw value with whitespace (possible when Decode is called on hand-made
// input) must not carry a newline into an encoded line.
func TestRawValuesCompacted(t *testing.T) {
	m, err := Decode([]byte("{\"evt\":\"turn\",\"role\":\"user\",\"content\":[ {\"text\" :\n \"a b\\n\"} ]}"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"evt":"turn","role":"user","content":[{"text":"a b\n"}]}` + "\n"
	if got := string(Encode(m)); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestEncodeRoundTripAllTypes(t *testing.T) {
	msgs := []Message{
		Heartbeat{Present: FieldTotal | FieldEntries | FieldCompleted, Total: 3, Entries: []string{}, Completed: true, Prompt: &Prompt{ID: "p\u2028", Tool: "t", Hint: "h"}},
		Keepalive{}, TurnEvent{Role: "user"}, OtherEvent{Evt: "e"}, TimeSync{Epoch: -1, Offset: 3600},
		Ack{Cmd: "status", OK: true, Data: []byte(`{"a":1}`)},
		Owner{Name: "Felix"}, SetName{Name: "Clawd"}, Status{}, Unpair{}, CharBegin{Name: "bufo", Total: 1},
		File{Path: "a.gif", Size: 0}, Chunk{D: "AAAA"}, FileEnd{}, CharEnd{}, Species{Idx: -4},
		Permission{ID: "x", Decision: Deny}, UnknownCommand{Cmd: "frobnicate"},
	}
	for _, m := range msgs {
		line := Encode(m)
		back, err := Decode(line[:len(line)-1])
		if err != nil {
			t.Fatalf("Decode(%s): %v", line, err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip of %s:\n got %#v\nwant %#v", line, back, m)
		}
	}
}

func TestChunkAppendDecoded(t *testing.T) {
	got, err := Chunk{D: "R0lGOA=="}.AppendDecoded(nil)
	if err != nil || string(got) != "GIF8" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := (Chunk{D: "R0lGOA"}).AppendDecoded(nil); err == nil {
		t.Fatal("unpadded base64 accepted; the desktop always pads")
	}
}
