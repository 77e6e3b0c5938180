// The simulator's face for Stack-chan's tools (core/tools.h): each call
// changes SimFace and is reported on the control socket as one line,
//   {"face":{"expression":"happy","gaze":"left","gesture":"nod","times":2,"caption":"Hi"}}
// so tests (and the Pi's e2e tests) can see what Claude made the face do.
// Each call also drives the living face (core/face_model.h FaceActions),
// so the screenshots show what Claude made the face do; the tools only see
// ToolFace.
#pragma once

#include <functional>
#include <string>

#include "face_model.h"
#include "ports.h"
#include "tools.h"

namespace sim {

struct SimFace {
  std::string expression = "neutral", gaze = "center", gesture, caption;
  int times = 0;
  uint32_t captionUntil = 0;  // now_ms when the balloon goes away; 0 = none
};

// ToolFaceFor returns actions that change face and the drawn model, show
// captions through ui and emit each change.
sc::ToolFace ToolFaceFor(SimFace& face, sc::FaceActions& model, sc::Ui& ui,
                         std::function<void(const std::string&)> emit);
// FaceLine is the control line for face.
std::string FaceLine(const SimFace& face);
// TickFace hides a caption whose time is up.
void TickFace(SimFace& face, sc::Ui& ui, uint32_t now);

}  // namespace sim
