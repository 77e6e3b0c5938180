#include "json.h"

#include <cstdint>

namespace sc {

bool ValidUtf8(const uint8_t* s, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t c = s[i];
    if (c < 0x80) { i++; continue; }
    size_t k;
    uint32_t cp, min;
    if ((c & 0xE0) == 0xC0) { k = 1; cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { k = 2; cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { k = 3; cp = c & 0x07; min = 0x10000; }
    else return false;
    if (n - i <= k) return false;
    for (size_t j = 1; j <= k; j++) {
      if ((s[i + j] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + j] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += k + 1;
  }
  return true;
}

namespace json {

const Member* Object::find(const char* key) const {
  for (size_t i = members.size(); i-- > 0;)
    if (members[i].key == key) return &members[i];
  return nullptr;
}

namespace {

class Reader {
 public:
  Reader(const char* s, size_t n, int maxDepth) : s_(s), n_(n), maxDepth_(maxDepth) {}

  void ws() {
    while (i_ < n_ && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) i_++;
  }
  bool eof() const { return i_ >= n_; }
  char peek() const { return i_ < n_ ? s_[i_] : '\0'; }
  size_t pos() const { return i_; }

  static void putUtf8(std::string* o, uint32_t cp) {
    if (cp < 0x80) o->push_back(char(cp));
    else if (cp < 0x800) { o->push_back(char(0xC0 | (cp >> 6))); o->push_back(char(0x80 | (cp & 0x3F))); }
    else if (cp < 0x10000) {
      o->push_back(char(0xE0 | (cp >> 12)));
      o->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
      o->push_back(char(0x80 | (cp & 0x3F)));
    } else {
      o->push_back(char(0xF0 | (cp >> 18)));
      o->push_back(char(0x80 | ((cp >> 12) & 0x3F)));
      o->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
      o->push_back(char(0x80 | (cp & 0x3F)));
    }
  }

  bool hex4(uint32_t* v) {
    if (n_ - i_ < 4) return false;
    *v = 0;
    for (int k = 0; k < 4; k++) {
      char c = s_[i_++];
      *v <<= 4;
      if (c >= '0' && c <= '9') *v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') *v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') *v |= uint32_t(c - 'A' + 10);
      else return false;
    }
    return true;
  }

  // string parses a string literal at i_ (which must be '"'); out may be null.
  bool string(std::string* out) {
    if (peek() != '"') return false;
    i_++;
    size_t runStart = i_;
    while (i_ < n_) {
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        if (out) out->append(s_ + runStart, i_ - runStart);
        i_++;
        return true;
      }
      if (c < 0x20) return false;
      if (c != '\\') { i_++; continue; }
      if (out) out->append(s_ + runStart, i_ - runStart);
      i_++;
      if (i_ >= n_) return false;
      char e = s_[i_++];
      uint32_t cp = 0;
      switch (e) {
        case '"': cp = '"'; break;
        case '\\': cp = '\\'; break;
        case '/': cp = '/'; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u': {
          if (!hex4(&cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (n_ - i_ < 6 || s_[i_] != '\\' || s_[i_ + 1] != 'u') return false;
            i_ += 2;
            if (!hex4(&lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return false;  // lone low surrogate
          }
          break;
        }
        default: return false;
      }
      if (out) putUtf8(out, cp);
      runStart = i_;
    }
    return false;
  }

  bool number() {
    size_t st = i_;
    if (peek() == '-') i_++;
    if (peek() == '0') i_++;
    else if (peek() >= '1' && peek() <= '9') { while (peek() >= '0' && peek() <= '9') i_++; }
    else return false;
    if (peek() == '.') {
      i_++;
      if (!(peek() >= '0' && peek() <= '9')) return false;
      while (peek() >= '0' && peek() <= '9') i_++;
    }
    if (peek() == 'e' || peek() == 'E') {
      i_++;
      if (peek() == '+' || peek() == '-') i_++;
      if (!(peek() >= '0' && peek() <= '9')) return false;
      while (peek() >= '0' && peek() <= '9') i_++;
    }
    return i_ > st;
  }

  bool literal(const char* w) {
    size_t k = 0;
    while (w[k]) {
      if (i_ + k >= n_ || s_[i_ + k] != w[k]) return false;
      k++;
    }
    i_ += k;
    return true;
  }

  // value validates any value; top-level object members are captured by the caller.
  bool value(int depth, Member* m) {
    ws();
    char c = peek();
    size_t st = i_;
    bool ok;
    Kind kind;
    switch (c) {
      case '{': kind = Kind::Object; ok = depth < maxDepth_ && object(depth + 1, nullptr); break;
      case '[': kind = Kind::Array; ok = depth < maxDepth_ && array(depth + 1); break;
      case '"': kind = Kind::String; ok = string(m ? &m->text : nullptr); break;
      case 't': kind = Kind::Bool; ok = literal("true"); if (m) m->boolean = true; break;
      case 'f': kind = Kind::Bool; ok = literal("false"); break;
      case 'n': kind = Kind::Null; ok = literal("null"); break;
      default: kind = Kind::Number; ok = number(); break;
    }
    if (ok && m) {
      m->kind = kind;
      if (kind == Kind::Object || kind == Kind::Array || kind == Kind::Number) m->text.assign(s_ + st, i_ - st);
    }
    return ok;
  }

  bool array(int depth) {
    i_++;  // '['
    ws();
    if (peek() == ']') { i_++; return true; }
    for (;;) {
      if (!value(depth, nullptr)) return false;
      ws();
      if (peek() == ',') { i_++; continue; }
      if (peek() == ']') { i_++; return true; }
      return false;
    }
  }

  bool object(int depth, Object* out) {
    i_++;  // '{'
    ws();
    if (peek() == '}') { i_++; return true; }
    for (;;) {
      ws();
      Member m;
      if (!string(out ? &m.key : nullptr)) return false;
      ws();
      if (peek() != ':') return false;
      i_++;
      if (!value(depth, out ? &m : nullptr)) return false;
      if (out) out->members.push_back(std::move(m));
      ws();
      if (peek() == ',') { i_++; continue; }
      if (peek() == '}') { i_++; return true; }
      return false;
    }
  }

 private:
  const char* s_;
  size_t n_;
  size_t i_ = 0;
  int maxDepth_;
};

}  // namespace

ParseResult ParseObject(const char* text, size_t len, Object* out, int maxDepth) {
  out->members.clear();
  if (!ValidUtf8(reinterpret_cast<const uint8_t*>(text), len)) return ParseResult::Invalid;
  Reader r(text, len, maxDepth);
  r.ws();
  bool isObject = r.peek() == '{';
  bool ok = isObject ? r.object(1, out) : r.value(0, nullptr);
  if (!ok) {
    out->members.clear();
    return ParseResult::Invalid;
  }
  r.ws();
  if (!r.eof()) {
    out->members.clear();
    return ParseResult::Invalid;
  }
  return isObject ? ParseResult::Ok : ParseResult::NotObject;
}

void AppendQuoted(std::string* o, const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  o->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': o->append("\\\""); break;
      case '\\': o->append("\\\\"); break;
      case '\n': o->append("\\n"); break;
      case '\r': o->append("\\r"); break;
      case '\t': o->append("\\t"); break;
      case '\b': o->append("\\b"); break;
      case '\f': o->append("\\f"); break;
      default:
        if (c < 0x20) {
          o->append("\\u00");
          o->push_back(kHex[c >> 4]);
          o->push_back(kHex[c & 15]);
        } else {
          o->push_back(char(c));
        }
    }
  }
  o->push_back('"');
}

void Writer::key(const char* k) {
  if (!first_) out_.push_back(',');
  first_ = false;
  AppendQuoted(&out_, k);
  out_.push_back(':');
}

Writer& Writer::str(const char* k, const std::string& v) {
  key(k);
  AppendQuoted(&out_, v);
  return *this;
}

Writer& Writer::boolean(const char* k, bool v) {
  key(k);
  out_.append(v ? "true" : "false");
  return *this;
}

}  // namespace json
}  // namespace sc
