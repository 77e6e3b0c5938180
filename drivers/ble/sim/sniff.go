package sim

import (
	"bytes"
	"errors"
	"regexp"
)

// A web page the developer visits can make the browser connect to any
// local port and send what a browser sends: an HTTP request (fetch, a
// form, an image, a WebSocket handshake), a TLS ClientHello (an https://
// address), a STUN/TURN message (WebRTC). An HTTP POST's body is the
// page's to choose, and the NUS line layer drops the header lines as
// garbage, so the body's JSON would reach the appliance as a desktop's
// line. None of those can start with '{' (an HTTP method is a token;
// TLS and STUN start with binary), and every NUS line does: the desktop
// writes JSON objects. So a connection is served only once its first
// byte other than white space is '{'; any other start closes it before a
// byte reaches the appliance.

// maxLead bounds the white space a client may send before its first
// line: past it the connection is not a NUS client.
const maxLead = MaxRead

// errNotNUS ends a connection whose first bytes are not a NUS line.
var errNotNUS = errors.New("sim: not a NUS client: the first line must be a JSON object")

type verdict int

const (
	undecided verdict = iota // only white space so far
	nusClient
	notNUS
)

// sniff judges a connection by its first bytes.
func sniff(lead []byte) verdict {
	rest := bytes.TrimLeft(lead, " \t\r\n")
	switch {
	case len(rest) > 0 && rest[0] == '{':
		return nusClient
	case len(rest) > 0 || len(lead) > maxLead:
		return notNUS
	}
	return undecided
}

var httpRequestLine = regexp.MustCompile(`^[!#$%&'*+.^_` + "`" + `|~0-9A-Za-z-]+ \S+ HTTP/`)

// looksLike names what a refused connection sent, for the log.
func looksLike(lead []byte) string {
	rest := bytes.TrimLeft(lead, " \t\r\n")
	switch {
	case httpRequestLine.Match(rest):
		return "an HTTP request (a web page?)"
	case len(rest) > 1 && rest[0] == 0x16 && rest[1] == 0x03:
		return "a TLS handshake"
	case len(rest) == 0:
		return "only white space"
	}
	return "not a JSON line"
}
