// Application sessions of the firmware (spec §15-§17): conversation
// requests from head-touch gestures, the approval queue, and helpers for
// laying out approval text. Time is an argument (now_ms), never read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "appevent.h"
#include "safetext.h"

namespace sc {

enum class TransportState : uint8_t { Disconnected, Unsupported, Ready };
const char* TransportStateName(TransportState s);
enum class SendResult : uint8_t { Queued, Overflow, Disconnected, Unsupported };

// EventSender queues one application event for the host.
class EventSender {
 public:
  virtual ~EventSender() = default;
  virtual SendResult SendEvent(const std::string& json) = 0;
};

extern const char kNoEventError[];
constexpr uint32_t kConversationRetryMs = 2000;
constexpr uint32_t kConversationTimeoutMs = 10000;
constexpr uint32_t kApprovalResendMs = 2000;

// Elapsed is wrap-safe: now and then are uint32 millisecond clocks.
inline uint32_t Elapsed(uint32_t now, uint32_t then) { return now - then; }

// ConversationRequests: at most one pending start or stop request.
class ConversationRequests {
 public:
  ConversationRequests(EventSender& out, const std::string& bootToken) : out_(out), token_(bootToken) {}
  // Request starts (start=true) or stops; returns the request's id. When
  // the host lacks EVENT the request gets its id and is blocked at once
  // (state Blocked, error kNoEventError, nothing pending).
  std::string Request(bool start, TransportState ts, uint32_t now);
  // Tick resends every 2 s, times out after 10 s, reacts to the transport.
  void Tick(TransportState ts, uint32_t now);
  // OnResult applies a conversation.result; false if it was not for us.
  bool OnResult(const AppEvent& ev);

  ConvState state() const { return state_; }
  const std::string& error() const { return error_; }
  const std::string& pendingId() const { return id_; }
  bool pending() const { return !id_.empty(); }
  uint32_t counter() const { return n_; }
  // refusals counts requests that ended blocked, so a second identical
  // refusal is still news to the screen.
  uint32_t refusals() const { return refusals_; }

 private:
  void fail(const char* why);
  void trySend(uint32_t now);
  EventSender& out_;
  std::string token_;
  uint32_t n_ = 0, refusals_ = 0;
  std::string id_;
  bool start_ = false;
  bool sent_ = false;  // queued at least once
  uint32_t since_ = 0, lastSend_ = 0;
  ConvState state_ = ConvState::Standby;
  std::string error_;
};

// ApprovalView is what the screen shows for the head of the queue. The
// screen draws titleLine and lines (escape boxes included, see
// safetext.h); title and body are the same as strings, escapes as
// ⟨label⟩, for the simulator and tests.
struct ApprovalView {
  bool visible = false;
  std::string requestId, kind, title, body, statusLine, middleLabel;
  TextLine titleLine;
  std::vector<TextLine> lines;
  // hidden: the title, summary or detail has an invisible or deceptive
  // character; the status line says so on every page.
  bool hidden = false;
  int page = 0, pages = 0;  // page 0 = summary, 1..pages = detail pages
  bool buttonsEnabled = false;
  bool decided = false, approve = false, suspended = false;
  // stale: kept from before the host's last HELLO and not sent again yet;
  // dropped if the host does not send it within kStaleGraceMs.
  bool stale = false;
};

// After a new session (HELLO) the host sends exactly its pending set
// (spec §16.2: every request again, resent every 2 s until presented). An
// entry from before that it has not sent within one resend interval and a
// margin is one the host no longer has: it is dropped, so it never hides
// the host's next prompt behind working buttons.
constexpr uint32_t kStaleGraceMs = kApprovalResendMs + 500;
// A HELLO this soon after the previous one is the host retransmitting it
// (§9.1: every 500 ms until HELLO_ACK), not a new session.
constexpr uint32_t kRetransmittedHelloMs = 1000;

constexpr int kDetailColumns = 36;
constexpr int kDetailRows = 8;
constexpr int kTitleColumns = 30;

// SummaryPage is the summary's page: its lines when they fit kDetailRows,
// else the first kDetailRows-1 and a last line saying how many are not
// shown, so nothing is cut unseen.
std::vector<TextLine> SummaryPage(const std::vector<TextLine>& lines);

// WrapColumns splits UTF-8 text into lines of at most cols code points,
// breaking at newlines and at the column limit.
std::vector<std::string> WrapColumns(const std::string& text, int cols);
// FitColumns cuts text to cols code points, ending in "…" when cut.
std::string FitColumns(const std::string& text, int cols);

class ApprovalSession {
 public:
  static constexpr size_t kMaxQueue = 32;
  explicit ApprovalSession(EventSender& out) : out_(out) {}
  void OnRequest(const AppEvent& ev, uint32_t now);
  void OnResolved(const std::string& id, uint32_t now);
  void OnSuspended(const std::string& id);
  // NewSession is a HELLO: every entry becomes stale until the host sends
  // it again (see kStaleGraceMs).
  void NewSession(uint32_t now);
  // Disconnected is USB lost: the next HELLO is a new session however soon
  // it comes. The entries stay (a decision made meanwhile is resent).
  void Disconnected() { helloSeen_ = false; }
  // Decide is the OK (approve) / NG touch on the displayed entry.
  bool Decide(bool approve, uint32_t now);
  // Middle button: summary → detail pages → summary.
  void PageDetail();
  // SetGlyphs tells the layout which characters the screen's font draws
  // (the others show as U+XXXX boxes); nullptr: the Basic Multilingual Plane.
  void SetGlyphs(HasGlyph has) {
    has_ = has;
    changed_ = true;
  }
  void Tick(uint32_t now);
  void Clear();

  ApprovalView View() const;
  size_t size() const { return q_.size(); }
  // Changed reports (and clears) whether the view must be redrawn.
  bool TakeChanged() {
    bool c = changed_;
    changed_ = false;
    return c;
  }

 private:
  struct Entry {
    AppEvent req;
    bool decided = false, approve = false, suspended = false, stale = false;
    int page = 0;
    uint32_t lastSend = 0;
  };
  void present(uint32_t now);
  void sendDecision(Entry& e, uint32_t now);
  void dropStale(uint32_t now);
  int pages(const Entry& e) const;
  SafeText detailText(const Entry& e) const;
  EventSender& out_;
  std::vector<Entry> q_;
  bool changed_ = false;
  HasGlyph has_ = nullptr;
  bool helloSeen_ = false;
  uint32_t helloAt_ = 0;  // the last HELLO that started a session
};

}  // namespace sc
