// The simulator's face for Stack-chan's tools (core/tools.h): each call
// drives the living face through the shared adapter (core/face_tools.h, as
// on the CoreS3), so the screenshots show what Claude made the face do, and
// is also kept in SimFace and reported on the control socket as one line,
//   {"face":{"expression":"happy","gaze":"left","gesture":"nod","times":2,"caption":"Hi"}}
// so tests (and the Pi's e2e tests) can see it.
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

// ToolFaceFor returns actions that change the drawn model (which holds a
// said caption for its time itself) and face, echo a caption as a ui line
// through echo (the JSON sink, not the model) and emit each change.
sc::ToolFace ToolFaceFor(SimFace& face, sc::FaceActions& model, sc::Ui& echo,
                         std::function<void(const std::string&)> emit);
// FaceLine is the control line for face.
std::string FaceLine(const SimFace& face);
// TickFace reports (through echo) a said caption whose time is up.
void TickFace(SimFace& face, sc::Ui& echo, uint32_t now);

}  // namespace sim
