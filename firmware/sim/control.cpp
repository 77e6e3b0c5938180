#include "control.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "json.h"
#include "raster.h"

namespace sim {

namespace {
// parseFinger reads "down X Y [ID]", "move X Y [ID]" and "up [ID]".
bool parseFinger(const std::string& line, Command* c) {
  std::istringstream in(line);
  std::string verb;
  in >> verb;
  bool up = verb == "up";
  if (!up && verb != "down" && verb != "move") return false;
  long x = 0, y = 0, id = 0;
  if (!up && !(in >> x >> y)) return false;
  if (!(in >> id)) {
    if (!in.eof()) return false;
    id = 0;
  }
  std::string rest;
  if (in.clear(), in >> rest) return false;
  if (id < 0 || id > 9 || x < -1000 || x > 1000 || y < -1000 || y > 1000) return false;
  c->kind = up ? CommandKind::FingerUp : verb == "down" ? CommandKind::FingerDown : CommandKind::FingerMove;
  c->x = int(x);
  c->y = int(y);
  c->id = uint8_t(id);
  return true;
}
}  // namespace

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
  else if (line == "swipe up") c.kind = CommandKind::SwipeUp;
  else if (line == "swipe down") c.kind = CommandKind::SwipeDown;
  else if (line.rfind("screenshot ", 0) == 0 && line.size() > 11) {
    c.kind = CommandKind::Screenshot;
    c.path = line.substr(11);
  }
  else if (line == "unplug") c.kind = CommandKind::Unplug;
  else if (line == "plug") c.kind = CommandKind::Plug;
  else if (!parseFinger(line, &c))
    c.error = "unknown command \"" + line +
              "\" (want touch ok|ng|detail, swipe forward|backward|up|down, down X Y [ID], move X Y [ID], up [ID], unplug, plug, screenshot PATH)";
  return c;
}

sc::TouchAction Touchscreen::feed(uint32_t now, bool approvalVisible) {
  return sc::ActionFor(classifier_.Update(now, fingers_.data(), fingers_.size()), approvalVisible);
}

sc::TouchAction Touchscreen::Apply(const Command& c, uint32_t now, bool visible) {
  auto finger = [](int x, int y, uint8_t id) {
    sc::TouchPoint p;
    p.id = id;
    p.x = int16_t(x);
    p.y = int16_t(y);
    return p;
  };
  auto find = [&](uint8_t id) {
    for (size_t i = 0; i < fingers_.size(); i++)
      if (fingers_[i].id == id) return long(i);
    return -1L;
  };
  auto tap = [&](const sc::Rect& r) {
    if (!fingers_.empty()) return sc::TouchAction::None;  // a real finger is down: a second one is ignored
    fingers_.push_back(finger(r.x + r.w / 2, r.y + r.h / 2, 0));
    feed(now, visible);
    fingers_.clear();
    return feed(now + 16, visible);
  };
  auto flick = [&](int from, int to, bool vertical = false) {
    if (!fingers_.empty()) return sc::TouchAction::None;
    fingers_.push_back(vertical ? finger(160, from, 0) : finger(from, 40, 0));
    feed(now, visible);
    fingers_[0] = vertical ? finger(160, to, 0) : finger(to, 40, 0);
    feed(now + 16, visible);
    fingers_.clear();
    return feed(now + 32, visible);
  };
  switch (c.kind) {
    case CommandKind::TouchOk: return tap(sc::kOkButtonRect);
    case CommandKind::TouchNg: return tap(sc::kNgButtonRect);
    case CommandKind::TouchDetail: return tap(sc::kMiddleButtonRect);
    case CommandKind::SwipeForward: return flick(80, 240);
    case CommandKind::SwipeBackward: return flick(240, 80);
    case CommandKind::SwipeUp: return flick(200, 120, true);  // below the head, 80 px up
    case CommandKind::SwipeDown: return flick(120, 200, true);
    case CommandKind::FingerDown:
    case CommandKind::FingerMove: {
      long i = find(c.id);
      if (i < 0) fingers_.push_back(finger(c.x, c.y, c.id));
      else fingers_[size_t(i)] = finger(c.x, c.y, c.id);
      return feed(now, visible);
    }
    case CommandKind::FingerUp: {
      long i = find(c.id);
      if (i >= 0) fingers_.erase(fingers_.begin() + i);
      return feed(now, visible);
    }
    default: return sc::TouchAction::None;
  }
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

void JsonUi::Volume(uint8_t percent, bool forcedZero) {
  std::string line = "{\"ui\":\"volume\",\"value\":" + std::to_string(percent);
  emit_(line + (forcedZero ? ",\"output\":0}" : "}"));
}

}  // namespace sim

namespace sim {

namespace {
std::vector<std::pair<std::string, std::string>> ReadSettings(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> kv;
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return kv;
  char line[256];
  while (std::fgets(line, sizeof line, f)) {
    std::string l(line);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    size_t eq = l.find('=');
    if (eq == std::string::npos || eq == 0) continue;  // not ours: skipped, rewritten without it
    kv.push_back({l.substr(0, eq), l.substr(eq + 1)});
  }
  std::fclose(f);
  return kv;
}
}  // namespace

bool FileSettings::Load(const char* key, std::string* value) {
  for (auto& p : ReadSettings(path_))
    if (p.first == key) {
      *value = p.second;
      return true;
    }
  return false;
}

bool FileSettings::Save(const char* key, const std::string& value) {
  auto kv = ReadSettings(path_);
  bool found = false;
  for (auto& p : kv)
    if (p.first == key) {
      p.second = value;
      found = true;
    }
  if (!found) kv.push_back({key, value});
  std::string text, err;
  for (auto& p : kv) text += p.first + "=" + p.second + "\n";
  if (!WriteFileAtomic(path_, text, &err)) {
    std::fprintf(stderr, "cores3-sim: settings: %s\n", err.c_str());
    return false;
  }
  return true;
}

}  // namespace sim
