// The CoreS3 screen states with a kept screenshot (docs/screens/NAME.png):
// each builds a FaceModel the way the Device would leave it and takes the
// frame at a fixed time. `make screenshots` writes them (tools/
// screenshots.cpp); test/test_face.cpp checks each one's pixels and that
// the kept PNG is what the renderer draws now.
#pragma once

#include <string>
#include <vector>

#include "face_model.h"

namespace sim {

struct Screen {
  const char* name;  // file name without .png
  const char* what;  // one line for README
  void (*setup)(sc::FaceModel& m, uint32_t now);
};

const std::vector<Screen>& Screens();
// Seed and time every screenshot uses (no blink or saccade has started).
constexpr uint32_t kScreenSeed = 7, kScreenAt = 1000;
// Render is the frame of s at kScreenAt.
sc::DisplayList Render(const Screen& s);

}  // namespace sim
