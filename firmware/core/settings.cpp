#include "settings.h"

#include "json.h"

namespace sc {

const char kSettingsType[] = "claude_pi.settings";
const char kVolumeKey[] = "tts.volume";

bool ParseVolume(const std::string& text, uint8_t* out) {
  if (text.empty() || text.size() > 3) return false;
  if (text.size() > 1 && text[0] == '0') return false;  // JSON has no leading zeros
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > 100) return false;
  *out = uint8_t(v);
  return true;
}

SettingsDecode DecodeSettingsEvent(const std::string& text, SettingsEvent* out, const char** why) {
  json::Object o;
  if (json::ParseObject(text.data(), text.size(), &o) != json::ParseResult::Ok) return SettingsDecode::NotSettings;
  const json::Member* type = o.find("type");
  if (!type || type->kind != json::Kind::String || type->text != kSettingsType) return SettingsDecode::NotSettings;
  *out = SettingsEvent{};
  const json::Member* id = o.find("event_id");
  if (!id || id->kind != json::Kind::String || id->text.empty()) {
    *why = "claude_pi.settings: event_id must be a non-empty string";
    return SettingsDecode::Invalid;
  }
  out->eventId = id->text;
  const json::Member* tts = o.find("tts");
  if (!tts) return SettingsDecode::Ok;  // nothing to set
  json::Object t;
  if (tts->kind != json::Kind::Object || json::ParseObject(tts->text.data(), tts->text.size(), &t) != json::ParseResult::Ok) {
    *why = "claude_pi.settings: tts must be an object";
    return SettingsDecode::Invalid;
  }
  const json::Member* vol = t.find("volume");
  if (!vol) return SettingsDecode::Ok;
  if (vol->kind != json::Kind::Number || !ParseVolume(vol->text, &out->volume)) {
    *why = "claude_pi.settings: tts.volume must be an integer 0-100";
    return SettingsDecode::Invalid;
  }
  out->hasVolume = true;
  return SettingsDecode::Ok;
}

void Settings::Load() {
  volume_ = kDefaultVolume;
  std::string v;
  uint8_t parsed;
  if (store_ && store_->Load(kVolumeKey, &v) && ParseVolume(v, &parsed)) volume_ = parsed;
}

bool Settings::SetVolume(int v) {
  v = v < 0 ? 0 : v > 100 ? 100 : v;
  if (uint8_t(v) == volume_) return false;
  volume_ = uint8_t(v);
  saveFailed_ = store_ && !store_->Save(kVolumeKey, std::to_string(v));
  return true;
}

}  // namespace sc
