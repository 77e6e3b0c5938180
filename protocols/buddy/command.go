package buddy

import "encoding/base64"

// Command is a {"cmd":...} line. Every command a device receives must get
// exactly one ack whose "ack" is CmdName() verbatim (spec §6.1), unknown
// commands included; a command whose arguments fail to decode comes back
// from [Decode] as a [*CommandError] instead, which also knows the name.
type Command interface {
	Message
	CmdName() string
}

// Owner is {"cmd":"owner","name":...}: the account's first name, sent on
// every connect. Name is non-empty.
type Owner struct{ Name string }

// SetName is {"cmd":"name","name":...}: the device's display name, set from
// the Hardware Buddy window. Name is non-empty.
type SetName struct{ Name string }

// Status is {"cmd":"status"}; answer with [EncodeStatus].
type Status struct{}

// Unpair is {"cmd":"unpair"}: ack first, then erase all bonds (spec §4.4).
type Unpair struct{}

// CharBegin starts a folder push (spec §8). Total is 0 when absent.
type CharBegin struct {
	Name  string
	Total int64
}

// File opens one file of a push. Path is unvalidated: plain-name checks are
// the push receiver's job.
type File struct {
	Path string
	Size int64
}

// Chunk carries up to 256 bytes of the open file as standard base64.
type Chunk struct {
	D string
}

// FileEnd closes the open file of a push.
type FileEnd struct{}

// CharEnd finishes a push.
type CharEnd struct{}

// Species is the reference firmware's {"cmd":"species","idx":N}; the
// desktop never sends it. Range checks are the device's.
type Species struct{ Idx int64 }

// Permission is {"cmd":"permission"}: the device's decision on a prompt.
// It travels device → desktop only; a device that receives one acks it as
// unknown (spec §6.1 rule 6).
type Permission struct {
	ID       string
	Decision Decision
}

// UnknownCommand is any other cmd. Ack it with
// AckFail(c.Cmd, 0, "unknown command").
type UnknownCommand struct{ Cmd string }

// Decision is a permission decision. Only [Once] and [Deny] exist: the zero
// value is Deny, so a forgotten initialisation fails closed, and nothing
// like "always" can be expressed (the protocol has no such decision).
type Decision struct{ approve bool }

// The two decisions (spec §7.1).
var (
	Once = Decision{approve: true} // approve this one tool call
	Deny = Decision{}
)

// String is the wire value, "once" or "deny".
func (d Decision) String() string {
	if d.approve {
		return "once"
	}
	return "deny"
}

// Names of the commands, as on the wire.
const (
	CmdOwner      = "owner"
	CmdName       = "name"
	CmdStatus     = "status"
	CmdUnpair     = "unpair"
	CmdCharBegin  = "char_begin"
	CmdFile       = "file"
	CmdChunk      = "chunk"
	CmdFileEnd    = "file_end"
	CmdCharEnd    = "char_end"
	CmdSpecies    = "species"
	CmdPermission = "permission"
)

// AppendDecoded appends the decoded chunk bytes to dst; a bad payload is an
// error the receiver acks as "bad base64".
func (c Chunk) AppendDecoded(dst []byte) ([]byte, error) {
	return base64.StdEncoding.AppendDecode(dst, []byte(c.D))
}

// CmdName implements [Command].
func (Owner) CmdName() string { return CmdOwner }

// CmdName implements [Command].
func (SetName) CmdName() string { return CmdName }

// CmdName implements [Command].
func (Status) CmdName() string { return CmdStatus }

// CmdName implements [Command].
func (Unpair) CmdName() string { return CmdUnpair }

// CmdName implements [Command].
func (CharBegin) CmdName() string { return CmdCharBegin }

// CmdName implements [Command].
func (File) CmdName() string { return CmdFile }

// CmdName implements [Command].
func (Chunk) CmdName() string { return CmdChunk }

// CmdName implements [Command].
func (FileEnd) CmdName() string { return CmdFileEnd }

// CmdName implements [Command].
func (CharEnd) CmdName() string { return CmdCharEnd }

// CmdName implements [Command].
func (Species) CmdName() string { return CmdSpecies }

// CmdName implements [Command].
func (Permission) CmdName() string { return CmdPermission }

// CmdName implements [Command].
func (c UnknownCommand) CmdName() string { return c.Cmd }

// Kind implements [Message].
func (Owner) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (SetName) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (Status) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (Unpair) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (CharBegin) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (File) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (Chunk) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (FileEnd) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (CharEnd) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (Species) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (Permission) Kind() Kind { return KindCommand }

// Kind implements [Message].
func (UnknownCommand) Kind() Kind { return KindCommand }
