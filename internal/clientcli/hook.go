package clientcli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/procwatch"
	"github.com/claude-pi/claude-pi/internal/client"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// hookConnectTimeout bounds reaching the Pi, TCP connect and TLS
// handshake together: past it the terminal dialog simply carries on
// without us. --connect-timeout may shorten it, never lengthen it.
const hookConnectTimeout = client.ConnectTimeout

// defaultHookWait is how long `hook permission` waits for a decision. The
// installed hook's timeout is a little longer so Claude Code never kills
// it first.
const defaultHookWait = 5 * time.Minute

const hookPermissionSynopsis = `Usage: claude-pi hook permission [flags] < hook-input.json

Claude Code's PermissionRequest hook (claude-pi hook install adds it). It
sends the prompt to the paired Pi and waits for its buttons: "once" allows
this one call, "deny" refuses it. Anything else (no Pi, no answer within
--timeout, a bad input) leaves stdout empty, so the terminal's own dialog
decides. It always exits 0 and never writes a persistent rule.

With --cli codex it is Codex CLI's PermissionRequest hook (claude-pi hook
install --agent codex adds it): the same, with Codex's hook input, and no
answer leaves the decision to Codex's own approval.

It also answers AskUserQuestion's PreToolUse (hook install matches that
tool alone): the Pi's choices come back as the call's answers, and
"answer at the computer" leaves the question to the terminal.`

var hookEventSynopsis = `Usage: claude-pi hook event [flags] < hook-input.json

Claude Code's session-progress hook. claude-pi hook install adds it, marked
async, for ` + strings.Join(eventHookNames, ", ") + `.
It reports the event to the paired Pi, which shows what the session is
doing. Nothing waits for a decision: Claude Code runs it in the background,
and a Pi that does not take the report within 5 s is noted on stderr and
forgotten. It always exits 0.

On a Stop that carries Claude's reply it then asks the Pi for a spoken
follow-up ([voice] follow_up on the Pi): the Pi answers at once when there
is none to wait for, and otherwise holds it for at most its window unless
someone swiped the CoreS3's head. A follow-up is printed as
{"decision":"block","reason":TEXT}, Claude's next instruction.`

// hookEventDeadline bounds one event report, connect and answer together:
// the hook is asynchronous, so nobody waits on it, but it must not linger.
const hookEventDeadline = 5 * time.Second

// HookPermissionCommand is `claude-pi hook permission`.
func HookPermissionCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	hookPermission(ctx, args, stdin, stdout, stderr)
	return nil
}

// HookEventCommand is `claude-pi hook event`.
func HookEventCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	hookEvent(ctx, args, stdin, stdout, stderr)
	return nil
}

// HookInstallCommand is `claude-pi hook install`.
func HookInstallCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	return hookInstall(args, stdout, stderr)
}

// hookFlags are the hooks' flags. Errors in them are not usage errors: a
// hook must exit 0 whatever happens.
type hookFlags struct {
	plugin  bool // run by the Claude Code plugin's hooks.json
	config  string
	pi      string
	wait    time.Duration
	connect time.Duration
	cli     string // agentClaude or agentCodex: whose hook input
}

// parseHookFlags parses a hook's flags; only permission waits, so only it
// has --timeout. ok is false for --help (already printed) and bad flags.
func parseHookFlags(name, synopsis string, args []string, stderr io.Writer) (f hookFlags, help bool, err error) {
	fs := newFlagSet("hook "+name, synopsis, stderr)
	fs.StringVar(&f.config, "config", os.Getenv("CLAUDE_PI_CONFIG"), "the CLI's state directory (default: the user config dir's claude-pi)")
	fs.StringVar(&f.pi, "pi", "", "the paired Pi to use (default: the last paired)")
	fs.BoolVar(&f.plugin, "plugin", false, "run by the Claude Code plugin: do nothing when claude-pi hook install's hooks are in the settings (they ask the Pi already)")
	f.wait = hookEventDeadline
	if name == "permission" {
		wait := defaultHookWait
		if v, err := time.ParseDuration(os.Getenv("CLAUDE_PI_HOOK_TIMEOUT")); err == nil && v > 0 {
			wait = v
		}
		fs.DurationVar(&f.wait, "timeout", wait, "how long to wait for a decision (env CLAUDE_PI_HOOK_TIMEOUT)")
	}
	fs.DurationVar(&f.connect, "connect-timeout", hookConnectTimeout, "how long reaching the Pi may take, TCP and TLS together (at most 2s)")
	fs.StringVar(&f.cli, "cli", agentClaude, "the CLI that runs this hook: claude (Claude Code) or codex (Codex CLI)")
	help, err = parseFlags(fs, args)
	if err == nil && !help {
		err = checkHookCLI(f.cli)
	}
	if f.connect <= 0 || f.connect > hookConnectTimeout {
		f.connect = hookConnectTimeout
	}
	return f, help, err
}

// errHookHelp: --help was asked for and printed, or the plugin's hook
// steps aside; no decision, no message.
var errHookHelp = errors.New("help printed")

// hookPermission never returns an error and never panics: anything but a
// clear decision from the Pi leaves stdout empty, so the terminal dialog
// decides.
func hookPermission(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "claude-pi hook: no decision (internal error: %v)\n", r)
		}
	}()
	// The desktop app already sends its prompts over BLE: one prompt,
	// shown once (hookbridge.DesktopHosted says why).
	if hookbridge.DesktopHosted(os.Getenv(hookbridge.EnvEntrypoint)) {
		return
	}
	out, err := permissionDecision(ctx, args, stdin, stderr)
	if errors.Is(err, errHookHelp) {
		return
	}
	if err != nil {
		fmt.Fprintf(stderr, "claude-pi hook: no decision: %v\n", err)
		return
	}
	stdout.Write(out)
}

func permissionDecision(ctx context.Context, args []string, stdin io.Reader, stderr io.Writer) ([]byte, error) {
	f, help, err := parseHookFlags("permission", hookPermissionSynopsis, args, stderr)
	if help {
		return nil, errHookHelp
	}
	if err != nil {
		return nil, err
	}
	if f.plugin && settingsHooksInstalled() {
		return nil, errHookHelp // the settings' own hook asks the Pi: no second prompt, no message
	}
	in, err := readHookInputFrom(f.cli, stdin)
	if err != nil {
		return nil, err
	}
	var questions []hookbridge.Question
	switch {
	case in.HookEventName == hookbridge.EventPreToolUse && in.ToolName == hookbridge.ToolAskUserQuestion:
		// Claude's questions: the Pi answers them with option indices,
		// and the hook prints the answers (QuestionOutput).
		if questions, err = hookbridge.ParseQuestions(in.ToolInput); err != nil {
			return nil, err
		}
	case in.HookEventName == hookbridge.EventPreToolUse:
		return nil, fmt.Errorf("a PreToolUse hook for %s: only AskUserQuestion is answered on the Pi (fix the hook's matcher: claude-pi hook install)", in.ToolName)
	case in.HookEventName != hookbridge.EventPermissionRequest:
		return nil, fmt.Errorf("got a %s event, want PermissionRequest", in.HookEventName)
	}
	call := hookbridge.DescribeRequest(in)
	req := hookbridge.PermissionRequest{
		ID:        newRequestID(),
		Session:   clipBytes(in.SessionID, hookbridge.MaxSession),
		Project:   hookbridge.ProjectName(in.CWD),
		Tool:      clipBytes(in.ToolName, hookbridge.MaxTool),
		Hint:      call.Hint,
		Detail:    call.Detail,
		Warnings:  strings.Join(call.Warnings, "\n"),
		Truncated: call.Truncated,
		Agent:     clipBytes(in.AgentID, hookbridge.MaxSession),
		AgentType: clipBytes(in.AgentType, hookbridge.MaxTool),
		Mode:      clipBytes(in.PermissionMode, hookbridge.MaxTool),
		Call:      hookbridge.CallKey(in.ToolName, in.ToolInput),
		CLI:       wireCLI(f.cli),
		Questions: questions,
	}
	if req.Agent != "" && req.AgentType == "" {
		req.AgentType = "subagent"
	}
	ctx, cancel := context.WithTimeout(ctx, f.wait)
	defer cancel()
	ctx = withdrawWhenCLIEnds(ctx)
	body, err := postToPi(ctx, f, hookbridge.PathPermission, req)
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, errCLIEnded) {
			return nil, cause
		}
		return nil, err
	}
	d, err := hookbridge.DecodeDecision(body, req.ID)
	if err != nil {
		return nil, err
	}
	switch {
	case questions != nil && d.Behavior == hookbridge.BehaviorAllow:
		return hookbridge.QuestionOutput(in.ToolInput, questions, d.Choices)
	case in.ToolName == hookbridge.ToolExitPlanMode && d.Behavior == hookbridge.BehaviorAllow:
		return hookbridge.PlanAllowOutput(in.ToolInput)
	case questions != nil && d.Behavior == hookbridge.BehaviorDeny:
		// A question has no deny: the terminal asks.
		return nil, fmt.Errorf("the Pi denied a question")
	}
	switch d.Behavior {
	case hookbridge.BehaviorAllow:
		return hookbridge.AllowOutput(), nil
	case hookbridge.BehaviorDeny:
		return hookbridge.DenyOutput(hookbridge.DenyMessage(d.Device, d.By)), nil
	}
	return nil, fmt.Errorf("the Pi gave none (%s)", d.Reason)
}

var errCLIEnded = errors.New("Claude Code ended")

// withdrawWhenCLIEnds cancels ctx when the Claude Code process that ran
// the hook (CLAUDE_PID) or the hook's shell ends: nothing kills a hook
// whose CLI was killed, and its open request would keep the prompt on the
// Pi for the whole wait. Closing the connection withdraws it.
func withdrawWhenCLIEnds(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancelCause(ctx)
	gone := procwatch.Watch(ctx, procwatch.Interval, map[string]int{"CLAUDE_PID": procwatch.EnvPID("CLAUDE_PID")})
	go func() {
		if g, ok := <-gone; ok {
			cancel(fmt.Errorf("%w (%s, pid %d): prompt withdrawn", errCLIEnded, g.What, g.PID))
		}
	}()
	return ctx
}

// hookEvent is the async hook: it reports and forgets.
func hookEvent(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) {
	defer func() { recover() }()
	if hookbridge.DesktopHosted(os.Getenv(hookbridge.EnvEntrypoint)) {
		return
	}
	f, help, err := parseHookFlags("event", hookEventSynopsis, args, stderr)
	if help {
		return
	}
	if err != nil {
		fmt.Fprintf(stderr, "claude-pi hook: event not sent: %v\n", err)
		return
	}
	if f.plugin && settingsHooksInstalled() {
		return // the settings' own hook reports it
	}
	in, err := readHookInputFrom(f.cli, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "claude-pi hook: %v\n", err)
		return
	}
	ev := hookbridge.Event{
		Session:  clipBytes(in.SessionID, hookbridge.MaxSession),
		Event:    clipBytes(in.HookEventName, hookbridge.MaxTool),
		Project:  hookbridge.ProjectName(in.CWD),
		Agent:    clipBytes(in.AgentID, hookbridge.MaxSession),
		Activity: hookbridge.Activity(in),
		Reply:    hookbridge.Reply(in),
		CLI:      wireCLI(f.cli),
		Mode:     clipBytes(in.PermissionMode, hookbridge.MaxTool),
	}
	if in.HookEventName == hookbridge.EventNotification {
		ev.Notification = clipBytes(in.NotificationType, hookbridge.MaxTool)
	}
	if in.HookEventName == hookbridge.EventPostToolUse {
		ev.Call = hookbridge.CallKey(in.ToolName, in.ToolInput)
	}
	ectx, cancel := context.WithTimeout(ctx, f.wait)
	defer cancel()
	_, err = postToPi(ectx, f, hookbridge.PathEvent, ev)
	if older := withoutFieldsRefused(err, ev); older != nil {
		// A Pi that predates mode and notification refuses the whole
		// event; without them it still gets the session's progress.
		_, err = postToPi(ectx, f, hookbridge.PathEvent, older)
	}
	if err != nil {
		fmt.Fprintf(stderr, "claude-pi hook: event not delivered: %v\n", err)
		return
	}
	cancel()
	if in.HookEventName == hookbridge.EventStop && ev.Reply != "" {
		out, err := followUpOutput(ctx, f, ev.Session)
		if err != nil {
			fmt.Fprintf(stderr, "claude-pi hook: no spoken follow-up: %v\n", err)
		}
		stdout.Write(out)
	}
}

// withoutFieldsRefused is ev without its optional Mode and Notification
// when err is a Pi refusing one of them as unknown (it predates them), or
// nil: any other refusal is not retried, and only once.
func withoutFieldsRefused(err error, ev hookbridge.Event) *hookbridge.Event {
	var refused *client.RefusedError
	if !errors.As(err, &refused) || refused.Code != http.StatusBadRequest {
		return nil
	}
	if (ev.Mode == "" || !hookbridge.RefusesUnknownField(refused.Reason, "mode")) &&
		(ev.Notification == "" || !hookbridge.RefusesUnknownField(refused.Reason, "notification")) {
		return nil
	}
	ev.Mode, ev.Notification = "", ""
	return &ev
}

func readHookInput(stdin io.Reader) (hookbridge.HookInput, error) {
	b, err := io.ReadAll(io.LimitReader(stdin, hookbridge.MaxHookInput+1))
	if err != nil {
		return hookbridge.HookInput{}, fmt.Errorf("reading the hook input: %v", err)
	}
	return hookbridge.DecodeHookInput(b)
}

// postToPi sends one request to the paired Pi over pinned mutual TLS and
// returns the 2xx response body.
func postToPi(ctx context.Context, f hookFlags, path string, v any) ([]byte, error) {
	resp, err := openPi(ctx, f, path, v)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, hookbridge.MaxRequest))
	if err != nil {
		return nil, fmt.Errorf("reading the Pi's answer: %v", err)
	}
	return b, nil
}

// openPi sends one request to the paired Pi (client.Conn: pinned mutual
// TLS, one connection, f.connect to reach it) and returns its 2xx
// response, for the caller to read and close.
func openPi(ctx context.Context, f hookFlags, path string, v any) (*http.Response, error) {
	c, err := client.Open(f.config, f.pi, f.connect)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	if ns, ok := procwatch.Started(); ok {
		h.Set(hookbridge.HeaderHookStarted, strconv.FormatInt(ns, 10))
	}
	return c.Open(ctx, http.MethodPost, path, body, h)
}

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
