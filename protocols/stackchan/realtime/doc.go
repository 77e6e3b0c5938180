// Package realtime is the host side of the dock's session layer: the
// Realtime-shaped raw events of spec §18 (EVENT JSON without a "schema"
// key) through which the CoreS3's firmware offers function tools and the
// host calls them.
//
// [Decode] validates one raw event; the encoders build what the host sends.
// [Host] is the pure state machine: session.created once EVENT is ready,
// the catalog from session.update acknowledged with session.updated (same
// event_id), one generation per catalog, calls tagged with
// stackchan_session_update_id and refused against any generation but the
// current one, function output matched to its call, and everything
// forgotten when the link drops or EVENT is no longer negotiated.
//
// The device is untrusted: its tool names, descriptions and outputs reach a
// language model, so Decode bounds every size, requires UTF-8 and names
// that are valid MCP tool names, and the host caps what it passes on.
//
// The rules are pinned by ../testdata/realtime-session-vectors.json, which
// the firmware core's counterpart (firmware/core/session.*) runs too.
package realtime
