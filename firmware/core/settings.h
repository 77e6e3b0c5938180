// The device's saved settings (today: tts.volume, spec §12.8) and the Pi's
// raw EVENT that sets them:
//
//   {"type":"claude_pi.settings","event_id":"<unique>","tts":{"volume":<0..100>}}
//
// It has no "schema", so other firmware drops it as a Realtime-shaped raw
// event (§18); ours decodes it here. Unknown fields are ignored at every
// level; a present tts.volume must be an integer 0..100, else the whole
// event is refused with a reason (nothing half-applied).
#pragma once

#include <cstdint>
#include <string>

#include "ports.h"

namespace sc {

extern const char kSettingsType[];  // "claude_pi.settings"
extern const char kVolumeKey[];     // "tts.volume" (the store's key)
constexpr uint8_t kDefaultVolume = 60;
constexpr uint8_t kVolumeStep = 10;  // one volume swipe

struct SettingsEvent {
  std::string eventId;
  bool hasVolume = false;
  uint8_t volume = 0;
};

enum class SettingsDecode : uint8_t { NotSettings, Ok, Invalid };

// DecodeSettingsEvent: NotSettings when json is not an object of type
// claude_pi.settings (leave it to the other raw-event rules); Invalid with
// *why set when it is one but malformed.
SettingsDecode DecodeSettingsEvent(const std::string& json, SettingsEvent* out, const char** why);

// ParseVolume accepts a JSON integer literal 0..100 ("60"; not "60.0",
// "6e1", "-0" or "060").
bool ParseVolume(const std::string& text, uint8_t* out);

// Settings holds tts.volume, loaded from and saved to a SettingsStore (none:
// kept in memory only). A stored value that does not parse is replaced by
// the default.
class Settings {
 public:
  explicit Settings(SettingsStore* store) : store_(store) {}
  void Load();
  uint8_t volume() const { return volume_; }
  // SetVolume clamps to 0..100 and saves; false when nothing changed.
  bool SetVolume(int v);
  // Step moves the volume by delta, clamped (a volume swipe).
  bool Step(int delta) { return SetVolume(int(volume_) + delta); }
  bool saveFailed() const { return saveFailed_; }

 private:
  SettingsStore* store_;
  uint8_t volume_ = kDefaultVolume;
  bool saveFailed_ = false;
};

}  // namespace sc
