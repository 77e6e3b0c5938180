// Package dock is the "dock" service: the USB host of an M5Stack CoreS3
// running Stack-chan dock firmware (spec shared/specs/stackchan-dock-protocol.md,
// host duties §19).
//
// The pure host type does the protocol: the HELLO handshake (our HELLO is
// exactly the contract's codex-dock-host payload, 0xF27 / 4096, resent every
// 500 ms for 8 s; the firmware must have 0x227), the approvals mirror
// (approval.request/presented/response/resolved/suspended), task.status,
// STATUS icons, the speech queue over session.SpeakerSender and the
// conversation.start/stop result cache. Captions and rates are gated on the
// firmware's bits: SPEAKER_TEXT (bit 6) is not in our HELLO because the
// contract pins the HELLO payload and the firmware never looks at the host's
// bit 6. Firmware without EVENT is accepted audio-only.
//
// The host keeps the port, HELLO, the wire and EVENT, the approvals
// mirror and trust. Its voice part (package voice: speech, voice, STT,
// follow-ups and the conversation) is embedded in it as a voice.Part and
// reaches it only through voice.Sink (voicesink.go), as the mirror does
// through mirrorSink; internal/layout_test.go keeps voice from importing
// the dock.
//
// Voice approval (voice/voice.go, stt.go): with an STT command configured and a
// firmware with MICROPHONE_PCM, the SPEAKER_DONE of a conversation summary
// that asked about a pending prompt opens the microphone (16 kHz, spec §11),
// records up to ListenFor, and runs the command on a WAV; yes-words approve
// and no-words deny that prompt once, By "voice".
//
// The Actor owns the serial port, a reader goroutine, the hotplug watcher,
// TTS goroutines and one timer; they only send messages to the actor, and
// all are cancelled on Stopping and awaited on Stopped.
package dock

// ServiceName is the dock service's name in the supervision tree.
const ServiceName = "dock"
