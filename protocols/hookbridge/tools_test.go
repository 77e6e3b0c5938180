package hookbridge

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeToolCall(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		args string
	}{
		{`{"update_id":"u1","name":"nod","arguments":{"times":2}}`, true, `{"times":2}`},
		{`{"update_id":"u1","name":"nod"}`, true, ""},
		{`{"update_id":"u1","name":"nod","arguments":null}`, true, ""},
		{`{"update_id":"u1","name":"nod","arguments":[1]}`, false, ""},
		{`{"update_id":"u1","name":""}`, false, ""},
		{`{"update_id":"u1","name":"` + strings.Repeat("n", MaxTool+1) + `"}`, false, ""},
		{`{"update_id":"u1","name":"nod","extra":1}`, false, ""},
		{`{"name":"nod"} {}`, false, ""},
	} {
		c, err := DecodeToolCall([]byte(tc.in))
		if (err == nil) != tc.ok || tc.ok && string(c.Arguments) != tc.args {
			t.Errorf("%s: %+v, %v", tc.in, c, err)
		}
		if err != nil && !errors.Is(err, ErrRequest) {
			t.Errorf("%s: %v does not wrap ErrRequest", tc.in, err)
		}
	}
}

func TestDecodeToolCatalog(t *testing.T) {
	if _, err := DecodeToolCatalog([]byte(`{"version":3,"docked":true,"update_id":"u","tools":[{"name":"nod","description":"","input_schema":{"type":"object"}}]}`)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"version":1,"tools":[{"name":"nod","input_schema":"x"}]}`,
		`{"version":1,"tools":[{"name":"","input_schema":{}}]}`,
		`[]`,
	} {
		if _, err := DecodeToolCatalog([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if r, err := DecodeToolCallResult([]byte(`{"error":"x"}`)); err != nil || r.Code != "error" {
		t.Errorf("result without code: %+v %v", r, err)
	}
}

func FuzzDecodeToolCall(f *testing.F) {
	f.Add([]byte(`{"update_id":"u1","name":"nod","arguments":{"times":2}}`))
	f.Add([]byte(`{"name":"say","arguments":{"text":"hi"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeToolCall(b)
		if err != nil {
			return
		}
		if c.Name == "" || len(c.Name) > MaxTool {
			t.Fatalf("accepted name %q", c.Name)
		}
	})
}

func FuzzDecodeToolCatalog(f *testing.F) {
	f.Add([]byte(`{"version":3,"docked":true,"update_id":"u","tools":[{"name":"nod","description":"","input_schema":{"type":"object"}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeToolCatalog(b)
		if err != nil {
			return
		}
		for _, tool := range c.Tools {
			if tool.Name == "" || len(tool.InputSchema) == 0 {
				t.Fatalf("accepted %+v", tool)
			}
		}
	})
}
