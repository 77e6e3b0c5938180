package lan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// Limits that keep one computer from filling the Pi's memory or screen.
const (
	maxPendingPerClient = 16
	maxSessions         = 64
)

// SourcePrefix starts the approvals source of every CLI session:
// "cli:<session id>".
const SourcePrefix = "cli:"

// key names one pending prompt.
type key struct{ session, id string }

type pending struct {
	req     hookbridge.PermissionRequest
	client  string // fingerprint
	arrived time.Time
}

type session struct {
	Session
	fp      string
	prompts []pending // arrival order
}

// state is the lan actor's pure state: paired clients, the pairing on
// screen and the CLI sessions with their prompts. Methods return which
// sessions' prompt sets changed (to send to approvals) and which prompts
// were dropped without a decision (their hooks get BehaviorNone).
type state struct {
	clients  []Client
	pairing  *pairing
	sessions map[string]*session
}

func newState(clients []Client) *state {
	return &state{clients: clients, sessions: make(map[string]*session)}
}

var (
	errUnpaired = errors.New("client not paired")
	errBusy     = errors.New("too many pending prompts from this client")
	errDup      = errors.New("duplicate request id")
)

func (s *state) client(fp string) (Client, bool) {
	for _, c := range s.clients {
		if c.Fingerprint == fp {
			return c, true
		}
	}
	return Client{}, false
}

// changes is what a state transition asks the actor to do.
type changes struct {
	sessions []string // SetPrompts for each
	dropped  []key    // answer BehaviorNone
}

func (c *changes) touch(id string) {
	if !slices.Contains(c.sessions, id) {
		c.sessions = append(c.sessions, id)
	}
}

// permission adds a prompt. The hook's earlier prompts from the same agent
// of the session are dropped: an agent asks one thing at a time, so a new
// request means the old dialog was answered in the terminal.
func (s *state) permission(fp string, r hookbridge.PermissionRequest, now time.Time) (changes, error) {
	var ch changes
	c, ok := s.client(fp)
	if !ok {
		return ch, errUnpaired
	}
	n := 0
	for _, se := range s.sessions {
		for _, p := range se.prompts {
			if p.client == fp {
				n++
			}
		}
	}
	if n >= maxPendingPerClient {
		return ch, errBusy
	}
	se := s.session(r.Session, c, fp, r.Project, now)
	if se.fp != fp {
		// A session id is only as good as the client that made it up.
		return ch, fmt.Errorf("session %q belongs to another client", r.Session)
	}
	for _, p := range se.prompts {
		if p.req.ID == r.ID {
			return ch, errDup
		}
	}
	se.setCLI(r.CLI)
	s.dropWhere(se, &ch, func(p pending) bool { return p.req.Agent == r.Agent })
	if r.Mode != "" {
		se.Mode = r.Mode
	}
	se.prompts = append(se.prompts, pending{req: r, client: fp, arrived: now})
	se.State, se.Updated = "waiting", now
	ch.touch(se.ID)
	return ch, nil
}

// event records a session's progress. A PostToolUse means that one tool
// call ran, so its prompt, if still shown, was answered in the terminal:
// only the prompt of the same agent and the same call (CallKey) goes.
// The CLI starts the PostToolUse of call N a few ms before the
// PermissionRequest of call N+1, and the two reach the Pi in either
// order, so clearing more would drop N+1. Stop, UserPromptSubmit and
// SessionStart end the turn: every prompt of the session whose hook was
// spawned before the event's goes (spawnedBefore). SessionEnd ends the
// session and every prompt with it. A Notification changes nothing.
func (s *state) event(fp string, e hookbridge.Event, now time.Time) (changes, error) {
	var ch changes
	c, ok := s.client(fp)
	if !ok {
		return ch, errUnpaired
	}
	se := s.session(e.Session, c, fp, e.Project, now)
	if se.fp != fp {
		return ch, fmt.Errorf("session %q belongs to another client", e.Session)
	}
	se.setCLI(e.CLI)
	if e.Activity != "" {
		se.Activity = e.Activity
	}
	if e.Mode != "" {
		se.Mode = e.Mode
	}
	se.Updated = now
	if e.Event == hookbridge.EventNotification {
		if hookbridge.WaitsForUser(e.Notification) && se.WaitingSince.IsZero() {
			se.WaitingSince, se.WaitingFor = now, e.Notification
		}
		return ch, nil
	}
	switch e.Event {
	case hookbridge.EventPostToolUse:
		s.dropWhere(se, &ch, func(p pending) bool { return p.req.Agent == e.Agent && p.req.Call == e.Call })
	case hookbridge.EventSessionEnd:
		s.dropWhere(se, &ch, func(pending) bool { return true })
	default:
		s.dropWhere(se, &ch, func(p pending) bool { return spawnedBefore(p.req.Started, e.Started) })
	}
	switch e.Event {
	case hookbridge.EventSessionEnd:
		delete(s.sessions, se.ID)
		return ch, nil
	case hookbridge.EventStop, hookbridge.EventSessionStart:
		se.State = "idle"
	default:
		se.State = "running"
	}
	if len(se.prompts) > 0 {
		se.State = "waiting"
	}
	// Any other event means Claude moved on and the waiting episode is
	// over, except for a permission dialog still pending: another agent
	// of the session (a subagent's PostToolUse) moving on does not answer it.
	if se.WaitingFor != hookbridge.NotifyPermissionPrompt || len(se.prompts) == 0 {
		se.WaitingSince, se.WaitingFor = time.Time{}, ""
	}
	return ch, nil
}

// spawnedBefore reports whether a prompt belongs to a turn that an event
// ends: its hook was spawned before the event's. Claude Code starts
// SessionStart and UserPromptSubmit in the background, so under load the
// turn's own PermissionRequest can reach the Pi first; judged by arrival,
// the event would take the prompt it precedes off the screen and answer
// its hook "moved on", and the tool call would be refused in the terminal.
// A prompt spawned in the same instant is kept (Linux counts in 10 ms
// ticks, and a PermissionRequest needs a model reply after the prompt is
// submitted, so a tie is never a stale prompt); a kept prompt still
// leaves when its hook exits or the turn's Stop comes. Without both
// stamps (a hook or a computer that sends none) arrival order decides, as
// before.
func spawnedBefore(prompt, event int64) bool {
	if prompt == 0 || event == 0 {
		return true
	}
	return prompt < event
}

// remove takes one prompt away (decided, withdrawn by its hook). It
// reports whether the prompt was there.
func (s *state) remove(k key) (changes, bool) {
	var ch changes
	se := s.sessions[k.session]
	if se == nil {
		return ch, false
	}
	i := slices.IndexFunc(se.prompts, func(p pending) bool { return p.req.ID == k.id })
	if i < 0 {
		return ch, false
	}
	se.prompts = slices.Delete(se.prompts, i, i+1)
	if len(se.prompts) == 0 && se.State == "waiting" {
		se.State = "running"
	}
	if len(se.prompts) == 0 && se.WaitingFor == hookbridge.NotifyPermissionPrompt {
		// The dialog the notification announced is answered or gone.
		se.WaitingSince, se.WaitingFor = time.Time{}, ""
	}
	ch.touch(se.ID)
	return ch, true
}

// revoke forgets a client and drops its sessions' prompts.
func (s *state) revoke(name string) (changes, error) {
	var ch changes
	i := slices.IndexFunc(s.clients, func(c Client) bool { return c.Name == name })
	if i < 0 {
		return ch, fmt.Errorf("no computer called %q is paired (claude-pi pair --local --list lists them)", name)
	}
	fp := s.clients[i].Fingerprint
	s.clients = slices.Delete(slices.Clone(s.clients), i, i+1)
	s.forget(fp, &ch)
	return ch, nil
}

// reload replaces the paired clients with the ones read back from
// clients.json (edited by hand while the appliance runs; `claude-pi pair
// --local --revoke` sends Revoke instead). Clients no longer listed lose their sessions and
// prompts at once; it returns their names.
func (s *state) reload(clients []Client) (changes, []string) {
	var ch changes
	var gone []string
	for _, c := range s.clients {
		if !slices.ContainsFunc(clients, func(n Client) bool { return n.Fingerprint == c.Fingerprint }) {
			gone = append(gone, c.Name)
			s.forget(c.Fingerprint, &ch)
		}
	}
	s.clients = slices.Clone(clients)
	return ch, gone
}

func (s *state) forget(fp string, ch *changes) {
	for id, se := range s.sessions {
		if se.fp == fp {
			s.dropWhere(se, ch, func(pending) bool { return true })
			delete(s.sessions, id)
		}
	}
}

func (s *state) dropWhere(se *session, ch *changes, f func(pending) bool) {
	kept := se.prompts[:0]
	for _, p := range se.prompts {
		if f(p) {
			ch.dropped = append(ch.dropped, key{se.ID, p.req.ID})
			ch.touch(se.ID)
			continue
		}
		kept = append(kept, p)
	}
	se.prompts = kept
}

// session finds or makes a session, evicting the least recently updated
// one without prompts when there are too many.
func (s *state) session(id string, c Client, fp, project string, now time.Time) *session {
	se := s.sessions[id]
	if se == nil {
		if len(s.sessions) >= maxSessions {
			var old *session
			for _, o := range s.sessions {
				if len(o.prompts) == 0 && (old == nil || o.Updated.Before(old.Updated)) {
					old = o
				}
			}
			if old != nil {
				delete(s.sessions, old.ID)
			}
		}
		se = &session{Session: Session{ID: id, Client: c.Name, State: "running", Updated: now}, fp: fp}
		s.sessions[id] = se
	}
	if project != "" {
		se.Project = project
	}
	return se
}

// prompts is the complete approvals set of a session.
func (s *state) prompts(id string) []approvals.Prompt {
	se := s.sessions[id]
	if se == nil {
		return nil
	}
	out := make([]approvals.Prompt, 0, len(se.prompts))
	for _, p := range se.prompts {
		out = append(out, toPrompt(se, p))
	}
	return out
}

// toPrompt is one pending request as approvals shows it: Label names the
// source (project, session, subagent) and Detail is what the hook said
// about the call (the full command, an edit's size, the directory), so
// the screen never repeats the label as the detail.
func toPrompt(se *session, p pending) approvals.Prompt {
	lbl := strings.TrimSpace(hookbridge.CLIName(se.CLI)+" "+se.Project) + " · " + short(se.ID)
	if p.req.Agent != "" {
		lbl += " · " + strings.TrimSpace("subagent "+p.req.AgentType)
	}
	var qs *approvals.Questions
	if p.req.Questions != nil {
		qs = &approvals.Questions{List: questionsOf(p.req.Questions)}
	}
	return approvals.Prompt{
		Questions: qs,
		Source:    SourcePrefix + se.ID,
		ID:        p.req.ID,
		Tool:      p.req.Tool,
		Hint:      p.req.Hint,
		Detail:    p.req.Detail,
		Warnings:  p.req.Warnings,
		Truncated: p.req.Truncated,
		Label:     lbl,
		Arrived:   p.arrived,
	}
}

// setCLI records which coding CLI runs the session; a hook that does not
// say (Claude Code) leaves what an earlier one said.
func (se *session) setCLI(cli string) {
	if cli != "" {
		se.CLI = cli
	}
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// view is the State for the UI, without the actor's own fields.
func (s *state) view() State {
	st := State{Clients: slices.Clone(s.clients)}
	if s.pairing != nil && s.pairing.stage != pairCommitted {
		p := s.pairing.Pairing
		st.Pairing = &p
	}
	for _, se := range s.sessions {
		v := se.Session
		v.Pending = len(se.prompts)
		st.Pending += v.Pending
		st.Sessions = append(st.Sessions, v)
	}
	slices.SortFunc(st.Sessions, func(a, b Session) int { return b.Updated.Compare(a.Updated) })
	return st
}

// questionsOf is the edge: the hook's questions in approvals' terms.
func questionsOf(in []hookbridge.Question) []approvals.Question {
	out := make([]approvals.Question, len(in))
	for i, q := range in {
		opts := make([]approvals.Choice, len(q.Options))
		for j, o := range q.Options {
			opts[j] = approvals.Choice{Label: o.Label, Description: o.Description}
		}
		out[i] = approvals.Question{Question: q.Question, Header: q.Header, Options: opts, MultiSelect: q.MultiSelect}
	}
	return out
}
