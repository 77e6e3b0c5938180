#include "tools.h"

#include <cstdlib>
#include <cstring>

#include "json.h"
#include "safetext.h"

namespace sc {

const char* const kExpressions[] = {"neutral", "happy", "sad", "angry", "sleepy", "surprised", "doubtful", nullptr};
const char* const kDirections[] = {"center", "left", "right", "up", "down", nullptr};

namespace {

bool OneOf(const std::string& v, const char* const* list) {
  for (; *list; list++)
    if (v == *list) return true;
  return false;
}

std::string Enum(const char* const* list) {
  std::string s = "[";
  for (const char* const* p = list; *p; p++) {
    if (p != list) s += ",";
    json::AppendQuoted(&s, *p);
  }
  return s + "]";
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) n++;
  return n;
}

// Times reads the optional "times" argument: 1 when absent, an error text
// when it is not an integer 1..kMaxGestureTimes.
std::string Times(const json::Object& o, int* out) {
  *out = 1;
  const json::Member* m = o.find("times");
  if (!m) return "";
  char* end = nullptr;
  long v = m->kind == json::Kind::Number ? std::strtol(m->text.c_str(), &end, 10) : 0;
  if (m->kind != json::Kind::Number || !end || *end || v < 1 || v > kMaxGestureTimes)
    return "error: times must be an integer from 1 to " + std::to_string(kMaxGestureTimes);
  *out = int(v);
  return "";
}

const std::string* Arg(const json::Object& o, const char* key) {
  const json::Member* m = o.find(key);
  return m && m->kind == json::Kind::String ? &m->text : nullptr;
}

}  // namespace

std::vector<ToolSpec> CharacterTools::Catalog() {
  return {
      {"set_expression", "Change Stack-chan's facial expression; it stays until changed again.",
       "{\"type\":\"object\",\"properties\":{\"expression\":{\"type\":\"string\",\"enum\":" + Enum(kExpressions) +
           "}},\"required\":[\"expression\"],\"additionalProperties\":false}"},
      {"look_at", "Turn Stack-chan's eyes toward a direction.",
       "{\"type\":\"object\",\"properties\":{\"direction\":{\"type\":\"string\",\"enum\":" + Enum(kDirections) +
           "}},\"required\":[\"direction\"],\"additionalProperties\":false}"},
      {"nod", "Nod (yes). times: how many nods, 1 to 3.",
       "{\"type\":\"object\",\"properties\":{\"times\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3}},"
       "\"additionalProperties\":false}"},
      {"shake", "Shake the head (no). times: how many shakes, 1 to 3.",
       "{\"type\":\"object\",\"properties\":{\"times\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3}},"
       "\"additionalProperties\":false}"},
      {"say", "Show a short line in Stack-chan's caption balloon (at most 120 characters).",
       "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":120}},"
       "\"required\":[\"text\"],\"additionalProperties\":false}"},
  };
}

const char* CharacterTools::Instructions() {
  return "Stack-chan is a small desk robot with a face on a screen. Its tools change that face.";
}

uint32_t SayHoldMs(const std::string& text) {
  uint32_t ms = 2000 + uint32_t(CodePoints(text)) * 60;
  return ms > 8000 ? 8000 : ms;
}

std::string CharacterTools::Run(const std::string& name, const std::string& args, uint32_t now) {
  json::Object o;
  if (json::ParseObject(args.data(), args.size(), &o) != json::ParseResult::Ok)
    return "error: arguments must be a JSON object";
  if (name == "set_expression") {
    const std::string* e = Arg(o, "expression");
    if (!e || !OneOf(*e, kExpressions)) return "error: expression must be one of " + Enum(kExpressions);
    if (!face_.setExpression) return "error: this face cannot change expression";
    face_.setExpression(*e);
    return "expression is now " + *e;
  }
  if (name == "look_at") {
    const std::string* d = Arg(o, "direction");
    if (!d || !OneOf(*d, kDirections)) return "error: direction must be one of " + Enum(kDirections);
    if (!face_.lookAt) return "error: this face cannot move its eyes";
    face_.lookAt(*d, now);
    return "looking " + *d;
  }
  if (name == "nod" || name == "shake") {
    int times = 1;
    std::string err = Times(o, &times);
    if (!err.empty()) return err;
    auto& f = name == "nod" ? face_.nod : face_.shake;
    if (!f) return "error: this face cannot " + name;
    f(times, now);
    return (name == "nod" ? "nodded " : "shook its head ") + std::to_string(times) + (times == 1 ? " time" : " times");
  }
  if (name == "say") {
    const std::string* t = Arg(o, "text");
    if (!t || t->empty()) return "error: text must be a non-empty string";
    if (CodePoints(*t) > kMaxSayChars) return "error: text is longer than 120 characters";
    // The balloon shows only what it says: no invisible or deceptive
    // characters (bidi controls, zero-width, controls) in a caption.
    bool hidden = false;
    FitSafe(*t, 4 * int(kMaxSayChars), nullptr, &hidden);
    if (hidden) return "error: text has invisible or control characters; send plain text";
    if (!face_.say) return "error: this face has no caption balloon";
    face_.say(*t, SayHoldMs(*t), now);
    return "showing the caption";
  }
  return "error: no tool \"" + name.substr(0, 64) + "\"";
}

}  // namespace sc
