#include "apps.h"

#include <algorithm>

namespace sc {

const char* TransportStateName(TransportState s) {
  switch (s) {
    case TransportState::Disconnected: return "disconnected";
    case TransportState::Unsupported: return "unsupported";
    case TransportState::Ready: return "ready";
  }
  return "?";
}

// ---- conversation requests (§15.1)

const char kNoEventError[] = "the host has no EVENT (no conversation control)";

std::string ConversationRequests::Request(bool start, TransportState ts, uint32_t now) {
  if (pending() && start_ == start) return id_;  // same operation: reuse
  start_ = start;
  state_ = start ? ConvState::Connecting : ConvState::Standby;
  error_.clear();
  std::string id = "conversation-" + token_ + "-" + std::to_string(++n_);
  if (ts == TransportState::Unsupported) {  // an id, then blocked at once (§15.1): no frame, no timer
    fail(kNoEventError);
    return id;
  }
  id_ = id;
  sent_ = false;
  since_ = now;
  if (ts == TransportState::Ready) trySend(now);
  return id_;
}

void ConversationRequests::fail(const char* why) {
  refusals_++;
  id_.clear();
  state_ = ConvState::Blocked;
  error_ = why;
}

void ConversationRequests::trySend(uint32_t now) {
  std::string msg = start_ ? BuildConversationStart(id_) : BuildConversationStop(id_);
  lastSend_ = now;
  if (out_.SendEvent(msg) == SendResult::Queued) sent_ = true;
}

void ConversationRequests::Tick(TransportState ts, uint32_t now) {
  if (!pending()) return;
  if (Elapsed(now, since_) >= kConversationTimeoutMs) {
    fail("no conversation.result from the host within 10 s");
    return;
  }
  if (ts == TransportState::Unsupported) {
    fail(kNoEventError);
    return;
  }
  if (ts != TransportState::Ready) return;  // hold until ready
  if (!sent_ || Elapsed(now, lastSend_) >= kConversationRetryMs) trySend(now);
}

bool ConversationRequests::OnResult(const AppEvent& ev) {
  if (ev.type != AppType::ConversationResult || !pending() || ev.requestId != id_) return false;
  id_.clear();
  if (ev.success) {
    state_ = ev.state;
    error_ = ev.hasError ? ev.error : "";
  } else {
    refusals_++;
    state_ = ConvState::Blocked;
    error_ = ev.hasError && !ev.error.empty() ? ev.error : "the host refused the request";
  }
  return true;
}

// ---- text layout

namespace {
// cpLen returns the byte length of the code point starting at s[i] (1 for
// stray bytes, so broken text still advances).
size_t cpLen(const std::string& s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  return i + n > s.size() ? s.size() - i : n;
}
}  // namespace

std::vector<std::string> WrapColumns(const std::string& text, int cols) {
  std::vector<std::string> lines;
  std::string cur;
  int width = 0;
  for (size_t i = 0; i < text.size();) {
    size_t n = cpLen(text, i);
    if (text[i] == '\n') {
      lines.push_back(cur);
      cur.clear();
      width = 0;
      i++;
      continue;
    }
    if (text[i] == '\r') { i++; continue; }
    if (width == cols) {
      lines.push_back(cur);
      cur.clear();
      width = 0;
    }
    cur.append(text, i, n);
    width++;
    i += n;
  }
  if (!cur.empty() || lines.empty()) lines.push_back(cur);
  return lines;
}

std::string FitColumns(const std::string& text, int cols) {
  size_t i = 0;
  int w = 0;
  while (i < text.size() && w < cols) {
    i += cpLen(text, i);
    w++;
  }
  if (i >= text.size()) return text;
  // cut one more column for the ellipsis
  size_t j = 0;
  w = 0;
  while (j < text.size() && w < cols - 1) {
    j += cpLen(text, j);
    w++;
  }
  return text.substr(0, j) + "\xE2\x80\xA6";
}

// ---- approvals (§16.1)

std::vector<TextLine> SummaryPage(const std::vector<TextLine>& lines) {
  if (lines.size() <= size_t(kDetailRows)) return lines;
  // The Pi sends what fits (a follow-up is cut to one page before it is
  // shown), but a card never hides lines without saying so.
  std::vector<TextLine> page(lines.begin(), lines.begin() + (kDetailRows - 1));
  size_t hidden = lines.size() - page.size();
  page.push_back({Span{SpanKind::Text, "(+" + std::to_string(hidden) + " lines not shown; see detail)", 0}});
  return page;
}

SafeText ApprovalSession::detailText(const Entry& e) const {
  SafeText t = LayoutSafe(e.req.detail, kDetailColumns, has_);
  if (e.req.truncated) {
    t.lines.push_back({});
    t.lines.push_back({Span{SpanKind::Text, "(detail truncated by the host)", 0}});
  }
  return t;
}

int ApprovalSession::pages(const Entry& e) const {
  size_t lines = detailText(e).lines.size();
  return int((lines + kDetailRows - 1) / kDetailRows);
}

void ApprovalSession::present(uint32_t now) {
  if (q_.empty()) return;
  Entry& e = q_.front();
  changed_ = true;
  if (e.decided) {
    sendDecision(e, now);
  } else {
    out_.SendEvent(BuildApprovalPresented(e.req.requestId));
    e.lastSend = now;
  }
}

void ApprovalSession::sendDecision(Entry& e, uint32_t now) {
  out_.SendEvent(BuildApprovalResponse(e.req.requestId, e.approve));
  e.lastSend = now;
}

void ApprovalSession::OnRequest(const AppEvent& ev, uint32_t now) {
  for (size_t i = 0; i < q_.size(); i++) {
    Entry& e = q_[i];
    if (e.req.requestId != ev.requestId) continue;
    e.req = ev;
    e.suspended = false;
    if (e.stale && i == 0) changed_ = true;
    e.stale = false;
    int p = pages(e);
    if (e.page > p) e.page = p;
    if (i == 0) present(now);
    return;
  }
  if (q_.size() >= kMaxQueue) return;  // host keeps resending; it appears once there is room
  Entry e;
  e.req = ev;
  q_.push_back(e);
  if (q_.size() == 1) present(now);
}

void ApprovalSession::OnResolved(const std::string& id, uint32_t now) {
  for (size_t i = 0; i < q_.size(); i++) {
    if (q_[i].req.requestId != id) continue;
    q_.erase(q_.begin() + long(i));
    if (i == 0) {
      changed_ = true;
      present(now);
    }
    return;
  }
}

void ApprovalSession::OnSuspended(const std::string& id) {
  for (size_t i = 0; i < q_.size(); i++) {
    if (q_[i].req.requestId != id) continue;
    q_[i].suspended = true;
    if (i == 0) changed_ = true;
  }
}

void ApprovalSession::NewSession(uint32_t now) {
  if (helloSeen_ && Elapsed(now, helloAt_) < kRetransmittedHelloMs) return;
  helloSeen_ = true;
  helloAt_ = now;
  for (Entry& e : q_) e.stale = true;
  if (!q_.empty()) changed_ = true;
}

bool ApprovalSession::Decide(bool approve, uint32_t now) {
  if (q_.empty()) return false;
  Entry& e = q_.front();
  if (e.decided || e.suspended || e.stale) return false;
  e.decided = true;
  e.approve = approve;
  changed_ = true;
  sendDecision(e, now);
  return true;
}

void ApprovalSession::PageDetail() {
  if (q_.empty()) return;
  Entry& e = q_.front();
  int p = pages(e);
  e.page = e.page >= p ? 0 : e.page + 1;
  changed_ = true;
}

void ApprovalSession::Tick(uint32_t now) {
  if (helloSeen_ && Elapsed(now, helloAt_) >= kStaleGraceMs) dropStale(now);
  if (q_.empty()) return;
  Entry& e = q_.front();
  if (e.decided && !e.suspended && !e.stale && Elapsed(now, e.lastSend) >= kApprovalResendMs) sendDecision(e, now);
}

void ApprovalSession::dropStale(uint32_t now) {
  if (q_.empty()) return;
  bool headGone = q_.front().stale;
  q_.erase(std::remove_if(q_.begin(), q_.end(), [](const Entry& x) { return x.stale; }), q_.end());
  if (headGone) {
    changed_ = true;
    present(now);
  }
}

void ApprovalSession::Clear() {
  if (!q_.empty()) changed_ = true;
  q_.clear();
}

ApprovalView ApprovalSession::View() const {
  ApprovalView v;
  if (q_.empty()) return v;
  const Entry& e = q_.front();
  v.visible = true;
  v.requestId = e.req.requestId;
  v.kind = e.req.kind;
  bool titleHidden = false;
  v.titleLine = FitSafe(e.req.title, kTitleColumns, has_, &titleHidden);
  v.title = Plain(v.titleLine);
  v.pages = pages(e);
  v.page = e.page;
  v.decided = e.decided;
  v.approve = e.approve;
  v.suspended = e.suspended;
  v.stale = e.stale;
  v.buttonsEnabled = !e.decided && !e.suspended && !e.stale;
  SafeText summary = LayoutSafe(e.req.summary, kDetailColumns, has_);
  SafeText detail = detailText(e);
  v.hidden = titleHidden || summary.hidden || detail.hidden;
  std::vector<TextLine> all = e.page == 0 ? SummaryPage(summary.lines) : detail.lines;
  size_t from = e.page == 0 ? 0 : size_t(e.page - 1) * kDetailRows;
  for (size_t i = from; i < all.size() && i < from + kDetailRows; i++) {
    if (i > from) v.body += "\n";
    v.body += Plain(all[i]);
    v.lines.push_back(all[i]);
  }
  v.middleLabel = e.page == 0 ? "detail" : e.page < v.pages ? "next" : "summary";
  if (e.suspended) {
    v.statusLine = "waiting for reconnection";
  } else if (e.stale) {
    v.statusLine = "checking with the Pi...";
  } else if (e.decided) {
    v.statusLine = e.approve ? "sending OK..." : "sending NG...";
  } else if (v.hidden) {
    v.statusLine = "contains hidden characters";
    if (e.page > 0) v.statusLine += " " + std::to_string(e.page) + "/" + std::to_string(v.pages);
  } else if (e.page > 0) {
    v.statusLine = "detail " + std::to_string(e.page) + "/" + std::to_string(v.pages);
  } else {
    v.statusLine = e.req.kind == "fileChange" ? "file change approval request" : "command execution approval request";
  }
  return v;
}

}  // namespace sc
