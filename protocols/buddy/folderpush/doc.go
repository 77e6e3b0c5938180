// Package folderpush is the device side of the Hardware Buddy folder push
// (buddy-protocol spec §8): the char_begin / file / chunk / file_end /
// char_end sequence that installs a character pack.
//
// The Receiver is a pure state machine. The actor decodes a command line,
// fills an Input, calls Apply with the current time and sends the Result as
// the command's ack. Storage is reached only through the FS interface, so the
// same machine runs against a real pack directory (temp files, fsync,
// rename) and against the in-memory fake in the memfs subpackage.
//
// Rules we add on top of the reference firmware (spec §8.2, §12 items 6-9):
// file names are plain names, every file must end at exactly its announced
// size, the pack is staged and swapped in atomically only after its
// manifest validates, and the previously installed pack survives every
// failure. Any rejected command inside a transfer abandons the transfer: the
// desktop stops at its first failed ack and never resumes, so keeping half a
// transfer alive would only pin a staging folder until the idle timeout.
package folderpush
