package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// defaultPiHost is the Pi's mDNS name; the image publishes _claude-pi._tcp
// under it with Avahi.
const defaultPiHost = "claude-pi.local"

// cliState is the computer's side of pairing, in the user's config dir:
// identity.pem and pis.json.
type cliState struct {
	dir string
	Pis []pairedPi `json:"pis"`
}

// pairedPi is one Pi this computer trusts.
type pairedPi struct {
	Name   string    `json:"name"`
	Addr   string    `json:"addr"`
	Pin    string    `json:"pin"`
	Paired time.Time `json:"paired"`
}

func loadCLIState(dir string) (*cliState, error) {
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return nil, fmt.Errorf("finding the config dir: %v", err)
		}
		dir = filepath.Join(base, "claude-pi")
	}
	cs := &cliState{dir: dir}
	if err := lanpair.ReadJSON(filepath.Join(dir, "pis.json"), cs); err != nil {
		return nil, err
	}
	return cs, nil
}

func (cs *cliState) save() error { return lanpair.WriteJSON(filepath.Join(cs.dir, "pis.json"), cs) }

func (cs *cliState) identity() (tls.Certificate, error) {
	host, _ := os.Hostname()
	return lanpair.LoadOrCreate(filepath.Join(cs.dir, "identity.pem"), "claude-pi-cli "+host)
}

// pick returns the named Pi, or the last paired one.
func (cs *cliState) pick(name string) (pairedPi, error) {
	if len(cs.Pis) == 0 {
		return pairedPi{}, errors.New("no paired Pi (run claude-pi pair)")
	}
	if name == "" {
		return cs.Pis[len(cs.Pis)-1], nil
	}
	for _, p := range cs.Pis {
		if p.Name == name {
			return p, nil
		}
	}
	return pairedPi{}, fmt.Errorf("no paired Pi called %q", name)
}

// pairCommand is `claude-pi pair [HOST[:PORT]]`, `--list` and `--revoke`.
func pairCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("pair", "Usage: claude-pi pair [flags] [HOST[:PORT]]   (default host "+defaultPiHost+")", stderr)
	config := fs.String("config", os.Getenv("CLAUDE_PI_CONFIG"), "the CLI's state directory (default: the user config dir's claude-pi)")
	host, _ := os.Hostname()
	name := fs.String("name", host, "this computer's name on the Pi")
	list := fs.Bool("list", false, "list the Pis this computer is paired with")
	revoke := fs.String("revoke", "", "forget the paired Pi called `NAME` (revoke the computer on the Pi too)")
	yes := fs.Bool("yes", false, "do not ask to confirm the code (for scripts that compare it themselves)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	cs, err := loadCLIState(*config)
	if err != nil {
		return err
	}
	switch {
	case *list:
		for _, p := range cs.Pis {
			fmt.Fprintf(stdout, "%s\t%s\tpaired %s\tpin %s…\n", p.Name, p.Addr, p.Paired.Format(time.DateOnly), p.Pin[:16])
		}
		return nil
	case *revoke != "":
		i := slices.IndexFunc(cs.Pis, func(p pairedPi) bool { return p.Name == *revoke })
		if i < 0 {
			return fmt.Errorf("pair: no paired Pi called %q", *revoke)
		}
		cs.Pis = slices.Delete(cs.Pis, i, i+1)
		if err := cs.save(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "forgot %s\n", *revoke)
		return nil
	}
	if fs.NArg() > 1 {
		return usagef("pair: one host at most")
	}
	addr := defaultPiHost
	if fs.NArg() == 1 {
		addr = fs.Arg(0)
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, strconv.Itoa(hookbridge.DefaultPort))
	}
	return pair(ctx, cs, addr, *name, *yes, stdin, stdout)
}

func pair(ctx context.Context, cs *cliState, addr, name string, yes bool, stdin io.Reader, stdout io.Writer) error {
	id, err := cs.identity()
	if err != nil {
		return err
	}
	// Learn the Pi's certificate first, so the code can be printed while
	// the pairing request waits for the button.
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: lanpair.ClientConfig(id, "")}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("pair: reaching %s: %v", addr, err)
	}
	piCert := conn.(*tls.Conn).ConnectionState().PeerCertificates[0].Raw
	conn.Close()
	pin := hookbridge.Fingerprint(piCert)
	code := hookbridge.PairingCode(piCert, id.Certificate[0])
	fmt.Fprintf(stdout, "Pairing with %s as %q.\nCode: %s\nCheck that the Pi shows the same code, then press approve on the Pi.\n", addr, name, code)

	// Every later request is pinned to the certificate just seen: the code
	// compares exactly that one.
	hc := piClient(id, pin)
	defer hc.CloseIdleConnections()
	var resp hookbridge.PairResponse
	if err := postJSON(ctx, hc, addr, hookbridge.PathPair, hookbridge.PairRequest{Name: name}, &resp); err != nil {
		return fmt.Errorf("pair: %v", err)
	}
	switch resp.Status {
	case "accepted":
	case "paired":
		fmt.Fprintln(stdout, "The Pi already knows this computer.")
	default:
		return fmt.Errorf("pair: %s %s", resp.Status, resp.Reason)
	}
	if resp.Status == "accepted" {
		if !yes {
			fmt.Fprintf(stdout, "Accepted on %s. Did it show %s? [y/N] ", resp.Device, code)
			line, _ := bufio.NewReader(stdin).ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
				return errors.New("pair: not confirmed; nothing saved (the Pi forgets the request)")
			}
		}
		if err := postJSON(ctx, hc, addr, hookbridge.PathPairConfirm, struct{}{}, &resp); err != nil {
			return fmt.Errorf("pair: confirming: %v", err)
		}
	}
	dev := resp.Device
	if dev == "" {
		dev = "Claude_Pi"
	}
	cs.Pis = slices.DeleteFunc(cs.Pis, func(p pairedPi) bool { return p.Name == dev || p.Pin == pin })
	cs.Pis = append(cs.Pis, pairedPi{Name: dev, Addr: addr, Pin: pin, Paired: time.Now().UTC()})
	if err := cs.save(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Paired with %s at %s. Install the hooks with: claude-pi hook install\n", dev, addr)
	return nil
}

func postJSON(ctx context.Context, hc *http.Client, addr, path string, in, out any) error {
	body, _ := json.Marshal(in)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+addr+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, hookbridge.MaxRequest))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	return json.Unmarshal(b, out)
}
