#include "control.h"

#include <cstdio>

#include "json.h"

namespace sim {

Command ParseCommand(const std::string& raw) {
  std::string line = raw;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  size_t a = line.find_first_not_of(' ');
  line = a == std::string::npos ? "" : line.substr(a);
  Command c;
  if (line == "touch ok") c.kind = CommandKind::TouchOk;
  else if (line == "touch ng") c.kind = CommandKind::TouchNg;
  else if (line == "touch detail") c.kind = CommandKind::TouchDetail;
  else if (line == "swipe forward") c.kind = CommandKind::SwipeForward;
  else if (line == "swipe backward") c.kind = CommandKind::SwipeBackward;
  else if (line == "unplug") c.kind = CommandKind::Unplug;
  else if (line == "plug") c.kind = CommandKind::Plug;
  else c.error = "unknown command \"" + line + "\" (want touch ok|ng|detail, swipe forward|backward, unplug, plug)";
  return c;
}

namespace {
std::string kv(const char* ui, const char* key, const std::string& val) {
  return sc::json::Writer().str("ui", ui).str(key, val).finish();
}
}  // namespace

void JsonUi::Status(uint8_t v) { emit_(kv("status", "value", sc::StatusName(v))); }

void JsonUi::Task(bool running) { emit_(kv("task", "state", running ? "running" : "idle")); }

void JsonUi::Caption(const std::string& text) { emit_(kv("caption", "text", text)); }

void JsonUi::Mouth(float open) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "{\"ui\":\"mouth\",\"open\":%.1f}", double(open));
  emit_(buf);
}

void JsonUi::Approval(const sc::ApprovalView& v) {
  if (!v.visible) {
    emit_("{\"ui\":\"face\"}");
    return;
  }
  std::string s = sc::json::Writer()
                      .str("ui", "approval")
                      .str("requestId", v.requestId)
                      .str("kind", v.kind)
                      .str("title", v.title)
                      .str("body", v.body)
                      .str("statusLine", v.statusLine)
                      .str("middle", v.middleLabel)
                      .boolean("buttons", v.buttonsEnabled)
                      .finish();
  s.pop_back();
  s += ",\"page\":" + std::to_string(v.page) + ",\"pages\":" + std::to_string(v.pages) + "}";
  emit_(s);
}

void JsonUi::Conversation(sc::ConvState st, const std::string& error) {
  sc::json::Writer w;
  w.str("ui", "conversation").str("state", sc::ConvStateName(st));
  if (!error.empty()) w.str("error", error);
  emit_(w.finish());
}

void JsonUi::Link(sc::TransportState s) { emit_(kv("link", "state", sc::TransportStateName(s))); }

void JsonUi::AudioPlayed(uint64_t bytes, uint32_t rate, bool completed) {
  emit_("{\"audio\":\"" + std::string(completed ? "played" : "stopped") + "\",\"bytes\":" + std::to_string(bytes) +
        ",\"rate\":" + std::to_string(rate) + "}");
}

void JsonUi::Log(const char* line) { emit_(kv("log", "text", line)); }

}  // namespace sim
