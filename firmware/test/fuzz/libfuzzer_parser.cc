// Optional libFuzzer target (`make fuzz`, clang only): the first byte picks
// the parser (frame stream, odd), the EVENT decoder (JSON + v1 validation,
// 0 mod 8), the claude_pi.settings decoder (2 mod 4) or the session layer's
// decoder with Stack-chan's tools (4 mod 8: raw events one a line,
// session_harness.h); contract: no crash, no sanitizer report, frames
// re-encode identically, a decoded volume is 0..100, and the session's
// rules (session_harness.h). Seeds: test/fuzz/seeds (make fuzz copies them in).
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
    p.FeedAll(data + 1, size - 1, [](const sc::Frame& f) {
      size_t n = sc::Encode(f, out, sizeof out);
      sc::Frame back;
      if (n == 0 || sc::Decode(out, n, &back) != sc::DecodeError::None) __builtin_trap();
    });
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
