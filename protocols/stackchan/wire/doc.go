// Package wire is the Stack-chan dock wire protocol version 2: the 24-byte
// framed envelope shared by the host (our Raspberry Pi) and the CoreS3
// firmware, its control payloads, the resynchronising stream parser and the
// HELLO/HELLO_ACK negotiation rules.
//
// Spec: shared/specs/stackchan-dock-protocol.md §1–§9, §22, §25.
//
// The package is pure: no I/O, no goroutines, no clocks. Callers feed the
// bytes they read into a [Parser] and write what [AppendFrame] (or one of
// the control constructors plus AppendFrame) produces. On a live link they
// pass the time in ([Parser.FeedAt], [Parser.Expire]) and send
// [AppendFill] before HELLO: the cut-off frame extension of §4 in
// README.md.
//
// Frame layout (little-endian):
//
//	0  magic "CS" (43 53)   2  version 2   3  type 0..6
//	4  flags (control code for CONTROL, START/END for EVENT)
//	6  stream id   8  sequence   12  sample rate   16  payload length (≤ 4096)
//	20 payload     20+len  CRC-32 (IEEE) over header and payload
package wire
