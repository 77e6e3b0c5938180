#include "facetools.h"

#include "json.h"

namespace sim {

std::string FaceLine(const SimFace& f) {
  std::string s = "{\"face\":{\"expression\":";
  sc::json::AppendQuoted(&s, f.expression);
  s += ",\"gaze\":";
  sc::json::AppendQuoted(&s, f.gaze);
  s += ",\"gesture\":";
  sc::json::AppendQuoted(&s, f.gesture);
  s += ",\"times\":" + std::to_string(f.times) + ",\"caption\":";
  sc::json::AppendQuoted(&s, f.caption);
  return s + "}}";
}

sc::ToolFace ToolFaceFor(SimFace& face, sc::Ui& ui, std::function<void(const std::string&)> emit) {
  auto changed = [&face, emit] { emit(FaceLine(face)); };
  sc::ToolFace a;
  a.setExpression = [&face, changed](const std::string& e) {
    face.expression = e;
    changed();
  };
  a.lookAt = [&face, changed](const std::string& d, uint32_t) {
    face.gaze = d;
    changed();
  };
  a.nod = [&face, changed](int n, uint32_t) {
    face.gesture = "nod";
    face.times = n;
    changed();
  };
  a.shake = [&face, changed](int n, uint32_t) {
    face.gesture = "shake";
    face.times = n;
    changed();
  };
  a.say = [&face, &ui, changed](const std::string& t, uint32_t holdMs, uint32_t now) {
    face.caption = t;
    face.captionUntil = now + holdMs;
    if (face.captionUntil == 0) face.captionUntil = 1;
    ui.Caption(t);
    changed();
  };
  return a;
}

void TickFace(SimFace& face, sc::Ui& ui, uint32_t now) {
  if (face.captionUntil && int32_t(now - face.captionUntil) >= 0) {
    face.captionUntil = 0;
    face.caption.clear();
    ui.Caption("");
  }
}

}  // namespace sim
