package ctlsock

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// Decoded XML-RPC values are plain Go values:
//
//	<int>, <i4>, <i8>        int
//	<boolean>                bool
//	<string>, untyped text   string
//	<double>                 float64
//	<base64>                 []byte
//	<dateTime.iso8601>       time.Time (UTC)
//	<array>                  []any
//	<struct>                 map[string]any
//	<nil/>                   nil
//
// The encoder accepts the same types plus int32, int64, []string and
// []map[string]any, which the method handlers build.

// MaxRequestBytes bounds a request body; supervisorctl's largest call is a
// few hundred bytes, so anything near this is not a real client.
const MaxRequestBytes = 1 << 20

// maxDepth bounds nesting of arrays and structs so that a hostile body
// cannot recurse the decoder into the ground.
const maxDepth = 32

const isoLayout = "20060102T15:04:05"

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("xmlrpc: malformed document")

// MethodCall is a decoded <methodCall>.
type MethodCall struct {
	Method string
	Params []any
}

// DecodeMethodCall parses an XML-RPC request body. It never panics; any
// structural problem is an error wrapping ErrMalformed.
func DecodeMethodCall(r io.Reader) (MethodCall, error) {
	p := newParser(r)
	var mc MethodCall
	if err := p.expectStart("methodCall"); err != nil {
		return mc, err
	}
	sawName := false
	for {
		tok, err := p.next()
		if err != nil {
			return mc, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "methodName":
				s, err := p.text("methodName")
				if err != nil {
					return mc, err
				}
				mc.Method, sawName = strings.TrimSpace(s), true
			case "params":
				if mc.Params, err = p.params(); err != nil {
					return mc, err
				}
			default:
				return mc, p.errorf("unexpected <%s> in <methodCall>", t.Name.Local)
			}
		case xml.EndElement:
			if !sawName || mc.Method == "" {
				return mc, p.errorf("no <methodName>")
			}
			if mc.Params == nil {
				mc.Params = []any{}
			}
			return mc, p.end()
		}
	}
}

// MethodResponse is a decoded <methodResponse>: either Value or Fault.
type MethodResponse struct {
	Value any
	Fault *Fault
}

// DecodeMethodResponse parses an XML-RPC response body.
func DecodeMethodResponse(r io.Reader) (MethodResponse, error) {
	p := newParser(r)
	var mr MethodResponse
	if err := p.expectStart("methodResponse"); err != nil {
		return mr, err
	}
	start, err := p.nextStart()
	if err != nil {
		return mr, err
	}
	switch start.Name.Local {
	case "params":
		params, err := p.params()
		if err != nil {
			return mr, err
		}
		if len(params) != 1 {
			return mr, p.errorf("response has %d params, want 1", len(params))
		}
		mr.Value = params[0]
	case "fault":
		if err := p.expectStart("value"); err != nil {
			return mr, err
		}
		v, err := p.value(0)
		if err != nil {
			return mr, err
		}
		st, ok := v.(map[string]any)
		code, okc := st["faultCode"].(int)
		msg, oks := st["faultString"].(string)
		if !ok || !okc || !oks {
			return mr, p.errorf("fault is not {faultCode int, faultString string}")
		}
		mr.Fault = &Fault{Code: code, String: msg}
		if err := p.expectEnd("fault"); err != nil {
			return mr, err
		}
	default:
		return mr, p.errorf("unexpected <%s> in <methodResponse>", start.Name.Local)
	}
	if err := p.expectEnd("methodResponse"); err != nil {
		return mr, err
	}
	return mr, p.end()
}

type parser struct {
	d *xml.Decoder
}

func newParser(r io.Reader) *parser {
	d := xml.NewDecoder(r)
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "us-ascii", "ascii":
			return in, nil
		}
		return nil, fmt.Errorf("unsupported charset %q", label)
	}
	return &parser{d: d}
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s (at byte %d)", ErrMalformed, fmt.Sprintf(format, args...), p.d.InputOffset())
}

// next returns the next start or end element, skipping whitespace, comments,
// processing instructions and directives.
func (p *parser) next() (xml.Token, error) {
	for {
		tok, err := p.d.Token()
		if err != nil {
			if err == io.EOF {
				return nil, p.errorf("unexpected end of document")
			}
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.StartElement, xml.EndElement:
			return t, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return nil, p.errorf("unexpected text %q", truncate(string(t)))
			}
		}
	}
}

func (p *parser) nextStart() (xml.StartElement, error) {
	tok, err := p.next()
	if err != nil {
		return xml.StartElement{}, err
	}
	s, ok := tok.(xml.StartElement)
	if !ok {
		return s, p.errorf("unexpected </%s>", tok.(xml.EndElement).Name.Local)
	}
	return s, nil
}

func (p *parser) expectStart(name string) error {
	s, err := p.nextStart()
	if err != nil {
		return err
	}
	if s.Name.Local != name {
		return p.errorf("got <%s>, want <%s>", s.Name.Local, name)
	}
	return nil
}

func (p *parser) expectEnd(name string) error {
	tok, err := p.next()
	if err != nil {
		return err
	}
	if e, ok := tok.(xml.EndElement); !ok || e.Name.Local != name {
		return p.errorf("want </%s>", name)
	}
	return nil
}

// end insists on nothing but whitespace after the root element.
func (p *parser) end() error {
	for {
		tok, err := p.d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return p.errorf("trailing text after root element")
			}
		case xml.StartElement, xml.EndElement:
			return p.errorf("trailing element after root element")
		}
	}
}

// text reads character data up to the end of the element just opened.
func (p *parser) text(elem string) (string, error) {
	var sb strings.Builder
	for {
		tok, err := p.d.Token()
		if err != nil {
			return "", fmt.Errorf("%w: in <%s>: %w", ErrMalformed, elem, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.EndElement:
			return sb.String(), nil
		case xml.StartElement:
			return "", p.errorf("unexpected <%s> in <%s>", t.Name.Local, elem)
		}
	}
}

// params reads <param><value>…</value></param>… up to </params>.
func (p *parser) params() ([]any, error) {
	out := []any{}
	for {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return out, nil
		case xml.StartElement:
			if t.Name.Local != "param" {
				return nil, p.errorf("unexpected <%s> in <params>", t.Name.Local)
			}
			if err := p.expectStart("value"); err != nil {
				return nil, err
			}
			v, err := p.value(0)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			if err := p.expectEnd("param"); err != nil {
				return nil, err
			}
		}
	}
}

// value reads the inside of a <value> element that has just been opened,
// through its </value>.
func (p *parser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.errorf("values nested deeper than %d", maxDepth)
	}
	var text strings.Builder
	for {
		tok, err := p.d.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: in <value>: %w", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			// An untyped <value>text</value> is a string.
			return text.String(), nil
		case xml.StartElement:
			if strings.TrimSpace(text.String()) != "" {
				return nil, p.errorf("text mixed with <%s> in <value>", t.Name.Local)
			}
			v, err := p.typed(t.Name.Local, depth)
			if err != nil {
				return nil, err
			}
			return v, p.expectEnd("value")
		}
	}
}

func (p *parser) typed(kind string, depth int) (any, error) {
	switch kind {
	case "array":
		return p.array(depth)
	case "struct":
		return p.structure(depth)
	case "nil":
		if err := p.expectEnd("nil"); err != nil {
			return nil, err
		}
		return nil, nil
	}
	s, err := p.text(kind)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "string":
		return s, nil
	case "int", "i4", "i8":
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n < math.MinInt || n > math.MaxInt {
			return nil, p.errorf("bad <%s> %q", kind, truncate(s))
		}
		return int(n), nil
	case "boolean":
		switch strings.TrimSpace(s) {
		case "1":
			return true, nil
		case "0":
			return false, nil
		}
		return nil, p.errorf("bad <boolean> %q", truncate(s))
	case "double":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, p.errorf("bad <double> %q", truncate(s))
		}
		return f, nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
		if err != nil {
			return nil, p.errorf("bad <base64>: %v", err)
		}
		return b, nil
	case "dateTime.iso8601":
		t, err := time.Parse(isoLayout, strings.TrimSpace(s))
		if err != nil {
			return nil, p.errorf("bad <dateTime.iso8601> %q", truncate(s))
		}
		return t, nil
	}
	return nil, p.errorf("unknown value type <%s>", kind)
}

func (p *parser) array(depth int) (any, error) {
	if err := p.expectStart("data"); err != nil {
		return nil, err
	}
	out := []any{}
	for {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement: // </data>
			return out, p.expectEnd("array")
		case xml.StartElement:
			if t.Name.Local != "value" {
				return nil, p.errorf("unexpected <%s> in <data>", t.Name.Local)
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
}

func (p *parser) structure(depth int) (any, error) {
	out := map[string]any{}
	for {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement: // </struct>
			return out, nil
		case xml.StartElement:
			if t.Name.Local != "member" {
				return nil, p.errorf("unexpected <%s> in <struct>", t.Name.Local)
			}
			if err := p.expectStart("name"); err != nil {
				return nil, err
			}
			name, err := p.text("name")
			if err != nil {
				return nil, err
			}
			if err := p.expectStart("value"); err != nil {
				return nil, err
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			out[name] = v
			if err := p.expectEnd("member"); err != nil {
				return nil, err
			}
		}
	}
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
