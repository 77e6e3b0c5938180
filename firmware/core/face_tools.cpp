#include "face_tools.h"

namespace sc {

bool DirectionGaze(const std::string& d, float* x, float* y) {
  struct Dir {
    const char* name;
    float x, y;
  };
  static const Dir kDirs[] = {{"center", 0, 0}, {"left", -1, 0}, {"right", 1, 0}, {"up", 0, -1}, {"down", 0, 1}};
  for (const Dir& g : kDirs)
    if (d == g.name) {
      *x = g.x;
      *y = g.y;
      return true;
    }
  return false;
}

ToolFace ToolFaceOver(FaceActions& face, FaceGuard guard) {
  if (!guard) guard = [](const std::function<void()>& f) { f(); };
  FaceActions* f = &face;
  ToolFace t;
  t.setExpression = [f, guard](const std::string& e) {
    Expression x;
    if (ParseExpression(e, &x)) guard([&] { f->SetExpression(x); });
  };
  t.lookAt = [f, guard](const std::string& d, uint32_t now) {
    float x, y;
    if (DirectionGaze(d, &x, &y)) guard([&] { f->LookAt(x, y, now); });
  };
  t.nod = [f, guard](int times, uint32_t now) { guard([&] { f->Nod(now, times); }); };
  t.shake = [f, guard](int times, uint32_t now) { guard([&] { f->Shake(now, times); }); };
  t.say = [f, guard](const std::string& text, uint32_t holdMs, uint32_t now) {
    guard([&] { f->Say(text, holdMs, now); });
  };
  return t;
}

}  // namespace sc
