// Conversation requests (§15.1), the approval queue (§16.1), the JSON reader
// and the EVENT reassembler's discard rules (§13.2).
#include <algorithm>

#include "appevent.h"
#include "apps.h"
#include "event.h"
#include "helpers.h"
#include "json.h"

using namespace sc;

namespace {
struct Out : EventSender {
  SendResult result = SendResult::Queued;
  std::vector<nlohmann::json> sent;
  SendResult SendEvent(const std::string& j) override {
    if (result == SendResult::Queued) sent.push_back(nlohmann::json::parse(j));
    return result;
  }
};
AppEvent ConvResult(const std::string& id, bool ok, ConvState st, const char* err = nullptr) {
  AppEvent e;
  e.type = AppType::ConversationResult;
  e.requestId = id;
  e.success = ok;
  e.state = st;
  if (err) {
    e.hasError = true;
    e.error = err;
  }
  return e;
}
AppEvent Request(const std::string& id, const std::string& detail = "d", bool truncated = false) {
  AppEvent e;
  e.type = AppType::ApprovalRequest;
  e.requestId = id;
  e.kind = "command";
  e.title = "Run tests";
  e.summary = "npm test";
  e.detail = detail;
  e.truncated = truncated;
  return e;
}
}  // namespace

TEST_CASE("conversation: ids conversation-<token>-<n>, resend every 2 s with the same id, blocked after 10 s") {
  Out out;
  ConversationRequests c(out, "a1b2c3d4");
  std::string id = c.Request(true, TransportState::Ready, 0);
  CHECK(id == "conversation-a1b2c3d4-1");
  CHECK(c.state() == ConvState::Connecting);
  REQUIRE(out.sent.size() == 1);
  CHECK(out.sent[0]["type"] == "conversation.start");
  CHECK(c.Request(true, TransportState::Ready, 100) == id);  // same op: same id, no event
  CHECK(out.sent.size() == 1);
  c.Tick(TransportState::Ready, 1999);
  CHECK(out.sent.size() == 1);
  c.Tick(TransportState::Ready, 2000);
  REQUIRE(out.sent.size() == 2);
  CHECK(out.sent[1]["requestId"] == id);
  for (uint32_t t = 2100; t < 10000; t += 100) c.Tick(TransportState::Ready, t);
  CHECK(out.sent.size() == 5);  // 0, 2, 4, 6, 8 s
  c.Tick(TransportState::Ready, 10000);
  CHECK(c.state() == ConvState::Blocked);
  CHECK_FALSE(c.pending());
  CHECK_FALSE(c.error().empty());
}

TEST_CASE("conversation: results for other ids are ignored; failure blocks with the host's error") {
  Out out;
  ConversationRequests c(out, "t");
  std::string id = c.Request(true, TransportState::Ready, 0);
  CHECK_FALSE(c.OnResult(ConvResult("other", true, ConvState::Listening)));
  CHECK(c.OnResult(ConvResult(id, true, ConvState::Listening)));
  CHECK(c.state() == ConvState::Listening);
  std::string stop = c.Request(false, TransportState::Ready, 0);
  CHECK(c.state() == ConvState::Standby);
  CHECK(stop == "conversation-t-2");
  CHECK(c.OnResult(ConvResult(stop, false, ConvState::Blocked, "not ready")));
  CHECK(c.state() == ConvState::Blocked);
  CHECK(c.error() == "not ready");
}

TEST_CASE("conversation: the other operation replaces the pending one; unsupported fails at once; disconnected holds") {
  Out out;
  ConversationRequests c(out, "t");
  std::string a = c.Request(true, TransportState::Disconnected, 0);
  CHECK(out.sent.empty());
  std::string b = c.Request(false, TransportState::Disconnected, 10);
  CHECK(a != b);
  c.Tick(TransportState::Ready, 500);
  REQUIRE(out.sent.size() == 1);
  CHECK(out.sent[0]["type"] == "conversation.stop");
  CHECK_FALSE(c.OnResult(ConvResult(a, true, ConvState::Listening)));  // forgotten
  // Without EVENT a request still gets its id, then is blocked at once
  // (spec §15.1): no frame, nothing pending, and no timer to resend it.
  std::string d = c.Request(true, TransportState::Unsupported, 600);
  CHECK(d == "conversation-t-3");
  CHECK(c.state() == ConvState::Blocked);
  CHECK(c.error() == kNoEventError);
  CHECK_FALSE(c.pending());
  c.Tick(TransportState::Ready, 5000);
  CHECK(out.sent.size() == 1);
  CHECK(c.Request(true, TransportState::Unsupported, 700) == "conversation-t-4");  // a fresh id each time
}

TEST_CASE("approvals: queue, presented for the head only, decisions resent every 2 s until resolved") {
  Out out;
  ApprovalSession s(out);
  s.OnRequest(Request("A"), 0);
  s.OnRequest(Request("B"), 0);
  REQUIRE(out.sent.size() == 1);
  CHECK(out.sent[0]["type"] == "approval.presented");
  CHECK(out.sent[0]["requestId"] == "A");
  CHECK(s.View().requestId == "A");
  CHECK(s.View().buttonsEnabled);
  CHECK(s.Decide(true, 100));
  CHECK_FALSE(s.Decide(false, 100));  // buttons disabled after a decision
  CHECK(out.sent.back()["decision"] == "approve");
  CHECK(s.View().statusLine == "sending OK...");
  s.Tick(2099);
  CHECK(out.sent.size() == 2);
  s.Tick(2100);
  CHECK(out.sent.size() == 3);
  s.OnSuspended("A");
  CHECK(s.View().statusLine == "waiting for reconnection");
  s.Tick(9000);
  CHECK(out.sent.size() == 3);  // retries paused
  s.OnRequest(Request("A"), 9000);  // lifts the suspension, resends the decision
  CHECK(out.sent.size() == 4);
  CHECK(out.sent.back()["type"] == "approval.response");
  s.OnResolved("A", 9100);
  REQUIRE(out.sent.size() == 5);
  CHECK(out.sent.back()["type"] == "approval.presented");
  CHECK(out.sent.back()["requestId"] == "B");
  s.OnResolved("zzz", 9200);  // unknown: ignored
  s.OnResolved("B", 9300);
  CHECK_FALSE(s.View().visible);
}

TEST_CASE("approvals: a duplicate request for a queued entry only updates it; resolved removes anywhere") {
  Out out;
  ApprovalSession s(out);
  s.OnRequest(Request("A"), 0);
  s.OnRequest(Request("B"), 0);
  AppEvent b2 = Request("B");
  b2.title = "New title";
  s.OnRequest(b2, 0);
  CHECK(out.sent.size() == 1);
  s.OnResolved("B", 0);
  CHECK(s.size() == 1);
  CHECK(out.sent.size() == 1);
}

TEST_CASE("approvals: after a new session (HELLO) what the host does not send again goes within 2.5 s") {
  // Issue 32.6: A was shown when USB went; the Pi decided A meanwhile and
  // now has C pending. A must not hide C behind working buttons.
  Out out;
  ApprovalSession s(out);
  s.OnRequest(Request("A"), 0);
  s.OnRequest(Request("B"), 0);
  out.sent.clear();
  s.NewSession(10000);
  CHECK(s.View().requestId == "A");
  CHECK(s.View().stale);
  CHECK_FALSE(s.View().buttonsEnabled);
  CHECK(s.View().statusLine == "checking with the Pi...");
  CHECK_FALSE(s.Decide(true, 10000));
  s.OnRequest(Request("C"), 10001);  // the host's pending set
  CHECK(out.sent.empty());           // C is queued behind A for now
  s.Tick(10000 + kStaleGraceMs - 1);
  CHECK(s.size() == 3);
  s.Tick(10000 + kStaleGraceMs);
  REQUIRE(s.size() == 1);  // A and B were not sent again
  CHECK(s.View().requestId == "C");
  CHECK(s.View().buttonsEnabled);
  REQUIRE(out.sent.size() == 1);
  CHECK(out.sent[0]["type"] == "approval.presented");
  CHECK(out.sent[0]["requestId"] == "C");
}

TEST_CASE("approvals: an entry sent again after HELLO keeps its decision; a retransmitted HELLO is not a new session") {
  Out out;
  ApprovalSession s(out);
  s.OnRequest(Request("X"), 0);
  CHECK(s.Decide(false, 10));  // NG while USB was gone
  out.sent.clear();
  s.NewSession(5000);
  s.OnRequest(Request("X"), 5001);
  CHECK_FALSE(s.View().stale);
  REQUIRE(out.sent.size() == 1);
  CHECK(out.sent[0]["type"] == "approval.response");
  CHECK(out.sent[0]["decision"] == "decline");
  s.NewSession(5000 + kRetransmittedHelloMs - 1);  // the same HELLO again
  CHECK_FALSE(s.View().stale);
  s.Tick(9000);
  CHECK(s.size() == 1);
  s.NewSession(20000);  // a real new session: stale again until sent
  CHECK(s.View().stale);
  s.Tick(20000 + kStaleGraceMs);
  CHECK(s.size() == 0);
  CHECK_FALSE(s.View().visible);
}

TEST_CASE("approvals: the detail pages through 36x8 and back to the summary; titles fit 30 columns") {
  Out out;
  ApprovalSession s(out);
  std::string detail;
  for (int i = 0; i < 20; i++) detail += "line " + std::to_string(i) + "\n";
  AppEvent r = Request("A", detail, true);
  r.title = std::string(40, 'T');
  s.OnRequest(r, 0);
  ApprovalView v = s.View();
  CHECK(v.title.size() == 29 + 3);  // 29 columns + "…"
  CHECK(v.middleLabel == "detail");
  CHECK(v.pages == 3);  // 21 lines (trailing empty) + 2 note lines = 23 -> 3 pages
  s.PageDetail();
  v = s.View();
  CHECK(v.page == 1);
  CHECK(v.body.rfind("line 0\n", 0) == 0);
  CHECK(v.statusLine == "detail 1/3");
  s.PageDetail();
  s.PageDetail();
  v = s.View();
  CHECK(v.middleLabel == "summary");
  CHECK(v.body.find("truncated") != std::string::npos);
  s.PageDetail();
  CHECK(s.View().page == 0);
  CHECK(WrapColumns(std::string(72, 'x'), 36).size() == 2);
  CHECK(WrapColumns("\xE3\x81\x82\xE3\x81\x84", 1).size() == 2);  // code points, not bytes
}

TEST_CASE("approvals: a summary longer than its page says how many lines it does not show") {
  Out out;
  ApprovalSession s(out);
  AppEvent r = Request("A");
  r.summary.clear();
  for (int i = 0; i < 10; i++) r.summary += std::string(kDetailColumns, char('a' + i));
  s.OnRequest(r, 0);
  ApprovalView v = s.View();
  REQUIRE(v.lines.size() == size_t(kDetailRows));
  CHECK(Plain(v.lines[6]) == std::string(kDetailColumns, 'g'));
  CHECK(Plain(v.lines[7]) == "(+3 lines not shown; see detail)");
  r.summary.resize(kDetailRows * kDetailColumns);  // exactly one page: all of it
  s.OnRequest(r, 0);
  v = s.View();
  REQUIRE(v.lines.size() == size_t(kDetailRows));
  CHECK(Plain(v.lines[7]) == std::string(kDetailColumns, 'h'));
}

// The Pi's card for issue 33's 526-character follow-up (actors/dock
// followupcard.go): the session, what is sent, and how much is not. The
// CoreS3 shows all of it on the first page, so what is sent was seen.
TEST_CASE("approvals: a follow-up card as the Pi cuts it is shown whole on its first page") {
  Out out;
  ApprovalSession s(out);
  AppEvent r = Request("followup-t-1");
  r.title = "Send to Claude?";
  r.summary =
      "To alice-mbp \xC2\xB7 web\nplease look at the failing deploy job and fix the config so that it passes, please "
      "look at the failing deploy job and fix the config so that it passes, please look at the failing deploy job "
      "and fix the config so that\n(310 more characters not sent)";
  r.detail = r.summary;
  s.OnRequest(r, 0);
  ApprovalView v = s.View();
  CHECK(v.lines.size() == size_t(kDetailRows));
  CHECK(v.body.find("not shown") == std::string::npos);
  std::string whole;
  for (const TextLine& l : v.lines) whole += Plain(l);
  std::string flat = r.summary;
  flat.erase(std::remove(flat.begin(), flat.end(), '\n'), flat.end());
  CHECK(whole == flat);
  CHECK(v.pages == 1);  // the detail is the same page
}

TEST_CASE("json reader: strict RFC 8259, escapes, depth limit, duplicate keys") {
  json::Object o;
  std::string in = R"({"a":"x\u00e9\ud83d\ude00\n","b":[1,{"c":null}],"n":-1.5e3,"t":true})";
  REQUIRE(json::ParseObject(in.data(), in.size(), &o) == json::ParseResult::Ok);
  CHECK(o.find("a")->text == "x\xC3\xA9\xF0\x9F\x98\x80\n");
  CHECK(o.find("b")->kind == json::Kind::Array);
  CHECK(o.find("n")->text == "-1.5e3");
  CHECK(o.find("t")->boolean);
  for (const char* bad : {"{", "{\"a\"}", "{\"a\":01}", "{\"a\":\"\\ud800\"}", "{\"a\":1,}", "{\"a\":tru}",
                          "{\"a\":\"\x01\"}", "{} x", "{\"a\":1.}", "{\"a\":\"\\x\"}"}) {
    CAPTURE(bad);
    CHECK(json::ParseObject(bad, std::strlen(bad), &o) == json::ParseResult::Invalid);
  }
  CHECK(json::ParseObject("[1]", 3, &o) == json::ParseResult::NotObject);
  std::string deep = std::string(100, '[') + std::string(100, ']');
  std::string wrapped = "{\"a\":" + deep + "}";
  CHECK(json::ParseObject(wrapped.data(), wrapped.size(), &o) == json::ParseResult::Invalid);
  std::string dup = R"({"k":"1","k":"2"})";
  REQUIRE(json::ParseObject(dup.data(), dup.size(), &o) == json::ParseResult::Ok);
  CHECK(o.find("k")->text == "2");
}

TEST_CASE("utf-8 validation rejects overlongs, surrogates and truncation") {
  auto v = [](const char* s) { return ValidUtf8(reinterpret_cast<const uint8_t*>(s), std::strlen(s)); };
  CHECK(v("h\xC3\xA9llo \xF0\x9F\x98\x80"));
  CHECK_FALSE(v("\xC0\xAF"));
  CHECK_FALSE(v("\xED\xA0\x80"));
  CHECK_FALSE(v("\xE3\x81"));
  CHECK_FALSE(v("\xF4\x90\x80\x80"));
  CHECK_FALSE(v("\xFF"));
}

TEST_CASE("event reassembly: zero id, first sequence, no start, too large, invalid UTF-8, restart, eviction") {
  EventReassembler r;
  auto frame = [](uint16_t id, uint16_t flags, uint32_t seq, const std::string& p) {
    static std::string keep;
    keep = p;
    Frame f;
    f.type = 6;
    f.stream = id;
    f.flags = flags;
    f.sequence = seq;
    f.payload = reinterpret_cast<const uint8_t*>(keep.data());
    f.length = uint32_t(keep.size());
    return f;
  };
  CHECK(r.Push(frame(0, 3, 0, "{}")).error == EventError::ZeroId);
  CHECK(r.Push(frame(1, 3, 1, "{}")).error == EventError::FirstSequence);
  CHECK(r.Push(frame(1, 2, 1, "{}")).error == EventError::NoStart);
  CHECK(r.Push(frame(2, 3, 0, "\xC3\x28")).error == EventError::InvalidUtf8);
  CHECK(r.Push(frame(3, 1, 0, "ab")).error == EventError::None);
  auto again = r.Push(frame(3, 3, 0, "xy"));  // START restarts the id
  CHECK(again.complete);
  CHECK(again.message == "xy");
  std::string chunk(4096, 'z');
  CHECK(r.Push(frame(4, 1, 0, chunk)).error == EventError::None);
  EventError last = EventError::None;
  for (uint32_t s = 1; s <= 16 && last == EventError::None; s++) last = r.Push(frame(4, 0, s, chunk)).error;
  CHECK(last == EventError::TooLarge);
  auto empty = r.Push(frame(5, 3, 0, ""));
  CHECK(empty.complete);
  CHECK(empty.message.empty());
  for (uint16_t id = 10; id < 20; id++) r.Push(frame(id, 1, 0, "x"));
  CHECK(r.pendingCount() == EventReassembler::kSlots);
  auto done = r.Push(frame(19, 2, 1, "y"));  // newest survives eviction
  CHECK(done.complete);
  CHECK(done.message == "xy");
}
