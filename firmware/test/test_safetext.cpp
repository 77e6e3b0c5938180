// What the CoreS3 draws of an approval's text (core/safetext): the same
// hidden characters as the Pi's screens, escapes for missing glyphs,
// every character of a 4 KB command on some page, and two prompts that
// differ in one character never shown the same.
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "apps.h"
#include "helpers.h"
#include "safetext.h"

using namespace sc;

namespace {

// SafetextDir is protocols/safetext/testdata: the hostile-prompt corpus
// and the Go side's table of hidden characters. make runs the tests in
// firmware/.
std::string SafetextText(const std::string& name) {
  const char* d = std::getenv("SAFETEXT_TESTDATA");
  std::string path = std::string(d && *d ? d : "../protocols/safetext/testdata") + "/" + name;
  std::ifstream f(path);
  if (!f) FAIL("cannot open " << path << " (set SAFETEXT_TESTDATA to protocols/safetext/testdata)");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Sink : EventSender {
  SendResult SendEvent(const std::string&) override { return SendResult::Queued; }
};

AppEvent Prompt(const std::string& title, const std::string& summary, const std::string& detail) {
  AppEvent e;
  e.type = AppType::ApprovalRequest;
  e.requestId = "r";
  e.kind = "command";
  e.title = title;
  e.summary = summary;
  e.detail = detail;
  return e;
}

// Pages is every page the screen would draw for a prompt.
std::vector<ApprovalView> Pages(const AppEvent& ev, HasGlyph has = nullptr) {
  Sink out;
  ApprovalSession s(out);
  s.SetGlyphs(has);
  s.OnRequest(ev, 0);
  std::vector<ApprovalView> pages{s.View()};
  for (int i = 0; i < pages[0].pages; i++) {
    s.PageDetail();
    pages.push_back(s.View());
  }
  return pages;
}

bool Drawn(const std::vector<ApprovalView>& a, const std::vector<ApprovalView>& b) {
  if (a.size() != b.size()) return true;
  for (size_t i = 0; i < a.size(); i++) {
    if (a[i].titleLine != b[i].titleLine || a[i].lines != b[i].lines || a[i].statusLine != b[i].statusLine) return true;
  }
  return false;
}

bool NoCJK(uint32_t cp) { return cp < 0x2E80; }

}  // namespace

TEST_CASE("safetext: the hidden characters are exactly the Pi's (protocols/safetext/testdata/hidden.txt)") {
  std::istringstream in(SafetextText("hidden.txt"));
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  std::string line;
  int names = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string kind, a, b;
    ls >> kind >> a >> b;
    if (kind == "range") ranges.push_back({uint32_t(std::stoul(a, nullptr, 16)), uint32_t(std::stoul(b, nullptr, 16))});
    if (kind == "name") {
      CHECK(EscapeLabel(uint32_t(std::stoul(a, nullptr, 16))) == b);
      names++;
    }
  }
  REQUIRE(ranges.size() > 20);
  CHECK(names > 20);
  size_t r = 0;
  int wrong = 0;
  for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
    while (r < ranges.size() && cp > ranges[r].second) r++;
    bool want = r < ranges.size() && cp >= ranges[r].first;
    if (IsHiddenCodePoint(cp) != want && wrong++ < 5) FAIL_CHECK("U+" << std::hex << cp << " hidden " << !want);
  }
  CHECK(wrong == 0);
}

TEST_CASE("safetext: escapes, U+FFFD for invalid UTF-8, logical order, middle elision") {
  auto plain = [](const std::string& s, HasGlyph has = nullptr) {
    SafeText t = LayoutSafe(s, 1000, has);
    std::string out;
    for (size_t i = 0; i < t.lines.size(); i++) out += (i ? "\n" : "") + Plain(t.lines[i]);
    return std::make_pair(out, t.hidden);
  };
  CHECK(plain("a\xE2\x80\xAE" "b") == std::make_pair(std::string("a⟨RLO⟩b"), true));
  CHECK(plain("rm\xE2\x80\x8B -rf") == std::make_pair(std::string("rm⟨ZWSP⟩ -rf"), true));
  CHECK(plain("\x1b[31mred") == std::make_pair(std::string("⟨ESC⟩[31mred"), true));
  CHECK(plain("ok\rrm") == std::make_pair(std::string("ok⟨CR⟩rm"), true));  // WrapColumns dropped it
  CHECK(plain("a\tb") == std::make_pair(std::string("a⟨TAB⟩b"), false));
  CHECK(plain("a\nb") == std::make_pair(std::string("a\nb"), false));
  CHECK(plain("\xED\xA0\xBD!") == std::make_pair(std::string("\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD!"), false));
  CHECK(plain("\xF0\x9F\x98\x80") == std::make_pair(std::string("⟨U+1F600⟩"), false));  // efont is BMP only
  CHECK(plain("写真", NoCJK) == std::make_pair(std::string("⟨U+5199⟩⟨U+771F⟩"), false));
  CHECK(plain("写真") == std::make_pair(std::string("写真"), false));
  // Lines break at the column limit, never inside an escape.
  SafeText t = LayoutSafe("abc\xE2\x80\xAE" "def", 4);
  REQUIRE(t.lines.size() == 3);
  CHECK(Plain(t.lines[0]) == "abc");
  CHECK(Plain(t.lines[1]) == "⟨RLO⟩");
  CHECK(Plain(t.lines[2]) == "def");
  CHECK(Plain(FitSafe("a-really-long-project-directory", 11)) == "a-rea…ctory");
  bool hidden = false;
  FitSafe("x\xE2\x81\xA6y", 30, nullptr, &hidden);
  CHECK(hidden);
}

TEST_CASE("safetext: the hostile corpus on the CoreS3 screen") {
  nlohmann::json corpus = nlohmann::json::parse(SafetextText("hostile.json"));
  REQUIRE(corpus.size() > 10);
  std::set<std::string> hiddenOnes = {"trojan-source-rlo",  "trojan-source-isolate", "trojan-source-lri",
                                      "zero-width-rm",      "zero-width-word-joiner", "ansi-colour",
                                      "c0-c1-controls",     "tag-smuggling",          "nbsp-and-thin-space"};
  int pairs = 0;
  for (const auto& h : corpus) {
    std::string name = h["name"], tool = h["tool"], hint = h["hint"], detail = h["detail"];
    std::vector<ApprovalView> pages = Pages(Prompt(tool, hint, detail.empty() ? hint : detail));
    CAPTURE(name);
    CHECK(pages[0].hidden == (hiddenOnes.count(name) > 0));
    for (const ApprovalView& v : pages) {
      CHECK(v.hidden == pages[0].hidden);  // the warning is on every page
      if (v.hidden && v.buttonsEnabled) CHECK(v.statusLine.rfind("contains hidden characters", 0) == 0);
      for (const TextLine& l : v.lines) {
        int cols = 0;
        for (const Span& s : l) {
          if (s.kind != SpanKind::Text) {
            cols += int(s.text.size()) + 1;
            continue;
          }
          for (size_t i = 0; i < s.text.size();) {
            unsigned char c = static_cast<unsigned char>(s.text[i]);
            size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
            for (size_t k = 1; k < n; k++) cp = (cp << 6) | (static_cast<unsigned char>(s.text[i + k]) & 0x3F);
            CHECK_FALSE(IsHiddenCodePoint(cp));
            CHECK(cp <= 0xFFFF);
            cols += cp < 0x80 ? 1 : 2;
            i += n;
          }
        }
        CHECK(cols <= kDetailColumns);
      }
    }
    // One character changed anywhere in the detail shows on some page.
    std::string text = detail.empty() ? hint : detail;
    for (size_t at : {size_t(0), text.size() / 2, text.size() - 1}) {
      if (text.empty() || (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80 || static_cast<unsigned char>(text[at]) >= 0x80)
        continue;  // change ASCII only, so the text stays UTF-8
      std::string m = text;
      m[at] = m[at] == 'x' ? 'y' : 'x';
      CAPTURE(at);
      CHECK(Drawn(pages, Pages(Prompt(tool, hint, m))));
      std::string z = text.substr(0, at) + "\xE2\x80\x8B" + text.substr(at);
      CHECK(Drawn(pages, Pages(Prompt(tool, hint, z))));
      pairs += 2;
    }
  }
  CHECK(pairs > 40);
}

TEST_CASE("safetext: every line of a 4 KB command is on some page, the last one too") {
  nlohmann::json corpus = nlohmann::json::parse(SafetextText("hostile.json"));
  for (const auto& h : corpus) {
    if (h["name"] != "long-command-bad") continue;
    std::string detail = h["detail"];
    std::vector<ApprovalView> pages = Pages(Prompt("Bash", h["hint"], detail));
    CHECK(pages.size() > 10);
    std::string all;
    for (size_t i = 1; i < pages.size(); i++) all += pages[i].body + "\n";
    CHECK(pages.back().body.find("rm -rf ~") != std::string::npos);
    // Every line of the command is there in order (wrapped lines rejoined).
    size_t pos = 0;
    std::istringstream in(detail);
    std::string line;
    std::string joined;
    for (char c : all)
      if (c != '\n') joined += c;
    while (std::getline(in, line)) {
      size_t at = joined.find(line, pos);
      CHECK_MESSAGE(at != std::string::npos, line);
      if (at != std::string::npos) pos = at + line.size();
    }
    return;
  }
  FAIL("long-command-bad missing from hostile.json");
}

TEST_CASE("fuzz: LayoutSafe over random bytes keeps every character, escapes what hides, fits its columns") {
  const char* es = std::getenv("FUZZ_SEED");
  uint64_t seed = es && *es && std::strtoull(es, nullptr, 10) ? std::strtoull(es, nullptr, 10) : std::random_device{}();
  std::printf("fuzz safetext: seed=%llu\n", (unsigned long long)seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::string> pieces = {"a", " ", "\n", "\t", "\r", "\x1b[", "\xE2\x80\xAE", "\xE2\x80\x8B", "写",
                                           "\xF0\x9F\x98\x80", "\xED\xA0\xBD", "\xC0\x80", "\xFF", "\xE2\x81", "\xC2\xA0"};
  for (int it = 0; it < 5000; it++) {
    std::string s;
    int n = int(rng() % 40);
    for (int k = 0; k < n; k++) s += rng() % 4 ? pieces[rng() % pieces.size()] : std::string(1, char(rng() % 256));
    int cols = 4 + int(rng() % 40);
    SafeText t = LayoutSafe(s, cols, rng() % 2 ? NoCJK : nullptr);
    size_t chars = 0;
    for (const TextLine& l : t.lines) {
      int w = 0;
      size_t cells = 0;
      for (const Span& sp : l) {
        if (sp.kind != SpanKind::Text) {
          w += int(sp.text.size()) + 1;
          cells++;
          continue;
        }
        for (size_t i = 0; i < sp.text.size();) {
          unsigned char c = static_cast<unsigned char>(sp.text[i]);
          size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
          REQUIRE(i + len <= sp.text.size());
          w += len == 1 ? 1 : 2;
          i += len;
          cells++;
          if (len == 1) REQUIRE_FALSE(IsHiddenCodePoint(c));
        }
      }
      chars += cells;
      CAPTURE(s);
      CHECK((w <= cols || cells == 1));
    }
    // Every character but a newline is a cell: count code points with an
    // independent decoder (an invalid byte is one U+FFFD, as in Go).
    size_t want = 0;
    for (size_t i = 0; i < s.size(); want++) {
      size_t before = i;
      unsigned char c = static_cast<unsigned char>(s[i]);
      size_t len = c < 0x80 ? 1 : (c >= 0xC2 && c < 0xE0) ? 2 : (c >= 0xE0 && c < 0xF0) ? 3 : (c >= 0xF0 && c <= 0xF4) ? 4 : 1;
      bool ok = i + len <= s.size();
      for (size_t k = 1; ok && k < len; k++) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
      if (ok && len == 3) {
        uint32_t cp = ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
        ok = cp >= 0x800 && !(cp >= 0xD800 && cp <= 0xDFFF);
      }
      if (ok && len == 4) {
        uint32_t cp = ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
        ok = cp >= 0x10000 && cp <= 0x10FFFF;
      }
      i += ok ? len : 1;
      if (s[before] == '\n') want--;
    }
    CHECK(chars == want);
  }
}
