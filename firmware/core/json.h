// A small JSON reader and writer, enough for stackchan.event.v1: the reader
// validates a whole document (RFC 8259, depth-limited) and exposes the
// members of a top-level object; nested values are kept as raw text. The core
// stays independent of ArduinoJson (MCU) and nlohmann-json (tests only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sc {
namespace json {

enum class Kind { Null, Bool, Number, String, Object, Array };

struct Member {
  std::string key;
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text;  // unescaped for String; raw JSON for Number/Object/Array
};

// Object is a parsed top-level object. Duplicate keys: the last one wins,
// as in JavaScript's JSON.parse.
struct Object {
  std::vector<Member> members;
  const Member* find(const char* key) const;
};

enum class ParseResult { Ok, NotObject, Invalid };

// ParseObject parses text[0..len). NotObject: valid JSON but not an object.
// maxDepth bounds nesting so hostile input cannot exhaust the stack.
ParseResult ParseObject(const char* text, size_t len, Object* out, int maxDepth = 32);

// Writer builds a compact object in the order members are added.
class Writer {
 public:
  Writer() { out_ = "{"; }
  Writer& str(const char* key, const std::string& v);
  Writer& boolean(const char* key, bool v);
  std::string finish() { return out_ + "}"; }

 private:
  void key(const char* k);
  std::string out_;
  bool first_ = true;
};

// AppendQuoted appends s as a JSON string literal (UTF-8 passed through,
// control characters, quote and backslash escaped).
void AppendQuoted(std::string* out, const std::string& s);

}  // namespace json

// ValidUtf8 reports whether data[0..len) is well-formed UTF-8 (no overlongs,
// no surrogates, nothing above U+10FFFF).
bool ValidUtf8(const uint8_t* data, size_t len);
inline bool ValidUtf8(const std::string& s) {
  return ValidUtf8(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

}  // namespace sc
