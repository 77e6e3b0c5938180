// Application events stackchan.event.v1 (spec §14): routing of EVENT JSON,
// validation of every v1 type, and builders for what the firmware sends.
#pragma once

#include <cstddef>
#include <string>

namespace sc {

extern const char kAppSchema[];  // "stackchan.event.v1"
constexpr size_t kMaxApprovalDetail = 16384;

enum class AppType : uint8_t {
  ConversationStart,   // F→H
  ConversationStop,    // F→H
  ConversationResult,  // H→F
  ApprovalRequest,     // H→F
  ApprovalPresented,   // F→H
  ApprovalResponse,    // F→H
  ApprovalResolved,    // H→F
  ApprovalSuspended,   // H→F
  TaskStatus,          // H→F
};
const char* AppTypeName(AppType t);
bool IsInbound(AppType t);  // host → firmware

enum class ConvState : uint8_t { Standby, Connecting, Listening, Recognizing, Speaking, Blocked };
const char* ConvStateName(ConvState s);
bool ParseConvState(const std::string& s, ConvState* out);

// AppEvent holds any v1 event; which fields matter depends on type.
struct AppEvent {
  AppType type = AppType::TaskStatus;
  std::string requestId;
  // conversation.result
  bool success = false;
  ConvState state = ConvState::Standby;
  bool hasError = false;
  std::string error;
  // approval.request
  std::string kind, title, summary, detail;
  bool truncated = false;
  // approval.response: true = approve, false = decline
  bool approve = false;
  // approval.resolved
  bool hasMessage = false;
  std::string message;
  // task.status: true = running
  bool running = false;
};

enum class Route : uint8_t { Drop, Raw, Application };

struct Classified {
  Route route = Route::Drop;
  AppEvent event;            // valid when route == Application
  const char* reason = "";  // why it was dropped
};

// Classify routes one EVENT message (§14.1) and validates v1 events (§14.3)
// of both directions; the firmware then keeps only IsInbound types.
Classified Classify(const std::string& json);

// Serialize writes ev as compact JSON with the keys in the spec's order
// (schema, type, requestId, then the type's fields).
std::string Serialize(const AppEvent& ev);

// Builders for the firmware's outbound events.
std::string BuildConversationStart(const std::string& requestId);
std::string BuildConversationStop(const std::string& requestId);
std::string BuildApprovalPresented(const std::string& requestId);
std::string BuildApprovalResponse(const std::string& requestId, bool approve);

}  // namespace sc
