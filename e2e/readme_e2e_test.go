package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// readmeSection returns the text of README.md's "## title" section.
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", title)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// codeLines are the lines of a section's indented code blocks, comments
// cut off, in order.
func codeLines(section string) []string {
	var out []string
	for _, l := range strings.Split(section, "\n") {
		cmd, ok := strings.CutPrefix(l, "    ")
		if !ok {
			continue
		}
		if i := strings.Index(cmd, "  #"); i >= 0 {
			cmd = cmd[:i]
		}
		out = append(out, strings.TrimSpace(cmd))
	}
	return out
}

// portsTakenHint explains an appliance that could not listen on README's
// default ports: another program (often this same test in another
// checkout) took one after the check at the start of the test.
func portsTakenHint(stderr string) string {
	if !strings.Contains(stderr, "address already in use") {
		return ""
	}
	return fmt.Sprintf("\n%s or %s was taken by another program while this test ran (another checkout running this test?): README's commands use them; run it alone", appliance.SimHTTP, appliance.SimNUSListen)
}

// TestReadmeTryItWithoutHardware runs README's "Try it without hardware"
// as written, as a new user would: a fresh HOME, no XDG_RUNTIME_DIR, the
// default ports, "go run ." being the binary built once. Each command line
// of the section must be one this test knows how to run and check, so the
// README cannot drift from what works.
func TestReadmeTryItWithoutHardware(t *testing.T) {
	e2e(t)
	ctl := needBinaryAndSupervisorctl(t)
	for _, addr := range []string{appliance.SimHTTP, appliance.SimNUSListen} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Fatalf("%s is taken by another program: README's commands use it; stop that program", addr)
		}
	}
	section := readmeSection(t, "Try it without hardware")
	lines := codeLines(section)

	// A binary others may run (the permission check below runs it as
	// nobody), built once per run.
	bin := claudePi(t)

	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	command := func(ctx context.Context, words ...string) *exec.Cmd {
		c := exec.CommandContext(ctx, words[0], words[1:]...)
		c.Env, c.Dir = env, home
		return c
	}
	goRun := func(line string) []string {
		rest, ok := strings.CutPrefix(line, "go run .")
		if !ok {
			return nil
		}
		return append([]string{bin}, strings.Fields(rest)...)
	}

	var appliance *exec.Cmd
	var banner string
	exited := make(chan error, 1)
	var applianceErr supervisortest.SyncBuffer
	t.Cleanup(func() {
		if appliance != nil && appliance.ProcessState == nil {
			appliance.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("appliance stderr:\n%s", applianceErr.String())
		}
	})
	ran := map[string]bool{}
	for _, line := range lines {
		switch {
		case line == "go run . &":
			appliance = command(context.Background(), bin)
			out, err := appliance.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			appliance.Stderr = &applianceErr
			if err := appliance.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { exited <- appliance.Wait() }()
			first := make(chan string, 1)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					select {
					case first <- sc.Text():
					default:
					}
				}
			}()
			select {
			case banner = <-first:
			case err := <-exited:
				t.Fatalf("%s: the appliance exited: %v%s", line, err, portsTakenHint(applianceErr.String()))
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: no first line within 30 s", line)
			}
		case line == "go run . status":
			out, err := command(context.Background(), goRun(line)...).CombinedOutput()
			if err != nil || !regexp.MustCompile(`(?m)^ble +RUNNING`).Match(out) {
				t.Fatalf("%s: %v\n%s", line, err, out)
			}
		case strings.HasPrefix(line, "go run . demo"):
			// It keeps the terminal: run it until it has played a little,
			// then Ctrl-C, as the README says.
			demo := command(context.Background(), goRun(line)...)
			var out supervisortest.SyncBuffer
			demo.Stdout, demo.Stderr = &out, &out
			if err := demo.Start(); err != nil {
				t.Fatal(err)
			}
			supervisortest.Within(t, 20*time.Second, "the demo to connect and start its session", func() bool {
				return strings.Contains(out.String(), "connected to") && strings.Contains(out.String(), "session started")
			})
			demo.Process.Signal(os.Interrupt)
			if err := demo.Wait(); err != nil {
				t.Fatalf("%s ended with %v after Ctrl-C\n%s", line, err, out.String())
			}
		case strings.HasPrefix(line, "Claude_Pi on board sim: web "):
			// The example of the first line: the real one has this shape,
			// with this user's socket in the data dir.
			sock := filepath.Join(home, ".local", "state", "claude-pi", "supervisor.sock")
			want := strings.Replace(line, "/home/you/.local/state/claude-pi/supervisor.sock", sock, 1)
			if banner != want {
				t.Errorf("the appliance's first line is\n  %s\nREADME shows (for this HOME)\n  %s", banner, want)
			}
		default:
			t.Fatalf("README's %q has a line this test does not run: %q (teach the test, or fix the README)", "Try it without hardware", line)
		}
		ran[line] = true
	}
	if appliance == nil || banner == "" || len(ran) < 4 {
		t.Fatalf("the section's commands were not all there: ran %v", ran)
	}

	// "open http://127.0.0.1:8330": the page and its state, without a browser.
	web := regexp.MustCompile(`open (http://[0-9.:]+) in a browser`).FindStringSubmatch(section)
	if web == nil {
		t.Fatal("README no longer says which address to open")
	}
	for _, path := range []string{"/", "/api/state", "/api/screen.png"} {
		resp, err := http.Get(web[1] + path)
		if err != nil {
			t.Fatalf("GET %s%s: %v", web[1], path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s%s: %s", web[1], path, resp.Status)
		}
	}

	// "Copy that supervisorctl command as it is printed."
	m := regexp.MustCompile(`· (supervisorctl -s \S+) status$`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("the first line has no supervisorctl command: %q", banner)
	}
	supervisorctl := func(verb string) string {
		t.Helper()
		words := append(strings.Fields(m[1])[1:], verb)
		out, _ := command(context.Background(), append([]string{ctl}, words...)...).CombinedOutput()
		return string(out)
	}
	if out := supervisorctl("status"); !regexp.MustCompile(`(?m)^ui +RUNNING`).MatchString(out) {
		t.Fatalf("the banner's supervisorctl status:\n%s", out)
	}

	// A second appliance on the same data dir is refused, naming the first.
	out, err := command(context.Background(), bin, "--http", "127.0.0.1:0", "--nus-listen", "127.0.0.1:0").CombinedOutput()
	if want := fmt.Sprintf("in use by another claude-pi (pid %d)", appliance.Process.Pid); err == nil || !strings.Contains(string(out), want) {
		t.Errorf("a second appliance: %v\n%s\nwant %q", err, out, want)
	}

	// supervisorctl reload restarts every service, as supervisord's does;
	// shutdown stops the appliance, which exits 0.
	if out := supervisorctl("reload"); out != "Restarted supervisord\n" {
		t.Errorf("supervisorctl reload: %q", out)
	}
	supervisortest.Within(t, 30*time.Second, "every service RUNNING after reload", func() bool {
		out := supervisorctl("status")
		return regexp.MustCompile(`(?m)^ui +RUNNING`).MatchString(out) && regexp.MustCompile(`(?m)^ble +RUNNING`).MatchString(out)
	})
	if out := supervisorctl("shutdown"); out != "Shut down\n" {
		t.Errorf("supervisorctl shutdown: %q", out)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the appliance exited with %v after supervisorctl shutdown", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the appliance still runs 15 s after supervisorctl shutdown")
	}

	// A user who cannot write the data dir is told about --data-dir.
	locked := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(locked), 0o755)
	nobody := exec.Command(bin, "--http", "off", "--nus-listen", "127.0.0.1:0", "--control-socket", filepath.Join(filepath.Dir(locked), "s.sock"))
	nobody.Env = []string{"HOME=" + locked, "PATH=" + os.Getenv("PATH")}
	if os.Geteuid() == 0 {
		// root writes anywhere; the user who cannot is nobody.
		nobody.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err = nobody.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "permission denied") || !strings.Contains(string(out), "--data-dir") {
		t.Errorf("a data dir this user cannot write: %v\n%s", err, out)
	}
}
