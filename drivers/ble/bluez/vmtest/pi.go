//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"
	"golang.org/x/sys/unix"
)

const (
	piDir  = "/tmp/cp"
	piHTTP = "127.0.0.1:8330"
	piBin  = "/host/claude-pi"
)

// runPi runs the appliance as a user's Pi would, but on board sim so that
// its screen can be read over /api/state, and with [ble] backend = "bluez"
// so that the radio is real. It sends what the screen shows on the control
// line until the desk says done (or SHARE/desk-done appears).
func runPi(share string) error {
	// The guest boots with lo down; the screen is read over 127.0.0.1.
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	bus, err := dbus.SystemBus()
	if err != nil {
		return err
	}
	var st shared
	if !waitFor(60*time.Second, func() bool { st.Adapters = adapters(bus); return len(st.Adapters) >= 2 }) {
		return fmt.Errorf("bluetoothd shows adapters %v after 60 s, want hci0 and hci1", st.Adapters)
	}
	logf("pi: adapters %v", st.Adapters)
	app, err := startAppliance("")
	if err != nil {
		return err
	}
	defer func() { app.stop() }()
	requests := make(chan request, 16)
	done := make(chan struct{})
	var once sync.Once
	line, err := openCtl(func(m ctlMsg) {
		switch {
		case m.Request != nil:
			requests <- *m.Request
		case m.Done:
			once.Do(func() { close(done) })
		}
	})
	if err != nil {
		return fmt.Errorf("the control line: %w", err)
	}
	lastCode := ""
	var handled int
	client := &http.Client{Timeout: 2 * time.Second}
	lastDoneCheck := time.Now()
	var sent shared // the last state sent, without UpdatedAt
	var sentAt time.Time
	for {
		select {
		case <-done:
			return piStop()
		default:
		}
		// run.sh touches desk-done when the desk guest ended without
		// saying so; a stat every few seconds is enough for that.
		if time.Since(lastDoneCheck) > 3*time.Second {
			lastDoneCheck = time.Now()
			if _, err := os.Stat(filepath.Join(share, "desk-done")); err == nil {
				return piStop()
			}
		}
		var req request
		select {
		case req = <-requests:
		default:
		}
		if req.N > handled {
			handled = req.N
			switch {
			case req.Press != "":
				if err := press(client, req.Press, req.HoldMs); err != nil {
					return err
				}
			case req.SC != "":
				// A failure is logged; the desk's scenario then fails on
				// what the adapter does.
				_ = piSC(st.Adapter, req.SC)
			case req.RemoveBonds:
				removeDevices(bus)
			default:
				logf("pi: desk asks for [ble] adapter = %q: restarting claude-pi", req.Adapter)
				app.stop()
				if app, err = startAppliance(req.Adapter); err != nil {
					return err
				}
				st.Adapter = req.Adapter
			}
		}
		st.Link, st.Shows, st.Prompt, st.Forget = screenLink{}, "", screenPrompt{}, nil
		if resp, err := client.Get("http://" + piHTTP + "/api/state"); err == nil {
			var s struct {
				Link   screenLink    `json:"link"`
				Shows  string        `json:"shows"`
				Prompt screenPrompt  `json:"prompt"`
				Forget *screenForget `json:"forget"`
			}
			if json.NewDecoder(resp.Body).Decode(&s) == nil {
				st.Link, st.Shows, st.Prompt, st.Forget = s.Link, s.Shows, s.Prompt, s.Forget
			}
			resp.Body.Close()
		}
		// The screen is the only place the passkey is shown (it is never
		// logged); count each new one so the desk can wait for a fresh one.
		if code := st.Link.Passkey; code != "" && code != lastCode {
			st.Passkeys++
			st.Passkey = code
			logf("pi: the screen shows passkey %s (#%d)", code, st.Passkeys)
		}
		lastCode = st.Link.Passkey
		st.Adverts, st.Bonds, st.Devices = adverts(bus), bonds(bus), devices(bus)
		st.Running, st.Requests = app.running(), handled
		// Sent when it changed, and every second: QEMU drops what a busy
		// guest's serial port cannot take, so the line carries little.
		if st.UpdatedAt = 0; !reflect.DeepEqual(st, sent) || time.Since(sentAt) >= time.Second {
			sent, sentAt = st, time.Now()
			sent.Adapters, sent.Adverts = maps.Clone(st.Adapters), maps.Clone(st.Adverts)
			st.UpdatedAt = time.Since(start).Seconds()
			if err := line.send(ctlMsg{State: &st}); err != nil {
				return fmt.Errorf("the control line: %w", err)
			}
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// piSC sets Secure Connections on the adapter claude-pi serves ("" is
// hci0) as bluetoothd does at start for main.conf's SecureConnections.
func piSC(adapter, mode string) error {
	if adapter == "" {
		adapter = "hci0"
	}
	i, err := strconv.ParseUint(strings.TrimPrefix(adapter, "hci"), 10, 16)
	if err != nil {
		return fmt.Errorf("adapter %q: %w", adapter, err)
	}
	err = setSC(uint16(i), mode)
	logf("pi: %s sc %s: %v", adapter, mode, err)
	return err
}

// removeDevices removes every device object of the pi's bluetoothd.
func removeDevices(bus *dbus.Conn) {
	for p, ifaces := range managed(bus) {
		if _, ok := ifaces["org.bluez.Device1"]; ok {
			err := bus.Object("org.bluez", dbus.ObjectPath(path.Dir(string(p)))).Call("org.bluez.Adapter1.RemoveDevice", 0, p).Err
			logf("pi: removed %s: %v", p, err)
		}
	}
}

// piStop logs what claude-pi's services say at the end (the deferred
// stop then ends it).
func piStop() error {
	out, _ := exec.Command(piBin, "status", "--control-socket", piDir+"/supervisor.sock").CombinedOutput()
	logf("pi: claude-pi status at the end:\n%s", out)
	return nil
}

// press presses a sim button through the appliance's web API, as its page
// does.
func press(client *http.Client, button string, holdMs int) error {
	url := "http://" + piHTTP + "/api/press/" + button
	if holdMs > 0 {
		url += fmt.Sprintf("?hold=%d", holdMs)
	}
	resp, err := client.Post(url, "", nil)
	if err != nil {
		return fmt.Errorf("pressing %s: %w", button, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("pressing %s: POST %s = %d", button, url, resp.StatusCode)
	}
	logf("pi: pressed %s (held %d ms)", button, holdMs)
	return nil
}

type appliance struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startAppliance starts claude-pi with its log in /host/out/pi. Each start
// appends to the same log, so a failure shows every incarnation.
func startAppliance(adapter string) (*appliance, error) {
	if err := os.MkdirAll(piDir, 0o755); err != nil {
		return nil, err
	}
	conf := fmt.Sprintf("board = \"sim\"\nhttp = %q\ndata_dir = %q\ncontrol_socket = %q\nlog_level = \"debug\"\n[ble]\nbackend = \"bluez\"\nadapter = %q\n[tts]\nengine = \"off\"\n",
		piHTTP, piDir, piDir+"/supervisor.sock", adapter)
	if err := os.WriteFile(piDir+"/config.toml", []byte(conf), 0o644); err != nil {
		return nil, err
	}
	log, err := os.OpenFile("/host/out/pi/claude-pi.log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "==== vmtest: starting claude-pi with [ble] adapter = %q\n", adapter)
	cmd := exec.Command(piBin, "run", "--config", piDir+"/config.toml")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	a := &appliance{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); log.Close(); close(a.done) }()
	return a, nil
}

func (a *appliance) running() bool {
	select {
	case <-a.done:
		return false
	default:
		return true
	}
}

// stop ends claude-pi as systemd would, with SIGTERM, then SIGKILL.
func (a *appliance) stop() {
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(15 * time.Second):
		logf("pi: claude-pi ignored SIGTERM for 15 s; killing it")
		_ = a.cmd.Process.Kill()
		<-a.done
	}
}

type objects = map[dbus.ObjectPath]map[string]map[string]dbus.Variant

func managed(bus *dbus.Conn) objects {
	var objs objects
	_ = bus.Object("org.bluez", "/").Call("org.freedesktop.DBus.ObjectManager.GetManagedObjects", 0).Store(&objs)
	return objs
}

func adapters(bus *dbus.Conn) map[string]string {
	m := map[string]string{}
	for p, ifaces := range managed(bus) {
		if a, ok := ifaces["org.bluez.Adapter1"]; ok {
			addr, _ := a["Address"].Value().(string)
			m[path.Base(string(p))] = addr
		}
	}
	return m
}

func adverts(bus *dbus.Conn) map[string]int {
	m := map[string]int{}
	for p, ifaces := range managed(bus) {
		if a, ok := ifaces["org.bluez.LEAdvertisingManager1"]; ok {
			n, _ := a["ActiveInstances"].Value().(byte)
			m[path.Base(string(p))] = int(n)
		}
	}
	return m
}

func bonds(bus *dbus.Conn) int {
	n := 0
	for p, ifaces := range managed(bus) {
		if d, ok := ifaces["org.bluez.Device1"]; ok && strings.HasPrefix(string(p), "/org/bluez/") {
			if paired, _ := d["Paired"].Value().(bool); paired {
				n++
			}
		}
	}
	return n
}

func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

func devices(bus *dbus.Conn) int {
	n := 0
	for _, ifaces := range managed(bus) {
		if _, ok := ifaces["org.bluez.Device1"]; ok {
			n++
		}
	}
	return n
}
