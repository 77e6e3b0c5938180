// Package event splits Stack-chan dock EVENT messages into wire frames and
// reassembles them (spec §13).
//
// An EVENT message is at most [MaxMessage] bytes of UTF-8 JSON. The sender
// numbers its messages 1–65535 ([IDs]) and carries the number in the frame's
// stream id; chunk i of a message has sequence i, the first chunk has the
// START flag and the last the END flag (a one-chunk message has both).
//
// The [Reassembler] follows the Claude_Pi discard rules (§13.3): a framing
// error discards only the EVENT message it belongs to and is reported as an
// [*Error] for logging. Nothing here ever asks the caller to reset the link
// or stop audio, unlike the upstream firmware (§13.4).
//
// The package does no I/O; JSON parsing and routing live in package appevent.
package event
