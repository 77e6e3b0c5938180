// Optional libFuzzer target (`make fuzz`, clang only): the first byte picks
// the parser (frame stream, 1 mod 4; timed reads, 3 mod 4), the EVENT decoder (JSON + v1 validation,
// 0 mod 8), the claude_pi.settings decoder (2 mod 4) or the session layer's
// decoder with Stack-chan's tools (4 mod 8: raw events one a line,
// session_harness.h); contract: no crash, no sanitizer report, frames
// re-encode identically, a decoded volume is 0..100, and the session's
// rules (session_harness.h). Seeds: test/fuzz/seeds (make fuzz copies them in).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "appevent.h"
#include "session_harness.h"
#include "settings.h"
#include "wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] & 1) {
    sc::Parser p;
    static uint8_t out[sc::kMaxFrame];
    auto check = [](const sc::Frame& f) {
      size_t n = sc::Encode(f, out, sizeof out);
      sc::Frame back;
      if (n == 0 || sc::Decode(out, n, &back) != sc::DecodeError::None) __builtin_trap();
    };
    if (!(data[0] & 2)) {
      p.FeedAll(data + 1, size - 1, check);
      return 0;
    }
    // Timed (selector 3 mod 4): reads of [gap x 8 ms][length-1][bytes]; then
    // kStaleAfterMs after the last one a HELLO must be found (README
    // "Cut-off frames").
    uint32_t now = 0;
    for (size_t i = 1; i + 2 <= size;) {
      now += uint32_t(data[i]) * 8;
      size_t n = std::min<size_t>(size_t(data[i + 1]) + 1, size - i - 2);
      p.FeedAll(data + i + 2, n, now, check);
      i += 2 + n;
    }
    now += sc::kStaleAfterMs;
    p.Expire(now);
    sc::Frame f;
    while (p.Next(&f)) check(f);
    uint8_t hello[sc::kOverhead + 8];
    uint8_t pay[8];
    sc::EncodeHelloPayload(sc::Hello{4096, sc::kFirmwareCaps}, pay);
    sc::Frame h;
    h.flags = sc::kHello;
    h.payload = pay;
    h.length = 8;
    size_t hn = sc::Encode(h, hello, sizeof hello);
    int found = 0;
    p.FeedAll(hello, hn, now, [&](const sc::Frame& fr) { found += fr.type == 0 && fr.flags == sc::kHello; });
    if (found != 1) __builtin_trap();
  } else if (data[0] & 2) {
    std::string msg(reinterpret_cast<const char*>(data + 1), size - 1);
    sc::SettingsEvent ev;
    const char* why = "";
    sc::SettingsDecode d = sc::DecodeSettingsEvent(msg, &ev, &why);
    if (d == sc::SettingsDecode::Ok && (ev.eventId.empty() || (ev.hasVolume && ev.volume > 100))) __builtin_trap();
    if (d == sc::SettingsDecode::Invalid && why[0] == 0) __builtin_trap();
  } else if (data[0] & 4) {
    std::string raw(reinterpret_cast<const char*>(data + 1), size - 1);
    if (sc::fuzz::FuzzSession(raw).broke) __builtin_trap();
  } else {
    std::string msg(reinterpret_cast<const char*>(data + 1), size - 1);
    sc::Classified c = sc::Classify(msg);
    if (c.route == sc::Route::Application) {
      sc::Classified again = sc::Classify(sc::Serialize(c.event));
      if (again.route != sc::Route::Application || again.event.requestId != c.event.requestId) __builtin_trap();
    }
  }
  return 0;
}
