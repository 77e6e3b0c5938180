package voice

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/drivers/tts"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
)

// convKeep is how many conversation results are kept beyond the 10 s
// retention (the alignment review's "last 64"); convMax bounds a flood.
const (
	convKeep = 64
	convMax  = 1024
)

// ConvOp is what a conversation event asks: start or stop.
type ConvOp uint8

const (
	OpStart ConvOp = iota + 1
	OpStop
)

func (o ConvOp) String() string {
	if o == OpStart {
		return "conversation.start"
	}
	return "conversation.stop"
}

type convEntry struct {
	op     ConvOp
	result appevent.ConversationResult
	at     time.Time
}

// convCache answers retried conversation requests without running them
// again (spec §15.2).
type convCache struct {
	byID  map[string]*convEntry
	order []string
}

func (c *convCache) init() { c.byID = make(map[string]*convEntry) }

func (c *convCache) prune(now time.Time) {
	for len(c.order) > convMax || (len(c.order) > convKeep &&
		now.Sub(c.byID[c.order[0]].at) >= appevent.ConversationResultRetention) {
		delete(c.byID, c.order[0])
		c.order = c.order[1:]
	}
}

func (c *convCache) put(id string, e *convEntry) {
	c.byID[id] = e
	c.order = append(c.order, id)
}

// Desk is what the host knows about the desktop, from the buddy actor.
type Desk struct {
	Known                   bool
	Connected               bool
	Total, Running, Waiting int
	Msg                     string
}

// Conversation answers conversation.start/stop for id.
func (h *Part) Conversation(id string, op ConvOp, now time.Time) {
	h.conv.prune(now)
	if e, ok := h.conv.byID[id]; ok {
		if e.op == op {
			res := e.result
			if op == OpStart && res.Success {
				// A retried start gets the conversation's phase now (§15.2).
				res = appevent.NewConversationResult(id, true, h.convState(), "")
			}
			h.out.SendEvent(res)
			return
		}
		h.out.SendEvent(appevent.NewConversationResult(id, false, appevent.StateBlocked,
			"requestId already used for "+e.op.String()))
		return
	}
	var res appevent.ConversationResult
	answer := h.heard(now)
	switch {
	case op == OpStop:
		h.silenceConversation()
		h.cancelVoice(now)
		h.followUpStopped()
		res = appevent.NewConversationResult(id, true, appevent.StateStandby, "")
	case !h.cfg.HasTTS:
		res = appevent.NewConversationResult(id, false, appevent.StateBlocked, "no text-to-speech on "+pbuddy.DeviceName)
	case answer >= 0:
		// A terminal session's reply is being said or was just said:
		// this swipe is the user's turn to answer it (followup.go).
		h.followUpSwiped(answer, now)
		res = appevent.NewConversationResult(id, true, appevent.StateSpeaking, "")
	case !h.cfg.SpeakConversation:
		res = appevent.NewConversationResult(id, false, appevent.StateBlocked, "spoken answers are turned off on "+pbuddy.DeviceName)
	default:
		before := h.speech.nextUtt
		h.say(utterance{kind: sayConversation, text: h.summary()}, now)
		if h.voiceAvailable() && h.speech.nextUtt != before {
			// The summary ends asking about the first prompt; its answer
			// is listened for once the summary has been heard.
			h.beginVoice(h.speech.nextUtt, h.out.OldestPrompt().ReqID, now)
		} else {
			h.cancelVoice(now)
		}
		res = appevent.NewConversationResult(id, true, appevent.StateSpeaking, "")
	}
	h.conv.put(id, &convEntry{op: op, result: res, at: now})
	h.out.SendEvent(res)
}

// summary is the short spoken answer to conversation.start: sessions, what
// is running, the pending prompt.
func (h *Part) summary() string {
	d := h.desk
	if !d.Known || !d.Connected {
		return "Claude is not connected to Claude Pi."
	}
	var b strings.Builder
	switch d.Total {
	case 0:
		b.WriteString("Claude has no sessions.")
	case 1:
		fmt.Fprintf(&b, "Claude has one session, %s.", plural(d.Running, "running"))
	default:
		fmt.Fprintf(&b, "Claude has %d sessions, %s.", d.Total, plural(d.Running, "running"))
	}
	if d.Msg != "" {
		fmt.Fprintf(&b, " Latest: %s.", strings.TrimRight(Shorten(d.Msg, 80), "."))
	}
	if h.out.OldestPrompt() != nil {
		p := h.out.OldestPrompt().Prompt
		fmt.Fprintf(&b, " It is waiting for your approval to run %s", orDefault(p.Tool, "a tool"))
		if p.Hint != "" {
			b.WriteString(": " + Shorten(p.Hint, 80))
		}
		b.WriteString(".")
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 0 {
		return "none " + what
	}
	return fmt.Sprintf("%d %s", n, what)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// AssistantText extracts what to say from a turn event's content: the text
// blocks of an assistant message, cut to the first two sentences and max
// runes, because a full answer read out on a small speaker is too long.
func AssistantText(content []byte, maxRunes int) string {
	var text string
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(content, &blocks); err == nil {
		var parts []string
		for _, b := range blocks {
			if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
				parts = append(parts, b.Text)
			}
		}
		text = strings.Join(parts, "\n")
	} else if err := json.Unmarshal(content, &text); err != nil {
		return ""
	}
	sentences := tts.Split(stripMarkdown(text))
	if len(sentences) > 2 {
		sentences = sentences[:2]
	}
	return Shorten(strings.Join(sentences, " "), maxRunes)
}

// stripMarkdown removes the characters that espeak reads out loud.
func stripMarkdown(s string) string {
	return strings.NewReplacer("```", " ", "`", "", "**", "", "__", "", "#", "").Replace(s)
}

// Shorten cuts s to at most n runes, on a word boundary when it can, and
// marks the cut with an ellipsis.
func Shorten(s string, n int) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
