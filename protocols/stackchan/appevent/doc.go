// Package appevent is the Stack-chan application event schema
// "stackchan.event.v1" (spec §14–§17) carried in EVENT messages: routing of
// the JSON, strict decoding of every v1 type, and encoders that produce the
// exact bytes upstream peers send.
//
// [Route] decides what a reassembled EVENT message is: an application event
// (schema "stackchan.event.v1"), a raw Realtime-shaped event (no schema key,
// §18) or something to drop. [Decode] parses and validates an application
// event into one of the typed messages ([ConversationStart],
// [ApprovalRequest], [TaskStatus], …); [Marshal] encodes one back with keys
// in upstream order (schema, type, requestId, then the type's fields).
//
// Validation follows the upstream firmware validators: listed fields must be
// present with the exact JSON type (null is not a string), enums are closed,
// requestId is a non-empty string, unknown keys are ignored. On top of that
// approval.request detail is limited to [MaxDetail] bytes (§14.3).
//
// The package does no I/O and keeps no state; retry and de-duplication
// timing for the actors is exported as data ([ConversationRetry]).
package appevent
