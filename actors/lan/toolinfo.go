package lan

import (
	"encoding/json"
	"fmt"
)

// What Claude reads about Stack-chan's tools is the Pi's, not the dock's
// (issue 33 item 4b): a dock that lies about itself, or a spoofed one,
// could otherwise put instructions into Claude's context through a tool's
// description or its schema's. The dock's text never reaches Claude: a
// known tool gets the description below, any other a neutral one made from
// its name, and schemas lose their prose (stripSchema).

// knownTools are our firmware's tools (firmware/core/tools.cpp), by the
// name Claude calls them.
var knownTools = map[string]string{
	"set_expression": "Change Stack-chan's facial expression; it stays until changed again.",
	"look_at":        "Turn Stack-chan's eyes toward a direction.",
	"nod":            "Make Stack-chan nod (yes), 1 to 3 times.",
	"shake":          "Make Stack-chan shake its head (no), 1 to 3 times.",
	"say": "Show a short line (at most 120 characters, plain text) in Stack-chan's caption balloon, " +
		"where everyone in the room sees it. The person at the Pi approves each call on the Pi.",
}

// approvalFree are the tools the Pi runs without asking: each changes the
// face for a moment and says nothing. Every other tool, say and any tool
// the Pi does not know, waits for the person's yes on the Pi.
var approvalFree = map[string]bool{"set_expression": true, "look_at": true, "nod": true, "shake": true}

func needsApproval(name string) bool { return !approvalFree[name] }

// toolDescription is what Claude reads about the tool it calls name
// (dockName on the dock).
func toolDescription(name, dockName string) string {
	if d, ok := knownTools[name]; ok {
		return d
	}
	return fmt.Sprintf("A tool the docked Stack-chan offers as %q. Claude_Pi does not know what it does, "+
		"and does not pass on the robot's own description of it. The person at the Pi approves each call on the Pi.", dockName)
}

// proseKeys are the JSON Schema keywords that hold text for a reader
// rather than constraints.
var proseKeys = []string{"description", "title", "$comment", "examples"}

// stripSchema is the tool's JSON Schema without its prose, at every level
// where a schema can be. The constraints (types, enums, bounds) stay, so
// Claude still sends valid arguments and the CoreS3 still checks them. A
// schema that does not parse is returned as it is (apply in mcpserver
// skips a tool whose schema is not an object schema).
func stripSchema(raw json.RawMessage) json.RawMessage {
	var s any
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	stripSchemaValue(s)
	b, err := json.Marshal(s)
	if err != nil {
		return raw
	}
	return b
}

// Keywords whose value is a schema, a list of schemas, or a map of names
// to schemas (JSON Schema 2020-12 and draft 7).
var (
	schemaValued = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains",
		"propertyNames", "additionalItems", "unevaluatedItems", "unevaluatedProperties"}
	schemaListed = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaMapped = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

func stripSchemaValue(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, k := range proseKeys {
		delete(m, k)
	}
	for _, k := range schemaValued {
		stripSchemaValue(m[k])
	}
	for _, k := range schemaListed {
		if l, ok := m[k].([]any); ok {
			for _, s := range l {
				stripSchemaValue(s)
			}
		}
	}
	for _, k := range schemaMapped {
		if named, ok := m[k].(map[string]any); ok {
			for _, s := range named {
				stripSchemaValue(s)
			}
		}
	}
}
