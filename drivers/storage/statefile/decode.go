package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// DecodeError is a decode failure with the Reason Load records.
type DecodeError struct {
	Reason Reason
	Err    error
}

func (e *DecodeError) Error() string { return e.Err.Error() }
func (e *DecodeError) Unwrap() error { return e.Err }

// Validator is a document that checks its own values after decoding.
type Validator interface{ Validate() error }

// DecodeJSON decodes data into v strictly: one JSON value of v's shape
// and nothing after it, no field v does not have, and, when v is a
// Validator, values it accepts. A file the appliance did not write, or
// one a power cut damaged, is refused as a whole rather than half
// applied. The error is a *DecodeError naming the damage.
func DecodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &DecodeError{Reason: jsonReason(err), Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &DecodeError{Reason: InvalidJSON, Err: errors.New("data after the JSON value")}
	}
	if val, ok := v.(Validator); ok {
		if err := val.Validate(); err != nil {
			return &DecodeError{Reason: Invalid, Err: err}
		}
	}
	return nil
}

// jsonReason classifies encoding/json's error.
func jsonReason(err error) Reason {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return Empty // nothing but white space
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Truncated
	case errors.As(err, &syn):
		return InvalidJSON
	case errors.As(err, &typ):
		return WrongType
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		// encoding/json has no type for it.
		return WrongType
	}
	return Invalid
}

// EncodeJSON is the form SaveJSON writes: indented, one trailing newline,
// so a person can read and diff the file.
func EncodeJSON(v any) ([]byte, error) {
	if val, ok := v.(Validator); ok {
		if err := val.Validate(); err != nil {
			return nil, err
		}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("statefile: encoding: %v", err)
	}
	return append(b, '\n'), nil
}

// LoadJSON is Load with DecodeJSON into a fresh T: it returns the decoded
// value, or def when the file is missing or damaged (dmg says which).
func LoadJSON[T any](d Dir, name string, max int64, def T) (v T, found bool, dmg *Damage) {
	found, dmg = d.Load(name, max, func(b []byte) error {
		var t T
		if err := DecodeJSON(b, &t); err != nil {
			return err
		}
		v = t
		return nil
	})
	if !found || dmg != nil {
		return def, found, dmg
	}
	return v, true, nil
}

// SaveJSON is Save of EncodeJSON(v).
func (d Dir) SaveJSON(name string, v any, perm os.FileMode) error {
	b, err := EncodeJSON(v)
	if err != nil {
		return fmt.Errorf("statefile: saving %s: %w", name, err)
	}
	return d.Save(name, b, perm)
}
