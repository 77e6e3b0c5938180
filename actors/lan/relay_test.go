package lan

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// TestRelayCannotMatchCodes is issue 23 item 1. A relay answers for
// claude-pi.local: the real client (lanpair.Pair, what `claude-pi pair`
// runs) talks to it, and it talks to the real Pi. It holds no key of
// either end, so it shows each end a certificate of its own, and it may
// use as many certificates, nonces, addresses and CPU as it likes, in any
// order the protocol allows. It wins if the client prints the code the
// Pi shows. Under pairing v1 it won every time: it ground its client
// certificate offline until the Pi's code equalled the client's (2.4
// million tries, 2.8 s).
//
// Why it cannot win now, and what each case checks:
//
//   - The client's code is Code(C, Pm, nc, np'), where np' is the nonce
//     the relay hands the client. The relay must pick np' before it sees
//     nc (the client sent only a commitment to it), so to the relay the
//     client's code is a uniform draw it learns only once it is fixed.
//   - The Pi's code is Code(Cm, P, nm, np). The relay commits to Cm and
//     nm before the Pi draws np, and the commitment opens to one nonce
//     only: grinding nm afterwards to hit the client's code gets the
//     reveal refused ("does not open its commitment" below). So each Pi nonce
//     gives the relay one uniform draw: a 10^-6 chance.
//   - Passing the client's commitment and nonce on to the Pi fails: the
//     commitment binds the certificates each end saw, and the relay's
//     differ from the client's ("forwards").
//   - The Pi rations its nonces across all addresses (nonceBurst, then
//     one per nonceEvery; TestPiNoncesAreRationed), and a client waits at
//     most lanpair.MaxPairWait, so a pairing run gives the relay at most
//     11 draws: a chance of equal codes below 1.1·10^-5 per run, and
//     each draw it turns into a shown code is a code on the Pi's screen.
//
// So every case asserts that the code the client printed never equals a
// code the Pi showed, and that nobody got paired. A correct
// implementation fails this test only with the chance above (about one
// run in 10^5); a relay that could choose its input after seeing the
// other end's fails it every time.
func TestRelayCannotMatchCodes(t *testing.T) {
	for _, tt := range []struct {
		name string
		// commit is the relay's answer to the client's commitment: the
		// nonce it hands the client.
		commit func(rl *relay, commitment []byte) []byte
		// reveal runs once the client revealed nc and printed its code.
		reveal func(rl *relay, nc []byte)
	}{
		{
			// The strongest order: learn the client's code first, then
			// spend every Pi nonce the Pi will give, from fresh
			// addresses and certificates, grinding between them.
			name:   "grinds the Pi after the client's code is known",
			commit: func(rl *relay, _ []byte) []byte { return fresh() },
			reveal: func(rl *relay, _ []byte) {
				for i := 0; ; i++ {
					p := newPeer(rl.t, rl.piAddr, "relay", "127.0.0."+strconv.Itoa(20+i))
					nm := fresh()
					np, st, _ := p.commit(rl.t, "ada-laptop", hookbridge.Commitment(p.cert(), p.piCert, nm))
					if np == nil {
						if st != http.StatusTooManyRequests {
							rl.t.Fatalf("commit %d refused with %d", i, st)
						}
						rl.t.Logf("the Pi refused nonce %d: %d tries in all", i+1, rl.tries)
						return
					}
					rl.tries++
					if rl.tries > nonceBurst {
						rl.t.Fatalf("the Pi gave %d nonces in a burst, more than its ration of %d", rl.tries, nonceBurst)
					}
					if i == 0 {
						rl.openToAnother(p, nm, np)
					}
					if hookbridge.Code(p.cert(), p.piCert, nm, np) == rl.clientCode {
						rl.showOnPi(p, nm, np) // the one-in-a-million: show it and fail
					}
					p.post(context.Background(), hookbridge.PathPairCancel, struct{}{})
				}
			},
		},
		{
			// The other order: take the Pi's nonce first, so that the
			// Pi's code is known, and then choose the client's nonce
			// knowing it: the relay's best choice is still blind to nc.
			name: "commits to the Pi before the client's commitment",
			commit: func(rl *relay, _ []byte) []byte {
				rl.pi = newPeer(rl.t, rl.piAddr, "relay", "127.0.0.40")
				rl.nm = fresh()
				var st int
				rl.np, st, _ = rl.pi.commit(rl.t, "ada-laptop", hookbridge.Commitment(rl.pi.cert(), rl.pi.piCert, rl.nm))
				if rl.np == nil {
					rl.t.Fatalf("commit refused: %d", st)
				}
				rl.tries++
				return rl.np // as good as any: nothing known here predicts the client's code
			},
			reveal: func(rl *relay, _ []byte) { rl.showOnPi(rl.pi, rl.nm, rl.np) },
		},
		{
			// Pass the client's own commitment and nonce on to the Pi.
			name: "forwards the client's commitment and nonce",
			commit: func(rl *relay, commitment []byte) []byte {
				rl.pi = newPeer(rl.t, rl.piAddr, "relay", "127.0.0.50")
				var st int
				rl.np, st, _ = rl.pi.commit(rl.t, "ada-laptop", commitment)
				if rl.np == nil {
					rl.t.Fatalf("commit refused: %d", st)
				}
				rl.tries++
				return rl.np
			},
			reveal: func(rl *relay, nc []byte) {
				a := recv(rl.t, rl.pi.revealAsync(context.Background(), nc))
				if a.status != http.StatusForbidden || !strings.Contains(a.body, "does not open its commitment") {
					rl.t.Fatalf("the client's nonce passed on to the Pi: %+v, want it refused", a)
				}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			rl := startRelay(t, r)
			id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), "ada")
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := lanpair.Pair(context.Background(), lanpair.PairOptions{Identity: id, Addr: rl.addr, Name: "ada-laptop",
					Code:    func(c string) { rl.printed = c },
					Confirm: func(_, _ string) bool { return true }})
				done <- err
			}()
			// The strategy runs here, on the test's goroutine; the
			// relay's handlers only pass messages.
			c := <-rl.commits
			np := tt.commit(rl, c.commitment)
			rl.nonces <- np
			nc := <-rl.reveals
			rl.clientCode = hookbridge.Code(c.client, rl.id.Certificate[0], nc, np)
			tt.reveal(rl, nc)
			close(rl.revealed)
			if err := <-done; err == nil {
				t.Fatal("the client paired through the relay")
			}
			if rl.printed == "" || rl.printed != rl.clientCode {
				t.Fatalf("the client printed %q; the relay computed %q from what it saw", rl.printed, rl.clientCode)
			}
			for _, c := range rl.shown {
				if c == rl.printed {
					t.Fatalf("the Pi showed %s, the code the client printed, after %d tries", c, rl.tries)
				}
			}
			if n := len(r.state(t).Clients); n != 2 {
				t.Fatalf("%d clients paired, want the 2 from before", n)
			}
			t.Logf("client printed %s; the Pi showed %v; %d Pi nonces spent", rl.printed, rl.shown, rl.tries)
		})
	}
}

// relay is the man in the middle: a TLS server with its own certificate
// for the client, and peers with certificates of their own for the Pi.
type relay struct {
	t      *testing.T
	r      *rig
	id     tls.Certificate
	addr   string
	piAddr string

	commits  chan relayCommit
	nonces   chan []byte
	reveals  chan []byte
	revealed chan struct{}

	clientCode string // what the client must print, from what the relay saw
	printed    string // what the client printed
	shown      []string
	tries      int // Pi nonces spent

	// state of the strategies that work one pairing on the Pi
	pi     *peer
	nm, np []byte
}

type relayCommit struct{ client, commitment []byte }

func startRelay(t *testing.T, r *rig) *relay {
	id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), "claude-pi")
	if err != nil {
		t.Fatal(err)
	}
	rl := &relay{t: t, r: r, id: id, piAddr: r.state(t).Addr,
		commits: make(chan relayCommit, 1), nonces: make(chan []byte, 1), reveals: make(chan []byte, 1), revealed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+hookbridge.PathPair, func(w http.ResponseWriter, q *http.Request) {
		b, _ := io.ReadAll(q.Body)
		_, commitment, err := hookbridge.DecodePairCommit(b)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rl.commits <- relayCommit{q.TLS.PeerCertificates[0].Raw, commitment}
		json.NewEncoder(w).Encode(hookbridge.PairNonce{Nonce: hex.EncodeToString(<-rl.nonces), Device: "Claude_Pi"})
	})
	mux.HandleFunc("POST "+hookbridge.PathPairReveal, func(w http.ResponseWriter, q *http.Request) {
		b, _ := io.ReadAll(q.Body)
		nc, err := hookbridge.DecodePairReveal(b)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rl.reveals <- nc
		<-rl.revealed
		// Whatever it managed, the relay lets the client go: the test
		// judges by the codes, not by what the relay claims.
		json.NewEncoder(w).Encode(hookbridge.PairResponse{Status: hookbridge.PairRefused, Reason: "relay done"})
	})
	mux.HandleFunc("POST "+hookbridge.PathPairCancel, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{id}, ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS13}
	srv := &http.Server{Handler: mux}
	go srv.Serve(tls.NewListener(ln, cfg))
	t.Cleanup(func() { srv.Close() })
	rl.addr = ln.Addr().String()
	return rl
}

// showOnPi reveals nm honestly and records the code the Pi then shows.
func (rl *relay) showOnPi(p *peer, nm, np []byte) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ans := p.revealAsync(ctx, nm)
	want := hookbridge.Code(p.cert(), p.piCert, nm, np)
	waitFor(rl.t, "the relay's code on the Pi", func() bool {
		pr := rl.r.state(rl.t).Pairing
		return pr != nil && pr.Code == want
	})
	rl.shown = append(rl.shown, want)
	cancel()
	<-ans
}

// openToAnother is the grind that beat pairing v1, moved to where v2
// leaves the relay any freedom: with the Pi's nonce known, search for a
// nonce nm' that gives the client's code (up to 4 million guesses, about
// 3 s: found but for a chance of e^-4), and reveal it in place of the
// committed nm. The Pi must refuse it and show nothing.
func (rl *relay) openToAnother(p *peer, nm, np []byte) {
	h := hookbridge.NewCodeHasher(p.cert(), p.piCert)
	forged := fresh()
	found := false
	for i := uint64(0); i < 4_000_000 && !found; i++ {
		binary.BigEndian.PutUint64(forged, i)
		found = h.Code(forged, np) == rl.clientCode
	}
	rl.t.Logf("ground a nonce with the client's code: %v", found)
	a := recv(rl.t, p.revealAsync(context.Background(), forged))
	if a.status != http.StatusForbidden || !strings.Contains(a.body, "does not open its commitment") {
		rl.t.Fatalf("a reveal of another nonce than the committed one: %+v, want it refused", a)
	}
	if pr := rl.r.state(rl.t).Pairing; pr != nil {
		rl.t.Fatalf("after a forged reveal the Pi shows %+v", pr)
	}
}
