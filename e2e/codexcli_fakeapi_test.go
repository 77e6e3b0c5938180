package e2e

// A fake OpenAI Responses API for the real Codex CLI: it plays the model,
// answering every POST /v1/responses with a streamed (SSE) response from
// a script, so a test decides which shell command Codex asks to run and
// sees what Codex sent back (the command's output, a hook's refusal).
//
// The events are the ones Codex's Responses client reads:
// response.created, one response.output_item.done per output item (a
// function_call or an assistant message) and response.completed with
// the usage. Like the Anthropic fake, the script is keyed by a tag in the
// user's message, "[[scenario:NAME]]", and is stateless: a request whose
// input already holds the call's output gets the final message.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// codexPlan is a scenario's script: one escalated shell command, then the
// final reply (which the Stop hook carries).
type codexPlan struct {
	command string
	final   string
}

// codexOutput is a function_call_output Codex sent, and when.
type codexOutput struct {
	CallID string
	Text   string
	At     time.Time
}

type fakeResponses struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	plans    map[string]codexPlan
	outputs  map[string][]codexOutput
	requests []string
}

func newFakeResponses(t *testing.T) *fakeResponses {
	f := &fakeResponses{t: t, plans: map[string]codexPlan{}, outputs: map[string][]codexOutput{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the base URL for Codex's model provider (…/v1).
func (f *fakeResponses) URL() string { return f.srv.URL + "/v1" }

func (f *fakeResponses) script(name string, p codexPlan) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plans[name] = p
}

// Outputs are the function_call_outputs of the scenario's latest request.
func (f *fakeResponses) Outputs(name string) []codexOutput {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]codexOutput(nil), f.outputs[name]...)
}

// Requests are the method and path of every request so far.
func (f *fakeResponses) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// responsesRequest is the part of a Responses request the fake reads.
type responsesRequest struct {
	Stream bool `json:"stream"`
	Input  []struct {
		Type   string          `json:"type"`
		Role   string          `json:"role"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	} `json:"input"`
}

func (f *fakeResponses) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "not a Responses request: "+err.Error(), http.StatusBadRequest)
		return
	}
	m := scenarioTag.FindSubmatch(body)
	if m == nil {
		http.Error(w, "no [[scenario:NAME]] in the input", http.StatusBadRequest)
		return
	}
	name := string(m[1])
	now := time.Now()
	var outs []codexOutput
	for _, in := range req.Input {
		if in.Type == "function_call_output" {
			outs = append(outs, codexOutput{CallID: in.CallID, Text: outputText(in.Output), At: now})
		}
	}
	f.mu.Lock()
	p, ok := f.plans[name]
	if len(outs) > 0 {
		f.outputs[name] = outs
	}
	f.mu.Unlock()
	if !ok {
		http.Error(w, "no script for scenario "+name, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%s_%d", name, len(outs))
	sse := &sseWriter{w: w}
	sse.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	var item map[string]any
	if len(outs) == 0 {
		args, _ := json.Marshal(map[string]any{
			"cmd": p.command, "sandbox_permissions": "require_escalated", "justification": "Run " + p.command,
		})
		item = map[string]any{"type": "function_call", "id": "fc_" + name, "call_id": "call_" + name, "name": "exec_command", "arguments": string(args)}
	} else {
		item = map[string]any{"type": "message", "id": "msg_" + name, "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": p.final}}}
	}
	sse.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
	}})
}

// outputText is a function_call_output's text: a string, or the text of
// its content items.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &items) == nil {
		var b strings.Builder
		for _, it := range items {
			b.WriteString(it.Text)
		}
		return b.String()
	}
	return string(raw)
}
