package e2e

// A fake Anthropic Messages API for the real Claude Code CLI: it plays the
// model, answering every POST /v1/messages with a streamed (SSE) message
// from a script, so a test decides which tool calls the CLI makes and sees
// what the CLI sent back (the tool results, a hook's deny message).
//
// The script is keyed by a tag in the session's first user message,
// "[[scenario:NAME]]", and is stateless: the reply to a request is picked
// by how many tool-calling turns its history already holds, so a retried
// request gets the same answer.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// toolCall is one tool_use block the fake model sends.
type toolCall struct {
	Name  string
	Input map[string]any
}

// bash is a Bash tool call running command.
func bash(command string) toolCall {
	return toolCall{Name: "Bash", Input: map[string]any{"command": command, "description": "Run " + command}}
}

// plan is a scenario's script: one assistant message per turn, each with
// its tool calls, then the final text (which the Stop hook carries).
type plan struct {
	turns [][]toolCall
	final string
}

// toolResult is a tool_result block the CLI sent back.
type toolResult struct {
	ID      string
	IsError bool
	Text    string
}

type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	plans    map[string]plan
	requests []string // method and path of every request, for the traffic check
	results  map[string][]toolResult
	turns    map[string]int // tool-calling turns answered, by scenario
	// prompts are the user's text blocks since the model last spoke, of
	// each request, by scenario, in the order the requests came.
	prompts map[string][]timedTexts
}

type timedTexts struct {
	at    time.Time
	texts []string
}

var scenarioTag = regexp.MustCompile(`\[\[scenario:([a-z0-9-]+)\]\]`)

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{t: t, plans: map[string]plan{}, results: map[string][]toolResult{}, turns: map[string]int{}, prompts: map[string][]timedTexts{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) URL() string { return f.srv.URL }

func (f *fakeAPI) script(name string, p plan) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plans[name] = p
}

// Results are the tool results of the scenario's latest request.
func (f *fakeAPI) Results(name string) []toolResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]toolResult(nil), f.results[name]...)
}

// Requests are the method and path of every request so far.
func (f *fakeAPI) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// apiRequest is the part of a Messages request the fake reads.
type apiRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type apiBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// blocks reads a message's content: a string or an array of blocks.
func blocks(raw json.RawMessage) []apiBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []apiBlock{{Type: "text", Text: s}}
	}
	var bs []apiBlock
	json.Unmarshal(raw, &bs)
	return bs
}

// text is a tool_result's content as text: a string or text blocks.
func (b apiBlock) text() string {
	var parts []string
	for _, c := range blocks(b.Content) {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"the fake API serves only POST /v1/messages"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad JSON"}}`, http.StatusBadRequest)
		return
	}
	name, turn := "", 0
	var results []toolResult
	for i, m := range req.Messages {
		for _, b := range blocks(m.Content) {
			switch {
			case m.Role == "user" && b.Type == "text" && name == "":
				if sm := scenarioTag.FindStringSubmatch(b.Text); sm != nil {
					name = sm[1]
				}
			case m.Role == "user" && b.Type == "tool_result" && i == len(req.Messages)-1:
				results = append(results, toolResult{ID: b.ToolUseID, IsError: b.IsError, Text: b.text()})
			}
		}
		if m.Role == "assistant" && slicesContainsToolUse(m.Content) {
			turn++
		}
	}
	f.mu.Lock()
	if name != "" && len(req.Tools) > 0 {
		// The user's texts since the model last spoke: the prompt, or
		// what a Stop hook's block handed on.
		var texts []string
		for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "assistant"; i-- {
			if req.Messages[i].Role != "user" {
				continue
			}
			for _, b := range blocks(req.Messages[i].Content) {
				if b.Type == "text" {
					texts = append(texts, b.Text)
				}
			}
		}
		f.prompts[name] = append(f.prompts[name], timedTexts{time.Now(), texts})
	}
	p, ok := f.plans[name]
	if ok && len(results) > 0 {
		f.results[name] = results
	}
	if ok && turn < len(p.turns) {
		f.turns[name] = turn + 1
	}
	f.mu.Unlock()
	s := &sseWriter{w: w}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("request-id", fmt.Sprintf("req_fake_%d", len(f.Requests())))
	w.WriteHeader(http.StatusOK)
	switch {
	case !ok || len(req.Tools) == 0:
		// A side request (a title, a summary) or a session without a
		// script: plain text ends the turn.
		s.message(fmt.Sprintf("msg_%s_side", name), nil, "OK.")
	case turn < len(p.turns):
		s.message(fmt.Sprintf("msg_%s_%d", name, turn), calls(name, turn, p.turns[turn]), "")
	default:
		s.message(fmt.Sprintf("msg_%s_final", name), nil, p.final)
	}
}

func slicesContainsToolUse(raw json.RawMessage) bool {
	for _, b := range blocks(raw) {
		if b.Type == "tool_use" {
			return true
		}
	}
	return false
}

type sentCall struct {
	id string
	toolCall
}

func calls(name string, turn int, tcs []toolCall) []sentCall {
	out := make([]sentCall, len(tcs))
	for i, tc := range tcs {
		out[i] = sentCall{id: fmt.Sprintf("toolu_%s_%d_%d", strings.ReplaceAll(name, "-", "_"), turn, i), toolCall: tc}
	}
	return out
}

// sseWriter streams one message the way the Messages API does.
type sseWriter struct{ w http.ResponseWriter }

func (s *sseWriter) event(name string, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b)
	if fl, ok := s.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// message sends text (if any) then the tool calls, split into several
// input_json_delta chunks as the real API does.
func (s *sseWriter) message(id string, tcs []sentCall, text string) {
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 1},
	}})
	i := 0
	if text != "" {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, part := range splitIn(text, 3) {
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	for _, tc := range tcs {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": tc.id, "name": tc.Name, "input": map[string]any{}}})
		in, _ := json.Marshal(tc.Input)
		for _, part := range splitIn(string(in), 3) {
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	stop := "end_turn"
	if len(tcs) > 0 {
		stop = "tool_use"
	}
	s.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

// splitIn cuts s into n pieces (fewer when short), on byte boundaries that
// keep UTF-8 whole.
func splitIn(s string, n int) []string {
	var out []string
	for n > 1 && len(s) > n {
		k := len(s) / n
		for k < len(s) && s[k]&0xC0 == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s, n = s[k:], n-1
	}
	return append(out, s)
}

// Prompts are the user texts of the scenario's model requests so far.
func (f *fakeAPI) Prompts(name string) []timedTexts {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]timedTexts(nil), f.prompts[name]...)
}
