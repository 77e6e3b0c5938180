package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func TestDemoCommandErrors(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"demo", "--script", "nope"}, `--script "nope"`},
		{[]string{"demo", "surplus"}, `unexpected argument "surplus"`},
		{[]string{"demo", "--bogus"}, "flag provided but not defined"},
		{[]string{"demo", "--nus", "127.0.0.1:1"}, "--nus-listen 127.0.0.1:1"},
	}
	for _, tt := range tests {
		var out, errb supervisortest.SyncBuffer
		err := run(context.Background(), tt.args, strings.NewReader(""), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: err = %v, want it to contain %q", tt.args, err, tt.wantErr)
		}
	}
	var out supervisortest.SyncBuffer
	if err := run(context.Background(), []string{"help", "demo"}, strings.NewReader(""), &out, &out); err != nil || !strings.Contains(out.String(), "-script") {
		t.Errorf("help demo: %v\n%s", err, out.String())
	}
}

// startDemo runs `claude-pi demo --script prompts` against an in-process
// appliance until cancel; done has its result.
func startDemo(t *testing.T) (a *appliancetest.Appliance, out *supervisortest.SyncBuffer, cancel func(), done <-chan error) {
	a = appliancetest.Start(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out = &supervisortest.SyncBuffer{}
	result := make(chan error, 1)
	go func() {
		result <- run(ctx, []string{"demo", "--nus", a.NUS, "--script", "prompts"}, strings.NewReader(""), out, &supervisortest.SyncBuffer{})
	}()
	return a, out, cancel, result
}

// TestDemoPlaysAgainstTheAppliance runs `claude-pi demo` against the
// in-process appliance and answers its first prompt with the A button.
func TestDemoPlaysAgainstTheAppliance(t *testing.T) {
	a, out, cancel, done := startDemo(t)
	supervisortest.Within(t, 10*time.Second, "the demo's first prompt on the ui", func() bool { return len(a.UIView(t).Prompts) == 1 })
	a.Press(t, "A")
	supervisortest.Within(t, 10*time.Second, "the demo to report the decision", func() bool { return strings.Contains(out.String(), `device said "once"`) })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("demo ended with %v", err)
	}
	for _, want := range []string{"connected to " + a.NUS, "session started", "prompt toolu_demo_1_1: Bash", "decisions received"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestSecondDemoIsToldTheLinkIsBusy: while one desktop holds the sim link,
// a second `claude-pi demo` says that another desktop is connected, instead
// of a chain of "not connected".
func TestSecondDemoIsToldTheLinkIsBusy(t *testing.T) {
	a, out, cancel, done := startDemo(t)
	defer func() { cancel(); <-done }()
	supervisortest.Within(t, 10*time.Second, "the first demo connected", func() bool { return strings.Contains(out.String(), "connected to") })

	var out2 supervisortest.SyncBuffer
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	err := run(sctx, []string{"demo", "--nus", a.NUS}, strings.NewReader(""), &out2, &out2)
	if err == nil || !strings.Contains(err.Error(), "another desktop is already connected") {
		t.Fatalf("second demo: %v, want \"another desktop is already connected\"\n%s", err, out2.String())
	}
	if strings.Contains(err.Error(), "not connected") || strings.Count(err.Error(), "desktop:") > 0 {
		t.Errorf("second demo's error repeats itself: %v", err)
	}
}
