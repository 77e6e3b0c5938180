// Package nus frames newline-delimited JSON over the Nordic UART Service,
// the GATT service the Claude Hardware Buddy link runs on (buddy spec §1, §3).
//
// The desktop writes each line in slices of at most 180 bytes, cut at
// arbitrary byte offsets (even inside a UTF-8 character); [Assembler] joins
// them back into lines at the byte level. In the other direction the device
// must put a whole line and its '\n' into one buffer and cut it into
// notifications of at most MTU−3 bytes; [AppendChunks] does that cut.
//
// The package is pure: no I/O, no goroutines. The caller owns ordering: all
// chunks of one line must be notified before any chunk of the next.
package nus

// GATT UUIDs of the Nordic UART Service (spec §1).
const (
	// ServiceUUID is the primary NUS service.
	ServiceUUID = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
	// RXUUID is the characteristic the desktop writes to (write without
	// response and write).
	RXUUID = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
	// TXUUID is the characteristic the device notifies on.
	TXUUID = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"
)
