package ctlsock

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock/ctlsocktest"
)

var _ Backend = (*ctlsocktest.Fake)(nil)

// startServer serves a Fake with three actors on a fresh socket.
func startServer(t testing.TB) (*Server, *ctlsocktest.Fake, *Client) {
	t.Helper()
	fake := ctlsocktest.New([]string{"ble", "dock", "display"},
		"advertising as Claude_Pi · 1 central · encrypted", "CoreS3 on /dev/ttyACM0", "")
	fake.SetState("display", supervisor.Stopped, "")
	path := filepath.Join(t.TempDir(), "ctl.sock")
	s, err := Listen(path, fake, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := NewClient(path)
	t.Cleanup(c.Close)
	return s, fake, c
}

func TestMethods(t *testing.T) {
	ok := func(name, group string) map[string]any {
		return map[string]any{"name": name, "group": group, "status": Success, "description": "OK"}
	}
	tests := []struct {
		name   string
		method string
		args   []any
		want   any
		fault  int
	}{
		{"getVersion", "supervisor.getVersion", nil, "3.0", 0},
		{"getAPIVersion", "supervisor.getAPIVersion", nil, "3.0", 0},
		{"getSupervisorVersion", "supervisor.getSupervisorVersion", nil, SupervisorVersion, 0},
		{"getIdentification", "supervisor.getIdentification", nil, "claude-pi", 0},
		{"getState", "supervisor.getState", nil, map[string]any{"statecode": 1, "statename": "RUNNING"}, 0},
		{"getPID", "supervisor.getPID", nil, 4242, 0},
		{"unknown method", "supervisor.nope", nil, nil, UnknownMethod},
		{"traversal refused", "supervisor.x.y", nil, nil, UnknownMethod},
		{"no namespace", "getVersion", nil, nil, UnknownMethod},
		{"too many args", "supervisor.getPID", []any{1}, nil, IncorrectParameters},
		{"too few args", "supervisor.getProcessInfo", nil, nil, IncorrectParameters},
		{"wrong arg type", "supervisor.getProcessInfo", []any{7}, nil, IncorrectParameters},
		{"getProcessInfo bad name", "supervisor.getProcessInfo", []any{"foo"}, nil, BadName},
		{"getProcessInfo group", "supervisor.getProcessInfo", []any{"ble:*"}, nil, BadName},
		{"startProcess running", "supervisor.startProcess", []any{"ble"}, nil, AlreadyStarted},
		{"startProcess stopped", "supervisor.startProcess", []any{"display", false}, true, 0},
		{"startProcess bad name", "supervisor.startProcess", []any{"foo"}, nil, BadName},
		{"stopProcess", "supervisor.stopProcess", []any{"ble:ble"}, true, 0},
		{"stopProcess again", "supervisor.stopProcess", []any{"ble"}, nil, NotRunning},
		{"startProcess group", "supervisor.startProcess", []any{"ble:*"}, []any{ok("ble", "ble")}, 0},
		{"stopProcessGroup", "supervisor.stopProcessGroup", []any{"dock"}, []any{ok("dock", "dock")}, 0},
		{"stopProcessGroup bad", "supervisor.stopProcessGroup", []any{"nope"}, nil, BadName},
		{"startProcessGroup", "supervisor.startProcessGroup", []any{"dock", true}, []any{ok("dock", "dock")}, 0},
		{"stopAll reverse order", "supervisor.stopAllProcesses", nil,
			[]any{ok("display", "display"), ok("dock", "dock"), ok("ble", "ble")}, 0},
		{"stopAll none running", "supervisor.stopAllProcesses", []any{true}, []any{}, 0},
		{"startAll", "supervisor.startAllProcesses", nil,
			[]any{ok("ble", "ble"), ok("dock", "dock"), ok("display", "display")}, 0},
		{"startAll none stopped", "supervisor.startAllProcesses", nil, []any{}, 0},
		{"signalProcess", "supervisor.signalProcess", []any{"ble", "hup"}, true, 0},
		{"signalProcess number", "supervisor.signalProcess", []any{"ble", "10"}, true, 0},
		{"signalProcess bad signal", "supervisor.signalProcess", []any{"ble", "NOPE"}, nil, BadSignal},
		{"signalProcess bad name", "supervisor.signalProcess", []any{"foo", "HUP"}, nil, BadName},
		{"signalProcessGroup", "supervisor.signalProcessGroup", []any{"dock", "SIGUSR2"}, []any{ok("dock", "dock")}, 0},
		{"signalAllProcesses", "supervisor.signalAllProcesses", []any{"TERM"},
			[]any{ok("ble", "ble"), ok("dock", "dock"), ok("display", "display")}, 0},
		{"readLog", "supervisor.readLog", []any{-5, 0}, "main\n", 0},
		{"readLog bad args", "supervisor.readLog", []any{-5, 3}, nil, BadArguments},
		{"read stdout from end", "supervisor.readProcessStdoutLog", []any{"ble", -6, 0}, "line2\n", 0},
		{"read stdout range", "supervisor.readProcessStdoutLog", []any{"ble", 2, 3}, "ne1", 0},
		{"read stdout to end", "supervisor.readProcessStdoutLog", []any{"ble", 6, 0}, "line2\n", 0},
		{"read stdout past end", "supervisor.readProcessStdoutLog", []any{"ble", 100, 5}, "", 0},
		{"read stdout negative length", "supervisor.readProcessStdoutLog", []any{"ble", 0, -1}, nil, BadArguments},
		{"read stdout bad name", "supervisor.readProcessStdoutLog", []any{"foo", -10, 0}, nil, BadName},
		{"read stderr", "supervisor.readProcessStderrLog", []any{"ble", -10, 0}, nil, NoFile},
		{"tail stdout", "supervisor.tailProcessStdoutLog", []any{"ble", 0, 100}, []any{"line1\nline2\n", 12, false}, 0},
		{"tail stdout overflow", "supervisor.tailProcessStdoutLog", []any{"ble", 0, 6}, []any{"line2\n", 12, true}, 0},
		{"tail stdout at end", "supervisor.tailProcessStdoutLog", []any{"ble", 12, 100}, []any{"", 12, false}, 0},
		{"tail stderr", "supervisor.tailProcessStderrLog", []any{"ble", 0, 100}, []any{"", 0, false}, 0},
		{"clearProcessLogs", "supervisor.clearProcessLogs", []any{"dock"}, true, 0},
		{"clearProcessLogs bad", "supervisor.clearProcessLogs", []any{"foo"}, nil, BadName},
		{"clearAllProcessLogs", "supervisor.clearAllProcessLogs", nil,
			[]any{ok("ble", "ble"), ok("dock", "dock"), ok("display", "display")}, 0},
		{"clearLog", "supervisor.clearLog", nil, true, 0},
		{"methodHelp", "system.methodHelp", []any{"supervisor.getPID"}, "Return the PID of the appliance.", 0},
		{"methodHelp unknown", "system.methodHelp", []any{"x.y"}, nil, SignatureUnsupported},
		{"methodSignature", "system.methodSignature", []any{"supervisor.signalProcess"},
			[]any{"boolean", "string", "string"}, 0},
		{"multicall", "system.multicall", []any{[]any{
			map[string]any{"methodName": "supervisor.getPID"},
			map[string]any{"methodName": "supervisor.getProcessInfo", "params": []any{"nope"}},
			map[string]any{"methodName": "system.multicall", "params": []any{[]any{}}},
			map[string]any{"params": []any{}},
		}}, []any{
			4242,
			map[string]any{"faultCode": BadName, "faultString": "BAD_NAME: nope"},
			map[string]any{"faultCode": IncorrectParameters, "faultString": "INCORRECT_PARAMETERS: Recursive system.multicall forbidden"},
			map[string]any{"faultCode": IncorrectParameters, "faultString": "INCORRECT_PARAMETERS: No methodName"},
		}, 0},
		{"multicall not array", "system.multicall", []any{"x"}, nil, IncorrectParameters},
	}
	_, fake, c := startServer(t)
	fake.WriteLog("ble", "line1\nline2\n")
	fake.WriteLog("", "main\n")
	for _, tt := range tests { // in order: later rows depend on earlier state changes
		got, err := c.Call(tt.method, tt.args...)
		if tt.fault != 0 {
			var f *Fault
			if !errors.As(err, &f) || f.Code != tt.fault {
				t.Errorf("%s: %s(%v) = %v, %v; want fault %d", tt.name, tt.method, tt.args, got, err, tt.fault)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %s(%v): %v", tt.name, tt.method, tt.args, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %s(%v) = %#v, want %#v", tt.name, tt.method, tt.args, got, tt.want)
		}
	}
	if got, want := fake.Signals(), []string{"ble HUP", "ble USR1", "dock USR2", "ble TERM", "dock TERM", "display TERM"}; !reflect.DeepEqual(got, want) {
		t.Errorf("signals delivered = %q, want %q", got, want)
	}
}

func TestFaultStrings(t *testing.T) {
	_, _, c := startServer(t)
	_, err := c.Call("supervisor.startProcess", "foo")
	var f *Fault
	if !errors.As(err, &f) || f.String != "BAD_NAME: foo" {
		t.Fatalf("startProcess(foo) = %v, want fault string %q", err, "BAD_NAME: foo")
	}
	_, err = c.Call("supervisor.stopProcess", "display")
	if !errors.As(err, &f) || f.String != "NOT_RUNNING: display" {
		t.Fatalf("stopProcess(display) = %v, want NOT_RUNNING: display", err)
	}
}

func TestStartFailureIsReportedAsStartCode(t *testing.T) {
	_, fake, c := startServer(t)
	fake.StartErr = map[string]error{"display": errors.New("no panel on SPI0"), "dock": supervisor.ErrSpawn}
	fake.SetState("dock", supervisor.Fatal, "")
	got, err := c.Call("supervisor.startAllProcesses")
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"name": "dock", "group": "dock", "status": SpawnError, "description": "SPAWN_ERROR: dock"},
		map[string]any{"name": "display", "group": "display", "status": AbnormalTermination,
			"description": "ABNORMAL_TERMINATION: display: no panel on SPI0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("startAllProcesses = %#v, want %#v", got, want)
	}
}

func TestProcessInfoFields(t *testing.T) {
	_, _, c := startServer(t)
	got, err := c.Call("supervisor.getProcessInfo", "ble")
	if err != nil {
		t.Fatal(err)
	}
	st := got.(map[string]any)
	for _, k := range []string{"name", "group", "description", "start", "stop", "now", "state", "statename",
		"spawnerr", "exitstatus", "logfile", "stdout_logfile", "stderr_logfile", "pid"} {
		if _, ok := st[k]; !ok {
			t.Errorf("getProcessInfo lacks %q", k)
		}
	}
	if st["description"] != "advertising as Claude_Pi · 1 central · encrypted" || st["state"] != 20 ||
		st["statename"] != "RUNNING" || st["start"] != 1700000000 || st["pid"] != 4242 {
		t.Errorf("getProcessInfo(ble) = %v", st)
	}
}

// TestLogWindowLostBytes pins reads that reach into bytes the ring has
// already dropped: they return what is left, never an error or a panic.
func TestLogWindowLostBytes(t *testing.T) {
	w := logWindow{kept: []byte("6789"), total: 10}
	reads := []struct {
		off, n int64
		want   string
	}{
		{0, 0, "6789"}, {0, 8, "67"}, {-100, 0, "6789"}, {-2, 0, "89"}, {9, 0, "9"}, {10, 0, ""},
	}
	for _, r := range reads {
		got, f := w.read(r.off, r.n)
		if f != nil || string(got) != r.want {
			t.Errorf("read(%d, %d) = %q, %v; want %q", r.off, r.n, got, f, r.want)
		}
	}
	if got := w.tail(0, 3); !reflect.DeepEqual(got, []any{"789", 10, true}) {
		t.Errorf("tail(0, 3) = %v", got)
	}
	if got := w.tail(-50, -50); !reflect.DeepEqual(got, []any{"", 10, true}) {
		t.Errorf("tail(-50, -50) = %v", got)
	}
}
