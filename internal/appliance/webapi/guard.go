package webapi

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/claude-pi/claude-pi/boards/sim"
)

// The sim's web page presses real buttons: A approves a pending prompt.
// Any page the developer visits can send a request to 127.0.0.1, so the
// server answers only requests that can only come from its own page or a
// script:
//
//   - The Host must be a loopback name or address (or the address the
//     request arrived on) with the server's own port. A DNS-rebinding
//     page reaches the server under its own name, which is refused, so it
//     can neither press nor read /api/state (prompts, the pairing code).
//   - An Origin header must be the server's own origin. Browsers send one
//     with every cross-origin fetch and form POST; scripts and tests send
//     none and keep working.
//   - A request the browser marks as coming from another site
//     (Sec-Fetch-Site) is refused unless it is the top-level navigation
//     that opens the page, so another site cannot embed the screen.
//   - Every answer says how it may be used: only the page's own inline
//     script and style run, it can only be framed by itself (its phone
//     preview), nothing is sniffed, no referrer leaves.
func guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", pageCSP)
		hd.Set("X-Frame-Options", "SAMEORIGIN")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		if err := checkHost(r); err != nil {
			jsonError(w, http.StatusMisdirectedRequest, err.Error())
			return
		}
		if err := checkOrigin(r); err != nil {
			jsonError(w, http.StatusForbidden, err.Error())
			return
		}
		h.ServeHTTP(w, r)
	})
}

// checkHost accepts a Host that names this server without DNS: localhost,
// a loopback address, or the address the connection arrived on, with the
// port it arrived on.
func checkHost(r *http.Request) error {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	tcp, ok := local.(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("sim web: no local TCP address for this request; serve Handler with net/http")
	}
	fix := fmt.Sprintf("open http://127.0.0.1:%d/ (or localhost); a page under any other name could be DNS rebinding", tcp.Port)
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "80" // no port: the default one
	}
	if port != strconv.Itoa(tcp.Port) { // as a browser writes it: no sign, no leading zeros
		return fmt.Errorf("sim web: Host %q is not this server's port %d: %s", r.Host, tcp.Port, fix)
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" {
		return nil
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if err != nil || a.Zone() != "" {
		return fmt.Errorf("sim web: Host %q is not a loopback name or address: %s", r.Host, fix)
	}
	a = a.Unmap()
	if at, ok := netip.AddrFromSlice(tcp.IP); a.IsLoopback() || (ok && a == at.Unmap()) {
		return nil
	}
	return fmt.Errorf("sim web: Host %q is not this server's address: %s", r.Host, fix)
}

// checkOrigin refuses what a browser sends on behalf of another page.
func checkOrigin(r *http.Request) error {
	switch o := r.Header.Values("Origin"); {
	case len(o) > 1:
		return fmt.Errorf("sim web: %d Origin headers", len(o))
	case len(o) == 1 && o[0] != "http://"+strings.ToLower(r.Host):
		return fmt.Errorf("sim web: Origin %q is not this page's (http://%s): the sim's buttons answer only its own page and scripts", o[0], r.Host)
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return nil
	}
	if r.Header.Get("Sec-Fetch-Mode") == "navigate" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		return nil // a link to the page from elsewhere opens it
	}
	return fmt.Errorf("sim web: a %s request from another site (Sec-Fetch-Site %s): the sim answers only its own page and scripts", r.Method, r.Header.Get("Sec-Fetch-Site"))
}

// pageCSP lets the page run its own inline script and style (by hash)
// and fetch, show and frame only itself.
var pageCSP = "default-src 'none'; script-src " + inlineHash("script") + "; style-src " + inlineHash("style") +
	"; img-src 'self' blob:; connect-src 'self'; frame-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"

// inlineHash is the CSP source of sim.PageHTML's <tag> element.
func inlineHash(tag string) string {
	_, body, _ := strings.Cut(sim.PageHTML, "<"+tag+">")
	body, _, _ = strings.Cut(body, "</"+tag+">")
	sum := sha256.Sum256([]byte(body))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
