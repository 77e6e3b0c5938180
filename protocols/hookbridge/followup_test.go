package hookbridge

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeFollowUp(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    FollowUp
		wantErr bool
	}{
		{`{"state":"none"}`, FollowUp{State: FollowUpNone}, false},
		{`{"state":"listening","text":"ignored"}`, FollowUp{State: FollowUpListening}, false},
		{`{"state":"text","text":"  run the tests please "}`, FollowUp{State: FollowUpText, Text: "run the tests please"}, false},
		{`{"state":"text","text":"a\u202eb\u0007c"}`, FollowUp{State: FollowUpText, Text: "abc"}, false},
		{`{"state":"text","text":"\u0007"}`, FollowUp{}, true},
		{`{"state":"text"}`, FollowUp{}, true},
		{`{"state":"maybe"}`, FollowUp{}, true},
		{`{"state":"none","extra":1}`, FollowUp{}, true},
		{`{"state":"none"}{}`, FollowUp{}, true},
	} {
		got, err := DecodeFollowUp([]byte(tc.in))
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("DecodeFollowUp(%s) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
		if err != nil && !errors.Is(err, ErrRequest) {
			t.Errorf("DecodeFollowUp(%s): %v is not ErrRequest", tc.in, err)
		}
	}
	long, _ := json.Marshal(FollowUp{State: FollowUpText, Text: strings.Repeat("é", MaxFollowUp+10)})
	if f, err := DecodeFollowUp(long); err != nil || utf8.RuneCountInString(f.Text) != MaxFollowUp {
		t.Errorf("a long follow-up: %d runes, %v; want cut to %d", utf8.RuneCountInString(f.Text), err, MaxFollowUp)
	}
}

func TestDecodeFollowUpRequest(t *testing.T) {
	if r, err := DecodeFollowUpRequest([]byte(`{"session":"s1"}`)); err != nil || r.Session != "s1" {
		t.Errorf("good request: %+v, %v", r, err)
	}
	for _, in := range []string{`{}`, `{"session":""}`, `{"session":"s","x":1}`, `{"session":"` + strings.Repeat("s", MaxSession+1) + `"}`, `[]`} {
		if _, err := DecodeFollowUpRequest([]byte(in)); !errors.Is(err, ErrRequest) {
			t.Errorf("DecodeFollowUpRequest(%.40s): %v, want ErrRequest", in, err)
		}
	}
}

func TestFollowUpOutput(t *testing.T) {
	var got map[string]string
	out := FollowUpOutput(`say "hi"` + "\nnext")
	if err := json.Unmarshal(out, &got); err != nil || !strings.HasSuffix(string(out), "}\n") {
		t.Fatalf("FollowUpOutput: %q (%v)", out, err)
	}
	if len(got) != 2 || got["decision"] != "block" || got["reason"] != "say \"hi\"\nnext" {
		t.Errorf("FollowUpOutput decodes to %v", got)
	}
}

func FuzzDecodeFollowUp(f *testing.F) {
	f.Add([]byte(`{"state":"text","text":"now run the tests please"}`))
	f.Add([]byte(`{"state":"listening"}`))
	f.Add([]byte(`{"state":"none"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fu, err := DecodeFollowUp(b)
		if err != nil {
			return
		}
		if fu.State == FollowUpText && (fu.Text == "" || utf8.RuneCountInString(fu.Text) > MaxFollowUp || Printable(fu.Text, MaxFollowUp) != fu.Text) {
			t.Fatalf("accepted text %q", fu.Text)
		}
		if fu.State != FollowUpText && fu.Text != "" {
			t.Fatalf("%s line kept text %q", fu.State, fu.Text)
		}
	})
}

func FuzzDecodeFollowUpRequest(f *testing.F) {
	f.Add([]byte(`{"session":"0b7c5a0e-5d8e-4c1e-9a51-5d0f1f0e2b6a"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeFollowUpRequest(b)
		if err == nil && (r.Session == "" || len(r.Session) > MaxSession || !utf8.ValidString(r.Session)) {
			t.Fatalf("accepted session %q", r.Session)
		}
	})
}
