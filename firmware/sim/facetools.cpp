#include "facetools.h"

#include "face_tools.h"
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

sc::ToolFace ToolFaceFor(SimFace& face, sc::FaceActions& model, sc::Ui& echo,
                         std::function<void(const std::string&)> emit) {
  sc::ToolFace drawn = sc::ToolFaceOver(model);
  auto changed = [&face, emit] { emit(FaceLine(face)); };
  sc::ToolFace a;
  a.setExpression = [&face, drawn, changed](const std::string& e) {
    drawn.setExpression(e);
    face.expression = e;
    changed();
  };
  a.lookAt = [&face, drawn, changed](const std::string& d, uint32_t now) {
    drawn.lookAt(d, now);
    face.gaze = d;
    changed();
  };
  a.nod = [&face, drawn, changed](int n, uint32_t now) {
    drawn.nod(n, now);
    face.gesture = "nod";
    face.times = n;
    changed();
  };
  a.shake = [&face, drawn, changed](int n, uint32_t now) {
    drawn.shake(n, now);
    face.gesture = "shake";
    face.times = n;
    changed();
  };
  a.say = [&face, &echo, drawn, changed](const std::string& t, uint32_t holdMs, uint32_t now) {
    drawn.say(t, holdMs, now);
    face.caption = t;
    face.captionUntil = now + holdMs;
    if (face.captionUntil == 0) face.captionUntil = 1;
    echo.Caption(t);
    changed();
  };
  return a;
}

void TickFace(SimFace& face, sc::Ui& echo, uint32_t now) {
  if (face.captionUntil && int32_t(now - face.captionUntil) >= 0) {
    face.captionUntil = 0;
    face.caption.clear();
    echo.Caption("");
  }
}

}  // namespace sim
