// Minimal RIFF/WAVE reader for --mic-wav: 16-bit PCM, mono, 16 kHz only
// (the microphone format of spec §11.1); anything else is refused with a
// reason rather than resampled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sim {
bool LoadWav16kMono(const std::string& path, std::vector<int16_t>* out, std::string* err);
bool ParseWav16kMono(const std::vector<uint8_t>& data, std::vector<int16_t>* out, std::string* err);
}  // namespace sim
