#include "appevent.h"

#include "json.h"

namespace sc {

const char kAppSchema[] = "stackchan.event.v1";

namespace {
struct TypeName {
  AppType t;
  const char* name;
};
constexpr TypeName kTypes[] = {
    {AppType::ConversationStart, "conversation.start"},
    {AppType::ConversationStop, "conversation.stop"},
    {AppType::ConversationResult, "conversation.result"},
    {AppType::ApprovalRequest, "approval.request"},
    {AppType::ApprovalPresented, "approval.presented"},
    {AppType::ApprovalResponse, "approval.response"},
    {AppType::ApprovalResolved, "approval.resolved"},
    {AppType::ApprovalSuspended, "approval.suspended"},
    {AppType::TaskStatus, "task.status"},
};
constexpr const char* kStates[] = {"standby", "connecting", "listening", "recognizing", "speaking", "blocked"};
}  // namespace

const char* AppTypeName(AppType t) {
  for (auto& e : kTypes)
    if (e.t == t) return e.name;
  return "?";
}

bool IsInbound(AppType t) {
  switch (t) {
    case AppType::ConversationResult:
    case AppType::ApprovalRequest:
    case AppType::ApprovalResolved:
    case AppType::ApprovalSuspended:
    case AppType::TaskStatus:
      return true;
    default:
      return false;
  }
}

const char* ConvStateName(ConvState s) { return kStates[int(s)]; }

bool ParseConvState(const std::string& s, ConvState* out) {
  for (int i = 0; i < 6; i++)
    if (s == kStates[i]) {
      *out = ConvState(i);
      return true;
    }
  return false;
}

namespace {

using json::Kind;
using json::Member;

const Member* str(const json::Object& o, const char* k) {
  const Member* m = o.find(k);
  return m && m->kind == Kind::String ? m : nullptr;
}
const Member* boolean(const json::Object& o, const char* k) {
  const Member* m = o.find(k);
  return m && m->kind == Kind::Bool ? m : nullptr;
}
bool strIs(const json::Object& o, const char* k, const char* want) {
  const Member* m = str(o, k);
  return m && m->text == want;
}

const char* validate(const json::Object& o, AppEvent* ev) {
  const Member* type = str(o, "type");
  if (!type) return "type is missing or not a string";
  bool known = false;
  for (auto& e : kTypes)
    if (type->text == e.name) {
      ev->type = e.t;
      known = true;
    }
  if (!known) return "unknown application event type";
  const Member* id = str(o, "requestId");
  if (!id) return "requestId is missing or not a string";
  if (id->text.empty()) return "requestId is empty";
  ev->requestId = id->text;
  switch (ev->type) {
    case AppType::ConversationStart:
      if (!strIs(o, "source", "headTouch") || !strIs(o, "gesture", "forwardSwipe"))
        return "conversation.start needs source headTouch and gesture forwardSwipe";
      break;
    case AppType::ConversationStop:
      if (!strIs(o, "source", "headTouch") || !strIs(o, "gesture", "backwardSwipe"))
        return "conversation.stop needs source headTouch and gesture backwardSwipe";
      break;
    case AppType::ConversationResult: {
      const Member* s = boolean(o, "success");
      if (!s) return "conversation.result success is not a boolean";
      ev->success = s->boolean;
      const Member* st = str(o, "state");
      if (!st || !ParseConvState(st->text, &ev->state)) return "conversation.result state is invalid";
      if (const Member* e = o.find("error")) {
        if (e->kind != Kind::String) return "conversation.result error is not a string";
        ev->hasError = true;
        ev->error = e->text;
      }
      break;
    }
    case AppType::ApprovalRequest: {
      const Member* k = str(o, "kind");
      if (!k || (k->text != "command" && k->text != "fileChange")) return "approval.request kind is invalid";
      const Member* t = str(o, "title");
      const Member* s = str(o, "summary");
      const Member* d = str(o, "detail");
      const Member* tr = boolean(o, "truncated");
      if (!t || !s || !d || !tr) return "approval.request needs title, summary, detail and truncated";
      if (d->text.size() > kMaxApprovalDetail) return "approval.request detail is above 16 KiB";
      ev->kind = k->text;
      ev->title = t->text;
      ev->summary = s->text;
      ev->detail = d->text;
      ev->truncated = tr->boolean;
      break;
    }
    case AppType::ApprovalPresented:
    case AppType::ApprovalSuspended:
      break;
    case AppType::ApprovalResponse: {
      const Member* d = str(o, "decision");
      if (!d || (d->text != "approve" && d->text != "decline")) return "approval.response decision is invalid";
      ev->approve = d->text == "approve";
      break;
    }
    case AppType::ApprovalResolved:
      if (const Member* m = o.find("message")) {
        if (m->kind != Kind::String) return "approval.resolved message is not a string";
        ev->hasMessage = true;
        ev->message = m->text;
      }
      break;
    case AppType::TaskStatus: {
      const Member* s = str(o, "state");
      if (!s || (s->text != "idle" && s->text != "running")) return "task.status state is invalid";
      ev->running = s->text == "running";
      break;
    }
  }
  return nullptr;
}

}  // namespace

Classified Classify(const std::string& text) {
  Classified c;
  json::Object o;
  switch (json::ParseObject(text.data(), text.size(), &o)) {
    case json::ParseResult::Invalid: c.reason = "broken JSON"; return c;
    case json::ParseResult::NotObject: c.reason = "not a JSON object"; return c;
    case json::ParseResult::Ok: break;
  }
  const Member* schema = o.find("schema");
  if (!schema) {
    c.route = Route::Raw;
    return c;
  }
  if (schema->kind != Kind::String || schema->text != kAppSchema) {
    c.reason = "foreign schema";
    return c;
  }
  if (const char* why = validate(o, &c.event)) {
    c.reason = why;
    return c;
  }
  c.route = Route::Application;
  return c;
}

std::string Serialize(const AppEvent& ev) {
  json::Writer w;
  w.str("schema", kAppSchema).str("type", AppTypeName(ev.type)).str("requestId", ev.requestId);
  switch (ev.type) {
    case AppType::ConversationStart:
      w.str("source", "headTouch").str("gesture", "forwardSwipe");
      break;
    case AppType::ConversationStop:
      w.str("source", "headTouch").str("gesture", "backwardSwipe");
      break;
    case AppType::ConversationResult:
      w.boolean("success", ev.success).str("state", ConvStateName(ev.state));
      if (ev.hasError) w.str("error", ev.error);
      break;
    case AppType::ApprovalRequest:
      w.str("kind", ev.kind).str("title", ev.title).str("summary", ev.summary).str("detail", ev.detail);
      w.boolean("truncated", ev.truncated);
      break;
    case AppType::ApprovalPresented:
    case AppType::ApprovalSuspended:
      break;
    case AppType::ApprovalResponse:
      w.str("decision", ev.approve ? "approve" : "decline");
      break;
    case AppType::ApprovalResolved:
      if (ev.hasMessage) w.str("message", ev.message);
      break;
    case AppType::TaskStatus:
      w.str("state", ev.running ? "running" : "idle");
      break;
  }
  return w.finish();
}

namespace {
std::string build(AppType t, const std::string& id, bool approve = false) {
  AppEvent ev;
  ev.type = t;
  ev.requestId = id;
  ev.approve = approve;
  return Serialize(ev);
}
}  // namespace

std::string BuildConversationStart(const std::string& id) { return build(AppType::ConversationStart, id); }
std::string BuildConversationStop(const std::string& id) { return build(AppType::ConversationStop, id); }
std::string BuildApprovalPresented(const std::string& id) { return build(AppType::ApprovalPresented, id); }
std::string BuildApprovalResponse(const std::string& id, bool approve) {
  return build(AppType::ApprovalResponse, id, approve);
}

}  // namespace sc
