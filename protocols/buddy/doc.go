// Package buddy decodes and encodes the Claude Hardware Buddy messages: the
// newline-delimited JSON objects the Claude desktop app and a Buddy device
// exchange over the Nordic UART Service (spec: buddy-protocol.md §3–§8).
//
// [Decode] takes one line (as produced by nus.Assembler) and returns one of
// the concrete [Message] types, dispatching in the spec's order: a key "ack"
// makes an [Ack], "cmd" a [Command], "evt" a [TurnEvent] or [OtherEvent],
// "time" a [TimeSync]; anything else is a [Heartbeat], or a [Keepalive]
// when no heartbeat key is present.
//
// Every encoder returns one complete line INCLUDING its trailing '\n', so
// the result can go straight to nus.AppendChunks: the newline must travel
// in the same buffer as the JSON (spec §3.3). AppendJSON methods append the
// object alone, without the newline.
//
// Strings are written the way the desktop's JSON.stringify writes them
// (only '"', '\\' and control characters escaped; U+2028, '<', '&' and all
// non-ASCII left as they are), so a prompt id echoed in a permission
// decision carries the same bytes the desktop sent.
//
// The package is pure: no I/O, no goroutines, no state between calls.
package buddy

// DeviceName is the appliance's name wherever it names itself: the local
// name it advertises (the desktop lists only devices whose name starts
// with "Claude", spec §2.1), the input its buttons decide as, and the
// device a terminal's hook was answered on. It is written here only.
const DeviceName = "Claude_Pi"
