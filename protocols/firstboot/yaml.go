package firstboot

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is a strict reader of the YAML that Raspberry Pi Imager writes
// for cloud-init (its CustomisationGenerator, read at rpi-imager 72ad1179):
// block mappings and sequences by indentation, plain, single- and
// double-quoted scalars, one-line flow sequences ("runcmd: - [ a, b ]") and
// literal blocks ("conf: |"). Anything else YAML allows (anchors, aliases,
// tags, flow mappings, folded blocks, several documents) is refused with
// the line it is on, rather than guessed at: a file we half understand must
// not half apply.

// maxInput bounds a seed file. Imager's largest user-data (Pi Connect's
// runcmd lines) is about 3 KiB.
const maxInput = 64 << 10

// maxDepth bounds nesting; Imager nests five deep (network-config's
// access point auth).
const maxDepth = 12

type nodeKind int

const (
	nullNode nodeKind = iota
	scalarNode
	mapNode
	seqNode
)

func (k nodeKind) String() string {
	return [...]string{"nothing", "a value", "a mapping", "a list"}[k]
}

// node is one YAML value. A mapping keeps its keys in file order.
type node struct {
	kind   nodeKind
	line   int
	value  string // scalarNode
	quoted bool   // scalarNode: written in quotes (so never null or a bool)
	keys   []string
	vals   []*node
	items  []*node
}

// get is the value under key in a mapping, or nil.
func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// SyntaxError is a seed file that is not the YAML subset Imager writes.
type SyntaxError struct {
	Line int // 1-based
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

type srcLine struct {
	num    int
	indent int
	text   string // without the indentation
	raw    string // the whole line, for literal blocks
}

type yamlParser struct {
	lines []srcLine
	pos   int
	depth int
}

func syntaxErr(line int, format string, a ...any) error {
	return &SyntaxError{Line: line, Msg: fmt.Sprintf(format, a...)}
}

// parseYAML reads one document. An empty document (only comments) is a
// null node.
func parseYAML(src []byte) (*node, error) {
	if len(src) > maxInput {
		return nil, fmt.Errorf("%d bytes: more than the %d a seed file may have", len(src), maxInput)
	}
	text := string(src)
	if !isValidText(text) {
		return nil, fmt.Errorf("not UTF-8 text, or holds control characters other than tab")
	}
	p := &yamlParser{}
	for i, raw := range strings.Split(text, "\n") {
		raw = strings.TrimSuffix(raw, "\r")
		trimmed := strings.TrimLeft(raw, " ")
		indent := len(raw) - len(trimmed)
		if strings.HasPrefix(trimmed, "\t") {
			return nil, syntaxErr(i+1, "a tab in the indentation (YAML indents with spaces)")
		}
		p.lines = append(p.lines, srcLine{num: i + 1, indent: indent, text: strings.TrimRight(trimmed, " \t"), raw: raw})
	}
	p.skipBlank()
	if p.pos == len(p.lines) {
		return &node{kind: nullNode, line: 1}, nil
	}
	first := p.lines[p.pos]
	if first.text == "---" || first.text == "..." || strings.HasPrefix(first.text, "%") {
		return nil, syntaxErr(first.num, "document markers and directives are not what Imager writes")
	}
	n, err := p.block(first.indent)
	if err != nil {
		return nil, err
	}
	p.skipBlank()
	if p.pos < len(p.lines) {
		l := p.lines[p.pos]
		return nil, syntaxErr(l.num, "unexpected indentation (%d spaces) after the document", l.indent)
	}
	return n, nil
}

// isValidText: UTF-8, and no control characters but tab, CR and LF.
func isValidText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return false
		}
	}
	return true
}

// skipBlank moves past blank and comment-only lines.
func (p *yamlParser) skipBlank() {
	for p.pos < len(p.lines) {
		t := p.lines[p.pos].text
		if t != "" && !strings.HasPrefix(t, "#") {
			return
		}
		p.pos++
	}
}

func isSeqItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// block reads the mapping or list whose lines start at indent.
func (p *yamlParser) block(indent int) (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	l := p.lines[p.pos]
	if p.depth > maxDepth {
		return nil, syntaxErr(l.num, "nested more than %d deep", maxDepth)
	}
	if isSeqItem(l.text) {
		return p.seq(indent)
	}
	return p.mapping(indent)
}

func (p *yamlParser) mapping(indent int) (*node, error) {
	n := &node{kind: mapNode, line: p.lines[p.pos].num}
	for {
		p.skipBlank()
		if p.pos == len(p.lines) {
			return n, nil
		}
		l := p.lines[p.pos]
		if l.indent < indent {
			return n, nil
		}
		if l.indent > indent {
			return nil, syntaxErr(l.num, "unexpected indentation (%d spaces, the mapping above has %d)", l.indent, indent)
		}
		if isSeqItem(l.text) {
			return nil, syntaxErr(l.num, "a list item where a key was expected")
		}
		key, rest, err := splitKey(l.text, l.num)
		if err != nil {
			return nil, err
		}
		if n.get(key) != nil {
			return nil, syntaxErr(l.num, "key %q appears twice", key)
		}
		p.pos++
		v, err := p.value(rest, indent, l.num, true)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, key)
		n.vals = append(n.vals, v)
	}
}

func (p *yamlParser) seq(indent int) (*node, error) {
	n := &node{kind: seqNode, line: p.lines[p.pos].num}
	for {
		p.skipBlank()
		if p.pos == len(p.lines) {
			return n, nil
		}
		l := p.lines[p.pos]
		if l.indent < indent || l.indent == indent && !isSeqItem(l.text) {
			return n, nil
		}
		if l.indent > indent {
			return nil, syntaxErr(l.num, "unexpected indentation (%d spaces, the list above has %d)", l.indent, indent)
		}
		rest := strings.TrimLeft(strings.TrimPrefix(l.text, "-"), " ")
		if rest != "" && !strings.HasPrefix(rest, "\"") && !strings.HasPrefix(rest, "'") && !strings.HasPrefix(rest, "[") {
			if _, _, err := splitKey(rest, l.num); err == nil {
				return nil, syntaxErr(l.num, "a mapping inside a list item is not what Imager writes")
			}
		}
		p.pos++
		v, err := p.value(rest, indent, l.num, false)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
	}
}

// value reads what follows "key:" or "-" on line num: an inline value, a
// literal block, or a nested block on the next lines. inMap allows the
// YAML form Imager uses for "packages:", a list at the key's own indent.
func (p *yamlParser) value(rest string, indent, num int, inMap bool) (*node, error) {
	if rest == "|" || rest == "|-" {
		return p.literal(indent, num, rest == "|-"), nil
	}
	if rest != "" {
		return inlineValue(rest, num)
	}
	p.skipBlank()
	if p.pos < len(p.lines) {
		next := p.lines[p.pos]
		if next.indent > indent {
			return p.block(next.indent)
		}
		if inMap && next.indent == indent && isSeqItem(next.text) {
			return p.seq(indent)
		}
	}
	return &node{kind: nullNode, line: num}, nil
}

// literal reads a "|" block: the lines indented more than the key, with
// the first line's indentation taken off each.
func (p *yamlParser) literal(indent, num int, strip bool) *node {
	var out []string
	blockIndent := -1
	for p.pos < len(p.lines) {
		l := p.lines[p.pos]
		if l.text == "" {
			out = append(out, "")
			p.pos++
			continue
		}
		if l.indent <= indent {
			break
		}
		if blockIndent < 0 {
			blockIndent = l.indent
		}
		if l.indent < blockIndent {
			break
		}
		out = append(out, l.raw[blockIndent:])
		p.pos++
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	s := strings.Join(out, "\n")
	if !strip && s != "" {
		s += "\n"
	}
	return &node{kind: scalarNode, line: num, value: s, quoted: true}
}

// splitKey splits "key: rest" (rest may be empty). Keys are plain or
// double-quoted (network-config's SSIDs).
func splitKey(text string, num int) (key, rest string, err error) {
	if strings.HasPrefix(text, "\"") {
		k, after, err := doubleQuoted(text, num)
		if err != nil {
			return "", "", err
		}
		if !strings.HasPrefix(after, ":") {
			return "", "", syntaxErr(num, "want ':' after the quoted key")
		}
		after = after[1:]
		if after != "" && after[0] != ' ' {
			return "", "", syntaxErr(num, "want a space after ':'")
		}
		return k, strings.TrimSpace(after), nil
	}
	i := strings.Index(text, ": ")
	if i < 0 {
		if !strings.HasSuffix(text, ":") {
			return "", "", syntaxErr(num, "want 'key: value', got %q", clip(text))
		}
		i = len(text) - 1
	}
	key = text[:i]
	if key == "" || strings.ContainsAny(key[:1], "\"'[]{}&*!|>%@`#,?") {
		return "", "", syntaxErr(num, "key %q is not a plain name", clip(key))
	}
	return key, strings.TrimSpace(text[i+1:]), nil
}

// inlineValue reads a value written on its key's line.
func inlineValue(s string, num int) (*node, error) {
	switch s[0] {
	case '"':
		v, after, err := doubleQuoted(s, num)
		if err != nil {
			return nil, err
		}
		if err := onlyComment(after, num); err != nil {
			return nil, err
		}
		return &node{kind: scalarNode, line: num, value: v, quoted: true}, nil
	case '\'':
		v, after, err := singleQuoted(s, num)
		if err != nil {
			return nil, err
		}
		if err := onlyComment(after, num); err != nil {
			return nil, err
		}
		return &node{kind: scalarNode, line: num, value: v, quoted: true}, nil
	case '[':
		return flowSeq(s, num)
	case '{', '&', '*', '!', '>', '|', '%', '@', '`':
		return nil, syntaxErr(num, "%q: flow mappings, anchors, aliases, tags and folded text are not what Imager writes", clip(s))
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimRight(s[:i], " ")
	}
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
		return nil, syntaxErr(num, "%q: a plain value may not hold ': ' (quote it)", clip(s))
	}
	if s == "~" || s == "null" || s == "Null" || s == "NULL" {
		return &node{kind: nullNode, line: num}, nil
	}
	return &node{kind: scalarNode, line: num, value: s}, nil
}

func onlyComment(after string, num int) error {
	after = strings.TrimLeft(after, " ")
	if after != "" && !strings.HasPrefix(after, "#") {
		return syntaxErr(num, "%q after the closing quote", clip(after))
	}
	return nil
}

// flowSeq reads "[ a, 'b', "c" ]" on one line: scalars only.
func flowSeq(s string, num int) (*node, error) {
	n := &node{kind: seqNode, line: num}
	rest := strings.TrimLeft(s[1:], " ")
	if strings.HasPrefix(rest, "]") {
		return n, onlyComment(rest[1:], num)
	}
	for {
		var item *node
		switch {
		case rest == "":
			return nil, syntaxErr(num, "the list opened with '[' is not closed on its line")
		case rest[0] == '"' || rest[0] == '\'':
			var v string
			var err error
			if rest[0] == '"' {
				v, rest, err = doubleQuoted(rest, num)
			} else {
				v, rest, err = singleQuoted(rest, num)
			}
			if err != nil {
				return nil, err
			}
			item = &node{kind: scalarNode, line: num, value: v, quoted: true}
		case strings.ContainsRune("[{&*!|>", rune(rest[0])):
			return nil, syntaxErr(num, "nested lists, mappings, anchors and tags in a '[...]' list are not what Imager writes")
		default:
			end := strings.IndexAny(rest, ",]")
			if end < 0 {
				return nil, syntaxErr(num, "the list opened with '[' is not closed on its line")
			}
			v := strings.TrimRight(rest[:end], " ")
			if v == "" {
				return nil, syntaxErr(num, "an empty item in a '[...]' list")
			}
			item = &node{kind: scalarNode, line: num, value: v}
			rest = rest[end:]
		}
		n.items = append(n.items, item)
		rest = strings.TrimLeft(rest, " ")
		switch {
		case strings.HasPrefix(rest, ","):
			rest = strings.TrimLeft(rest[1:], " ")
		case strings.HasPrefix(rest, "]"):
			return n, onlyComment(rest[1:], num)
		default:
			return nil, syntaxErr(num, "want ',' or ']' in the '[...]' list")
		}
	}
}

func singleQuoted(s string, num int) (value, after string, err error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), s[i+1:], nil
	}
	return "", "", syntaxErr(num, "a single-quoted value is not closed on its line")
}

// doubleQuoted reads a "..." value with YAML's escapes. One departure,
// on purpose: \xHH is the byte HH, not the code point U+00HH. Imager
// writes an SSID's octets that way (yamlEscapeSsidOctets: every byte
// outside printable ASCII as \xHH), so "caf\xc3\xa9" means the UTF-8 of
// "café", the octets its PSK was derived from.
func doubleQuoted(s string, num int) (value, after string, err error) {
	var b []byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return string(b), s[i+1:], nil
		case '\\':
			if i+1 >= len(s) {
				return "", "", syntaxErr(num, "a '\\' at the end of the line")
			}
			i++
			switch e := s[i]; e {
			case '\\', '"', '/':
				b = append(b, e)
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case '0':
				b = append(b, 0)
			case ' ':
				b = append(b, ' ')
			case 'x':
				if i+2 >= len(s) {
					return "", "", syntaxErr(num, "\\x wants two hex digits")
				}
				v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
				if err != nil {
					return "", "", syntaxErr(num, "\\x%s: want two hex digits", s[i+1:i+3])
				}
				b = append(b, byte(v))
				i += 2
			case 'u':
				if i+4 >= len(s) {
					return "", "", syntaxErr(num, "\\u wants four hex digits")
				}
				v, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
				if err != nil {
					return "", "", syntaxErr(num, "\\u%s: want four hex digits", s[i+1:i+5])
				}
				b = append(b, string(rune(v))...)
				i += 4
			default:
				return "", "", syntaxErr(num, "escape \\%c is not one Imager writes", e)
			}
		default:
			b = append(b, c)
		}
	}
	return "", "", syntaxErr(num, "a double-quoted value is not closed on its line")
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
