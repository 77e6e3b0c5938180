// Package session is the media-session contract of the Stack-chan dock protocol
// (wire v2, spec §10-12) for both ends of the USB link, as pure state machines.
//
// Firmware side: MicGuard and SpeakerGuard decide what the CoreS3 does with each
// host control or PCM frame and return an Outcome: a Result (accepted,
// idempotent, stale, invalid, busy) plus the control frames to send back.
// Dock pairs them with the half-duplex rule and a simulated playback clock, so
// it doubles as the fake CoreS3 in host tests.
//
// Host side: SpeakerSender turns queued PCM and captions into credit-bounded
// SPEAKER_* frames; MicReceiver runs MIC_START/MIC_STOP and checks microphone
// frames, filling short sequence gaps with silence.
//
// Nothing here reads clocks, starts goroutines or does I/O: time arrives as a
// now argument or a duration, and outputs are values the caller sends.
package session
