package webapi

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/boards/sim"
)

// raw sends one request over a plain TCP connection, exactly as written,
// and returns the response.
func raw(t *testing.T, addr, req string) (*http.Response, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer to %q: %v", req, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestGuardRefusesOtherPages: each way a web page the developer visits
// could reach the sim's buttons or state is refused, over a raw TCP
// connection, and no button press is delivered; the page itself, scripts
// and tests (no Origin) keep working.
func TestGuardRefusesOtherPages(t *testing.T) {
	b, _, ts := newTestServer(t)
	presses, stop := b.Buttons.Subscribe(16)
	defer stop()
	addr := ts.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	req := func(method, path, host string, headers ...string) string {
		s := method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
		for _, h := range headers {
			s += h + "\r\n"
		}
		if method == "POST" {
			s += "Content-Length: 0\r\n"
		}
		return s + "\r\n"
	}
	own := "127.0.0.1:" + port
	for _, tt := range []struct {
		name string
		req  string
		code int
	}{
		{"DNS rebinding: the attacker's name", req("GET", "/api/state", "rebind.attacker.example:"+port), http.StatusMisdirectedRequest},
		{"DNS rebinding presses", req("POST", "/api/press/A", "rebind.attacker.example:"+port), http.StatusMisdirectedRequest},
		{"a name that ends in localhost", req("GET", "/api/state", "localhost.attacker.example:"+port), http.StatusMisdirectedRequest},
		{"another port", req("GET", "/api/state", "127.0.0.1:1"), http.StatusMisdirectedRequest},
		{"no port", req("GET", "/api/state", "127.0.0.1"), http.StatusMisdirectedRequest},
		{"a signed port", req("GET", "/api/state", "127.0.0.1:+"+port), http.StatusMisdirectedRequest},
		{"a LAN address the server is not on", req("GET", "/api/state", "192.0.2.7:"+port), http.StatusMisdirectedRequest},
		{"0.0.0.0", req("GET", "/api/state", "0.0.0.0:"+port), http.StatusMisdirectedRequest},
		{"a zone", req("GET", "/api/state", "[fe80::1%25eth0]:"+port), http.StatusMisdirectedRequest},
		{"a form on another site", req("POST", "/api/press/A", own, "Origin: https://evil.example"), http.StatusForbidden},
		{"a no-cors fetch from another site", req("POST", "/api/press/A", own, "Origin: http://evil.example", "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: no-cors"), http.StatusForbidden},
		{"another port on localhost", req("POST", "/api/press/A", own, "Origin: http://127.0.0.1:3000", "Sec-Fetch-Site: same-site"), http.StatusForbidden},
		{"a sandboxed frame", req("POST", "/api/press/A", own, "Origin: null"), http.StatusForbidden},
		{"https of the same host", req("POST", "/api/press/A", own, "Origin: https://"+own), http.StatusForbidden},
		{"two Origins", req("POST", "/api/press/A", own, "Origin: http://"+own, "Origin: http://evil.example"), http.StatusForbidden},
		{"reading state from another site", req("GET", "/api/state", own, "Origin: http://evil.example"), http.StatusForbidden},
		{"an img of the screen on another site", req("GET", "/api/screen.png", own, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: no-cors", "Sec-Fetch-Dest: image"), http.StatusForbidden},
		{"a cross-site navigation that posts", req("POST", "/api/press/A", own, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: navigate"), http.StatusForbidden},
	} {
		resp, body := raw(t, addr, tt.req)
		if resp.StatusCode != tt.code || !strings.Contains(body, `"error"`) || strings.Contains(body, `"board"`) {
			t.Errorf("%s: %d %s, want %d and an error", tt.name, resp.StatusCode, body, tt.code)
		}
	}
	select {
	case p := <-presses:
		t.Fatalf("a refused request pressed %+v", p)
	default:
	}

	for _, tt := range []struct{ name, req string }{
		{"a script", req("POST", "/api/press/B", own)},
		{"the page itself", req("POST", "/api/press/B", own, "Origin: http://"+own, "Sec-Fetch-Site: same-origin", "Sec-Fetch-Mode: cors")},
		{"localhost", req("POST", "/api/press/B", "localhost:"+port, "Origin: http://localhost:"+port)},
		{"LOCALHOST.", req("POST", "/api/press/B", "LOCALHOST.:"+port)},
		{"127.x", req("POST", "/api/press/B", "127.8.9.10:"+port)},
		{"::1", req("POST", "/api/press/B", "[::1]:"+port, "Origin: http://[::1]:"+port)},
		{"typed into the address bar", req("POST", "/api/press/B", own, "Sec-Fetch-Site: none")},
	} {
		if resp, body := raw(t, addr, tt.req); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %s, want 200", tt.name, resp.StatusCode, body)
			continue
		}
		select {
		case <-presses:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no press delivered", tt.name)
		}
	}
	// A link from another site opens the page.
	if resp, _ := raw(t, addr, req("GET", "/", own, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: navigate", "Sec-Fetch-Dest: document")); resp.StatusCode != http.StatusOK {
		t.Errorf("a link from another site: %d, want 200", resp.StatusCode)
	}
}

// TestGuardHeaders: every answer, refused or not, forbids framing by
// other pages, sniffing and referrers, and the page's policy lets only
// its own script and style run.
func TestGuardHeaders(t *testing.T) {
	_, _, ts := newTestServer(t)
	addr := ts.Listener.Addr().String()
	for _, path := range []string{"/", "/api/state", "/api/screen.png", "/api/nope"} {
		for _, host := range []string{addr, "evil.example"} {
			resp, _ := raw(t, addr, "GET "+path+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
			h := resp.Header
			csp := h.Get("Content-Security-Policy")
			if !strings.Contains(csp, "frame-ancestors 'self'") || !strings.Contains(csp, "default-src 'none'") ||
				h.Get("X-Frame-Options") != "SAMEORIGIN" || h.Get("X-Content-Type-Options") != "nosniff" ||
				h.Get("Referrer-Policy") != "no-referrer" || h.Get("Cross-Origin-Resource-Policy") != "same-origin" {
				t.Errorf("GET %s (Host %s): headers %v", path, host, h)
			}
		}
	}
	// The policy allows the page's inline code by hash, so the page must
	// have one script and one style element and nothing inline besides
	// (an onclick= or style= attribute would be blocked).
	if strings.Count(sim.PageHTML, "<script>") != 1 || strings.Count(sim.PageHTML, "<style>") != 1 {
		t.Fatal("the page has more than one script or style element: hash each in pageCSP")
	}
	if m := regexp.MustCompile(`<[^>]*\s(on[a-z]+|style)=`).FindString(sim.PageHTML); m != "" {
		t.Fatalf("inline attribute the policy blocks: %s", m)
	}
	if !strings.Contains(pageCSP, inlineHash("script")) || strings.Contains(inlineHash("script"), inlineHash("style")) {
		t.Fatal("pageCSP lacks the script's hash")
	}
}

// FuzzGuard: whatever the Host and Origin, the guard lets through only a
// request whose Host is localhost or a loopback address with the
// server's port, and whose Origin, if any, is that same origin.
func FuzzGuard(f *testing.F) {
	for _, s := range [][2]string{
		{"127.0.0.1:8330", ""}, {"localhost:8330", "http://localhost:8330"}, {"[::1]:8330", "http://[::1]:8330"},
		{"rebind.attacker.example:8330", ""}, {"127.0.0.1:8330", "http://evil.example"}, {"127.0.0.1.nip.io:8330", ""},
		{"[::ffff:127.0.0.1]:8330", ""}, {"0x7f.1:8330", ""}, {"LOCALHOST.:8330", "null"}, {"127.0.0.1:08330", ""},
	} {
		f.Add(s[0], s[1])
	}
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8330}
	f.Fuzz(func(t *testing.T, host, origin string) {
		r := &http.Request{Method: "POST", Host: host, Header: http.Header{}}
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		r = r.WithContext(context.WithValue(context.Background(), http.LocalAddrContextKey, local))
		if checkHost(r) != nil || checkOrigin(r) != nil {
			return
		}
		h, p, err := net.SplitHostPort(host)
		if err != nil || p != "8330" {
			t.Fatalf("accepted Host %q: not port 8330", host)
		}
		h = strings.TrimSuffix(strings.ToLower(h), ".")
		if a, err := netip.ParseAddr(h); h != "localhost" && (err != nil || !a.Unmap().IsLoopback()) {
			t.Fatalf("accepted Host %q: not localhost or a loopback address", host)
		}
		if origin != "" && !strings.EqualFold(origin, "http://"+host) {
			t.Fatalf("accepted Origin %q for Host %q", origin, host)
		}
	})
}
