package lan

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// stranger is a computer nobody paired: its own certificate, any server
// certificate accepted (as `claude-pi pair` does before the codes match).
func stranger(t *testing.T, name string) *http.Client {
	t.Helper()
	id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), name)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: lanpair.ClientConfig(id, ""), DisableKeepAlives: true}}
}

func pairRequest(ctx context.Context, hc *http.Client, addr, name string) (*http.Response, error) {
	body, _ := json.Marshal(hookbridge.PairRequest{Name: name})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+addr+hookbridge.PathPair, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	return hc.Do(req)
}

// TestPairingRequestsOneAtATimeAndRateLimited: one stranger's request is
// on the screen; the next ones are refused while it is (at most one shown
// at a time), and past the burst the address is rate limited.
func TestPairingRequestsOneAtATimeAndRateLimited(t *testing.T) {
	r := newRig(t)
	addr := r.state(t).Addr
	hc := stranger(t, "mallory")
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		resp, err := pairRequest(ctx, hc, addr, "mallory")
		if err == nil {
			resp.Body.Close()
		}
		first <- err
	}()
	waitFor(t, "the first pairing request on the screen", func() bool { return r.state(t).Pairing != nil })
	var statuses []int
	for i := 0; i < pairBurst+1; i++ {
		resp, err := pairRequest(context.Background(), stranger(t, "eve"), addr, "eve")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
	}
	// The first request took one token of the burst.
	want := []int{http.StatusConflict, http.StatusConflict, http.StatusTooManyRequests, http.StatusTooManyRequests}
	for i := range want {
		if statuses[i] != want[i] {
			t.Fatalf("pairing requests 2..%d answered %v, want %v", pairBurst+2, statuses, want)
		}
	}
	if p := r.state(t).Pairing; p == nil || p.Name != "mallory" {
		t.Fatalf("pairing on the screen %+v, want the first request's", p)
	}
	cancel()
	<-first
	waitFor(t, "the abandoned pairing off the screen", func() bool { return r.state(t).Pairing == nil })
	if n := len(r.state(t).Clients); n != 2 {
		t.Fatalf("%d clients, want the 2 paired before", n)
	}
}
