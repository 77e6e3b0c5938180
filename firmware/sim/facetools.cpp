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

sc::ToolFace ToolFaceFor(SimFace& face, sc::FaceActions& model, sc::Ui& ui,
                         std::function<void(const std::string&)> emit) {
  auto changed = [&face, emit] { emit(FaceLine(face)); };
  sc::ToolFace a;
  a.setExpression = [&face, &model, changed](const std::string& e) {
    sc::Expression x;
    if (sc::ParseExpression(e, &x)) model.SetExpression(x);
    face.expression = e;
    changed();
  };
  a.lookAt = [&face, &model, changed](const std::string& d, uint32_t now) {
    float x = d == "left" ? -1 : d == "right" ? 1 : 0, y = d == "up" ? -1 : d == "down" ? 1 : 0;
    model.LookAt(x, y, now);
    face.gaze = d;
    changed();
  };
  a.nod = [&face, &model, changed](int n, uint32_t now) {
    model.Nod(now);
    face.gesture = "nod";
    face.times = n;
    changed();
  };
  a.shake = [&face, &model, changed](int n, uint32_t now) {
    model.Shake(now);
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
