package ctlsock

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendMethodCall appends an encoded <methodCall> to dst.
func AppendMethodCall(dst []byte, method string, params ...any) ([]byte, error) {
	dst = append(dst, "<?xml version=\"1.0\"?>\n<methodCall><methodName>"...)
	dst = appendEscaped(dst, method)
	dst = append(dst, "</methodName><params>"...)
	for _, v := range params {
		var err error
		dst = append(dst, "<param><value>"...)
		if dst, err = appendValue(dst, v, 0); err != nil {
			return nil, err
		}
		dst = append(dst, "</value></param>"...)
	}
	return append(dst, "</params></methodCall>\n"...), nil
}

// AppendResponse appends an encoded successful <methodResponse> to dst.
func AppendResponse(dst []byte, v any) ([]byte, error) {
	dst = append(dst, "<?xml version=\"1.0\"?>\n<methodResponse><params><param><value>"...)
	dst, err := appendValue(dst, v, 0)
	if err != nil {
		return nil, err
	}
	return append(dst, "</value></param></params></methodResponse>\n"...), nil
}

// AppendFault appends an encoded fault <methodResponse> to dst.
func AppendFault(dst []byte, f *Fault) []byte {
	dst = append(dst, "<?xml version=\"1.0\"?>\n<methodResponse><fault><value>"...)
	dst, _ = appendValue(dst, f.toStruct(), 0) // int and string cannot fail
	return append(dst, "</value></fault></methodResponse>\n"...)
}

func appendValue(dst []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("xmlrpc: values nested deeper than %d", maxDepth)
	}
	var err error
	switch x := v.(type) {
	case nil:
		dst = append(dst, "<nil/>"...)
	case int:
		dst = appendInt(dst, int64(x))
	case int32:
		dst = appendInt(dst, int64(x))
	case int64:
		dst = appendInt(dst, x)
	case bool:
		if x {
			dst = append(dst, "<boolean>1</boolean>"...)
		} else {
			dst = append(dst, "<boolean>0</boolean>"...)
		}
	case string:
		dst = append(dst, "<string>"...)
		dst = appendEscaped(dst, x)
		dst = append(dst, "</string>"...)
	case float64:
		dst = append(dst, "<double>"...)
		dst = strconv.AppendFloat(dst, x, 'f', -1, 64)
		dst = append(dst, "</double>"...)
	case []byte:
		dst = append(dst, "<base64>"...)
		dst = base64.StdEncoding.AppendEncode(dst, x)
		dst = append(dst, "</base64>"...)
	case time.Time:
		dst = append(dst, "<dateTime.iso8601>"...)
		dst = x.UTC().AppendFormat(dst, isoLayout)
		dst = append(dst, "</dateTime.iso8601>"...)
	case []any:
		dst = append(dst, "<array><data>"...)
		for _, e := range x {
			dst = append(dst, "<value>"...)
			if dst, err = appendValue(dst, e, depth+1); err != nil {
				return nil, err
			}
			dst = append(dst, "</value>"...)
		}
		dst = append(dst, "</data></array>"...)
	case []string:
		dst = append(dst, "<array><data>"...)
		for _, e := range x {
			dst = append(dst, "<value><string>"...)
			dst = appendEscaped(dst, e)
			dst = append(dst, "</string></value>"...)
		}
		dst = append(dst, "</data></array>"...)
	case []map[string]any:
		dst = append(dst, "<array><data>"...)
		for _, e := range x {
			dst = append(dst, "<value>"...)
			if dst, err = appendValue(dst, e, depth+1); err != nil {
				return nil, err
			}
			dst = append(dst, "</value>"...)
		}
		dst = append(dst, "</data></array>"...)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // deterministic output for tests and diffs
		dst = append(dst, "<struct>"...)
		for _, k := range keys {
			dst = append(dst, "<member><name>"...)
			dst = appendEscaped(dst, k)
			dst = append(dst, "</name><value>"...)
			if dst, err = appendValue(dst, x[k], depth+1); err != nil {
				return nil, err
			}
			dst = append(dst, "</value></member>"...)
		}
		dst = append(dst, "</struct>"...)
	default:
		return nil, fmt.Errorf("xmlrpc: cannot encode %T", v)
	}
	return dst, nil
}

func appendInt(dst []byte, n int64) []byte {
	dst = append(dst, "<int>"...)
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, "</int>"...)
}

// appendEscaped writes s as XML character data. Characters XML 1.0 cannot
// carry at all (most C0 controls, e.g. the ESC of an ANSI colour code in a
// log line, and invalid UTF-8) become U+FFFD: supervisorctl's expat parser
// would otherwise reject the whole response. CR is written as a reference
// because parsers fold a literal CR into LF.
func appendEscaped(dst []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '&' && c != '<' && c != '>' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var rep string
		switch {
		case r == '&':
			rep = "&amp;"
		case r == '<':
			rep = "&lt;"
		case r == '>':
			rep = "&gt;"
		case r == '\r':
			rep = "&#13;"
		case r == '\n' || r == '\t':
			i += size
			continue
		case r == utf8.RuneError && size == 1, !xmlChar(r):
			rep = "\uFFFD"
		default:
			i += size
			continue
		}
		dst = append(dst, s[last:i]...)
		dst = append(dst, rep...)
		i += size
		last = i
	}
	return append(dst, s[last:]...)
}

func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
