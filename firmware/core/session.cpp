#include "session.h"

#include <algorithm>

#include "json.h"

namespace sc {

namespace {

const json::Member* Str(const json::Object& o, const char* key) {
  const json::Member* m = o.find(key);
  return m && m->kind == json::Kind::String ? m : nullptr;
}

std::string Text(const json::Object& o, const char* key) {
  const json::Member* m = Str(o, key);
  return m ? m->text : std::string();
}

void Key(std::string* s, const char* k) {
  json::AppendQuoted(s, k);
  s->push_back(':');
}

std::string OutputItem(const std::string& eventId, const std::string& callId, const std::string& output) {
  std::string s = "{";
  Key(&s, "type");
  json::AppendQuoted(&s, "conversation.item.create");
  s += ",";
  Key(&s, "event_id");
  json::AppendQuoted(&s, eventId);
  s += ",";
  Key(&s, "item");
  s += "{";
  Key(&s, "type");
  json::AppendQuoted(&s, "function_call_output");
  s += ",";
  Key(&s, "call_id");
  json::AppendQuoted(&s, callId);
  s += ",";
  Key(&s, "output");
  json::AppendQuoted(&s, output);
  s += "}}";
  return s;
}

}  // namespace

std::string SessionUpdateJson(const std::string& eventId, const std::string& instructions,
                              const std::vector<ToolSpec>& catalog) {
  std::string s = "{";
  Key(&s, "type");
  json::AppendQuoted(&s, "session.update");
  s += ",";
  Key(&s, "event_id");
  json::AppendQuoted(&s, eventId);
  s += ",";
  Key(&s, "session");
  s += "{";
  Key(&s, "instructions");
  json::AppendQuoted(&s, instructions);
  s += ",";
  Key(&s, "tools");
  s += "[";
  for (size_t i = 0; i < catalog.size(); i++) {
    const ToolSpec& t = catalog[i];
    if (i) s += ",";
    s += "{";
    Key(&s, "type");
    json::AppendQuoted(&s, "function");
    s += ",";
    Key(&s, "name");
    json::AppendQuoted(&s, t.name);
    s += ",";
    Key(&s, "description");
    json::AppendQuoted(&s, t.description);
    s += ",";
    Key(&s, "parameters");
    s += t.parameters.empty() ? "{\"type\":\"object\"}" : t.parameters;
    s += "}";
  }
  s += "]}}";
  return s;
}

RealtimeSession::RealtimeSession(EventSender& out, ToolRunner& run, std::vector<ToolSpec> catalog,
                                 std::string instructions, std::string idPrefix)
    : out_(out), run_(run), catalog_(std::move(catalog)), instructions_(std::move(instructions)),
      prefix_(std::move(idPrefix)) {}

std::string RealtimeSession::nextId(const char* kind) {
  return prefix_ + "-" + kind + "-" + std::to_string(++n_);
}

void RealtimeSession::reset() {
  open_ = updateQueued_ = acked_ = false;
  updateId_.clear();
  update_.clear();
  pending_.clear();
  recent_.clear();
}

void RealtimeSession::drop(const char* why) {
  stats_.callsDropped++;
  lastDrop_ = why;
}

void RealtimeSession::OnTransport(TransportState ts) {
  if (ts != TransportState::Ready) reset();
}

void RealtimeSession::OnRaw(const std::string& text, TransportState ts, uint32_t now) {
  OnTransport(ts);
  if (ts != TransportState::Ready) return;
  json::Object o;
  if (json::ParseObject(text.data(), text.size(), &o) != json::ParseResult::Ok || o.find("schema")) return;
  std::string type = Text(o, "type");
  if (type == "session.created") {
    // A fresh session: whatever the host knew of the last one is gone.
    reset();
    open_ = true;
    updateId_ = nextId("update");
    update_ = SessionUpdateJson(updateId_, instructions_, catalog_);
    sendUpdate(now);
  } else if (type == "session.updated") {
    const json::Member* id = Str(o, "event_id");
    if (open_ && updateQueued_ && id && id->text == updateId_) acked_ = true;
  } else if (type == "response.function_call_arguments.done") {
    call(text, now);
  } else if (type == "error") {
    stats_.hostErrors++;
  }
  // conversation.item.created, response.output_item.added/done: nothing to do.
}

void RealtimeSession::sendUpdate(uint32_t now) {
  if (out_.SendEvent(update_) == SendResult::Queued) {
    updateQueued_ = true;
    updateNext_ = now + kSessionUpdateResendMs;
  } else {
    updateNext_ = now + kSessionUpdateRetryMs;
  }
}

void RealtimeSession::call(const std::string& text, uint32_t now) {
  json::Object o;
  if (json::ParseObject(text.data(), text.size(), &o) != json::ParseResult::Ok) return;
  const json::Member* tag = Str(o, "stackchan_session_update_id");
  if (!open_ || !acked_ || !tag || tag->text != updateId_) return drop("call of a stale or unacknowledged catalog");
  std::string callId = Text(o, "call_id");
  const json::Member* name = Str(o, "name");
  const json::Member* args = Str(o, "arguments");
  if (callId.empty() || !name || !args) return drop("call without call_id, name or arguments");
  if (std::find(recent_.begin(), recent_.end(), callId) != recent_.end()) return drop("call_id already run");
  if (pending_.size() >= kMaxPending) return drop("too many outputs waiting to be sent");
  recent_.push_back(callId);
  if (recent_.size() > kRecentCalls) recent_.pop_front();

  std::string output;
  json::Object argObj;
  bool known = std::any_of(catalog_.begin(), catalog_.end(), [&](const ToolSpec& t) { return t.name == name->text; });
  if (!known) {
    output = "error: no tool \"" + name->text.substr(0, 64) + "\"";
  } else if (json::ParseObject(args->text.data(), args->text.size(), &argObj) != json::ParseResult::Ok) {
    output = "error: arguments must be a JSON object";
  } else {
    stats_.callsRun++;
    output = run_.Run(name->text, args->text, now);
  }
  Output out;
  out.item = OutputItem(nextId("item"), callId, output);
  out.response = "{\"type\":\"response.create\",\"event_id\":";
  json::AppendQuoted(&out.response, nextId("resp"));
  out.response += "}";
  out.first = now;
  if (!trySend(out, now)) pending_.push_back(std::move(out));
}

bool RealtimeSession::trySend(Output& o, uint32_t now) {
  if (!o.itemQueued) {
    if (out_.SendEvent(o.item) != SendResult::Queued) {
      o.next = now + kOutputRetryMs;
      return false;
    }
    o.itemQueued = true;
  }
  if (out_.SendEvent(o.response) != SendResult::Queued) {
    o.next = now + kOutputRetryMs;
    return false;
  }
  return true;
}

void RealtimeSession::Tick(TransportState ts, uint32_t now) {
  OnTransport(ts);
  if (!open_) return;
  if (!acked_ && int32_t(now - updateNext_) >= 0) sendUpdate(now);
  for (size_t i = 0; i < pending_.size();) {
    Output& o = pending_[i];
    if (Elapsed(now, o.first) >= kOutputGiveUpMs) {
      stats_.outputsGivenUp++;
      pending_.erase(pending_.begin() + long(i));
      continue;
    }
    if (int32_t(now - o.next) >= 0 && trySend(o, now)) {
      pending_.erase(pending_.begin() + long(i));
      continue;
    }
    i++;
  }
}

}  // namespace sc
