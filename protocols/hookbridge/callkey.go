package hookbridge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// CallKey names one tool call by what it does: a hash of the tool's name
// and its tool_input in canonical JSON (object keys sorted, no
// insignificant space, numbers as written). The PermissionRequest hook
// input carries no tool_use_id, but the PostToolUse of the same call
// carries the same tool_name and tool_input, so the two hooks, separate
// processes racing to the Pi, compute the same key and the Pi clears only
// the prompt whose call has finished. Key order and spacing may differ
// between the two inputs; the key does not.
//
// Two calls that do exactly the same thing share a key; a late
// PostToolUse of the first can then clear the second, which costs a
// terminal dialog, never a wrong decision.
func CallKey(tool string, input json.RawMessage) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(canonicalJSON(input))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// canonicalJSON re-encodes a JSON value with sorted keys. Input that is
// not JSON is returned as it is: both hooks see the same bytes then.
func canonicalJSON(b json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return b
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return b
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}
