package wire

import (
	"errors"
	"fmt"
)

// Capability masks of §7.
const (
	// HostCaps is what our host advertises in HELLO: microphone, speaker,
	// credit, 24 kHz, status icon, stream id, EVENT, extended status (the
	// contract's codex-dock-host vector).
	HostCaps Caps = 0xF27
	// HostRequiredCaps is what our host requires from the firmware:
	// microphone, speaker, credit, 24 kHz and stream id. EVENT is not
	// required: firmware without it is accepted audio-only (§7, §9.4).
	HostRequiredCaps Caps = 0x227
	// EventRequiredCaps is HostRequiredCaps plus EVENT, what an
	// EVENT-required host (the Codex bridge) demands.
	EventRequiredCaps = HostRequiredCaps | CapEvent
	// FirmwareCaps is what release firmware advertises in HELLO_ACK:
	// everything except DIAGNOSTICS.
	FirmwareCaps Caps = 0xF7F
	// FirmwareDiagnosticCaps adds DIAGNOSTICS for diagnostic builds.
	FirmwareDiagnosticCaps Caps = 0xFFF
)

// HostHello is the payload of our host's HELLO.
var HostHello = HelloPayload{MaxPayload: MaxPayload, Caps: HostCaps}

// Policy is a host's answer to firmware that does not advertise EVENT
// (§9.4, contract connectionPolicy).
type Policy uint8

const (
	// PolicyAudioOnly accepts firmware without EVENT, audio only (the
	// Android dock; our host).
	PolicyAudioOnly Policy = iota
	// PolicyEventRequired refuses firmware without EVENT (the Codex bridge).
	PolicyEventRequired
)

// String names p as the contract vectors do.
func (p Policy) String() string {
	if p == PolicyEventRequired {
		return "codex"
	}
	return "android"
}

// ConnectionAllowed reports whether a host with policy p keeps the
// connection to firmware that advertised fw.
func (p Policy) ConnectionAllowed(fw Caps) bool {
	return p == PolicyAudioOnly || fw.Has(CapEvent)
}

// Negotiated is the outcome of a valid handshake, from the point of view of
// the side that validated the peer's HELLO or HELLO_ACK.
type Negotiated struct {
	// MaxPayload is the chunk limit for everything this side sends:
	// min(4096, peer's max payload).
	MaxPayload uint32
	// Own and Peer are the two capability sets as advertised.
	Own, Peer Caps
	// Event: both sides set bit 10, so EVENT frames may flow (§9.3).
	Event bool
	// StatusIcon: the firmware set bit 8, so the host may send STATUS 0–2.
	StatusIcon bool
	// StatusExtended: the firmware set bits 8 and 11, so STATUS 3–5 too.
	StatusExtended bool
}

// HandshakeError is a refused HELLO or HELLO_ACK. Code is the ERROR the
// firmware answers with (always INVALID_REQUEST on stream 0, §9.2); a host
// closes the port instead (§9.1).
type HandshakeError struct {
	Code   ErrorCode
	Reason string
}

// Error gives the reason the handshake was refused.
func (e *HandshakeError) Error() string { return "wire: handshake: " + e.Reason }

func handshakeErr(format string, args ...any) error {
	return &HandshakeError{Code: ErrInvalidRequest, Reason: fmt.Sprintf(format, args...)}
}

// CheckHelloAck is the host's validation of a HELLO_ACK (§9.1 step 4):
// CONTROL HELLO_ACK on stream 0, exactly 8 bytes, max payload 640–4096,
// every bit of required present. own is what the host sent in HELLO.
func CheckHelloAck(f Frame, own, required Caps) (Negotiated, error) {
	h, err := checkHelloFrame(f, CtrlHelloAck)
	if err != nil {
		return Negotiated{}, err
	}
	if h.MaxPayload < MinPeerPayload || h.MaxPayload > MaxPayload {
		return Negotiated{}, handshakeErr("HELLO_ACK max payload %d outside %d-%d", h.MaxPayload, MinPeerPayload, MaxPayload)
	}
	if missing := required &^ h.Caps; missing != 0 {
		return Negotiated{}, handshakeErr("firmware lacks required capabilities %s (advertised %#x)", missing, uint32(h.Caps))
	}
	return negotiated(h.MaxPayload, own, h.Caps, h.Caps), nil
}

// CheckHello is the firmware's validation of a HELLO (§9.2 steps 1–2):
// CONTROL HELLO on stream 0, exactly 8 bytes, max payload ≥ 640 and bit 9.
// On success the firmware resets its sessions and answers with
// HelloAckFrame(seq, n.Ack()). own is the firmware's capability set.
func CheckHello(f Frame, own Caps) (Negotiated, error) {
	h, err := checkHelloFrame(f, CtrlHello)
	if err != nil {
		return Negotiated{}, err
	}
	if h.MaxPayload < MinPeerPayload {
		return Negotiated{}, handshakeErr("HELLO max payload %d below %d", h.MaxPayload, MinPeerPayload)
	}
	if !h.Caps.Has(CapStreamID) {
		return Negotiated{}, handshakeErr("HELLO lacks STREAM_ID (capabilities %#x)", uint32(h.Caps))
	}
	return negotiated(min(h.MaxPayload, MaxPayload), own, h.Caps, own), nil
}

// Ack is the HELLO_ACK payload a firmware answers with: the negotiated max
// payload and its own capabilities.
func (n Negotiated) Ack() HelloPayload {
	return HelloPayload{MaxPayload: n.MaxPayload, Caps: n.Own}
}

func checkHelloFrame(f Frame, want Control) (HelloPayload, error) {
	if code, ok := f.Control(); !ok || code != want {
		return HelloPayload{}, handshakeErr("want %s, got %s frame with flags %d", want, f.Type, f.Flags)
	}
	if f.StreamID != 0 {
		return HelloPayload{}, handshakeErr("%s on stream %d, want 0", want, f.StreamID)
	}
	h, err := ParseHelloPayload(f.Payload)
	if err != nil {
		return HelloPayload{}, handshakeErr("%s payload is %d bytes, want 8", want, len(f.Payload))
	}
	return h, nil
}

func negotiated(maxPayload uint32, own, peer, firmware Caps) Negotiated {
	return Negotiated{
		MaxPayload:     maxPayload,
		Own:            own,
		Peer:           peer,
		Event:          own.Has(CapEvent) && peer.Has(CapEvent),
		StatusIcon:     firmware.Has(CapStatusIcon),
		StatusExtended: firmware.Has(CapStatusIcon | CapStatusExtended),
	}
}

// StatusToSend is the host's STATUS gate (§8): it returns the value to send
// for s, degrading LISTENING, CONNECTING and ERROR to IDLE when the firmware
// lacks extended status, and ok=false when the firmware has no status icon
// at all or s is out of range. Sending only on change is the caller's job.
func (n Negotiated) StatusToSend(s Status) (Status, bool) {
	switch {
	case !n.StatusIcon || s > StatusError:
		return 0, false
	case s > StatusSpeaking && !n.StatusExtended:
		return StatusIdle, true
	}
	return s, true
}

// ErrStatusNotAllowed is returned by FirmwareCheckStatus for a value the
// firmware's own capabilities do not allow.
var ErrStatusNotAllowed = errors.New("status value not allowed")

// FirmwareCheckStatus is the firmware's validation of a STATUS frame (§5,
// §8): stream 0, rate 0, one byte, 0–5 if its own caps have bit 11, else
// 0–2. Any error means ERROR 1 on the frame's stream.
func FirmwareCheckStatus(f Frame, own Caps) (Status, error) {
	if f.StreamID != 0 || f.SampleRate != 0 {
		return 0, fmt.Errorf("wire: STATUS on stream %d rate %d, want 0 and 0", f.StreamID, f.SampleRate)
	}
	s, err := ParseStatus(f.Payload)
	if err != nil {
		return 0, err
	}
	if s > StatusSpeaking && !own.Has(CapStatusExtended) {
		return 0, fmt.Errorf("wire: STATUS %s: %w without STATUS_EXTENDED", s, ErrStatusNotAllowed)
	}
	return s, nil
}

// EventDirections is the contract's eventNegotiation row for a host that
// advertised host and firmware that advertised fw. Each side "may send"
// when its peer advertised EVENT; conversation control needs both. Our
// senders use the stricter Negotiated.Event (= both), as upstream firmware
// rejects EVENT unless both advertised (§9.3, §23).
func EventDirections(host, fw Caps) (hostMaySend, firmwareMaySend, both bool) {
	h, f := host.Has(CapEvent), fw.Has(CapEvent)
	return f, h, h && f
}
