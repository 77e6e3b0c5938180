package appevent

import "time"

// Timing of the request/answer exchanges (spec §15–§17, §25). The actors
// drive their timers from these; the conversation values are pinned by the
// contract (conversationRequestRetry in application-event-vectors.json).
const (
	// ConversationRetryInterval: the firmware resends a pending
	// conversation.start/stop with the same requestId this often.
	ConversationRetryInterval = 2 * time.Second
	// ConversationTimeout: the firmware gives up on a request (state
	// blocked) this long after it was made.
	ConversationTimeout = 10 * time.Second
	// ConversationResultRetention: the host keeps each conversation.result
	// at least this long, to answer retries without acting twice.
	ConversationResultRetention = 10 * time.Second
	// ApprovalResendInterval: the host resends approval.request until
	// approval.presented, and the firmware resends approval.response until
	// approval.resolved, this often.
	ApprovalResendInterval = 2 * time.Second
	// TaskStatusRefresh: the host repeats task.status "running" this often
	// ([OURS], §17).
	TaskStatusRefresh = 30 * time.Second
)
