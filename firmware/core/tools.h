// Stack-chan's own tools: the catalog our firmware offers over the session
// layer (session.h) and what each call does to the face. The face is
// reached only through ToolFace, so the drawing code (src/ on the CoreS3,
// sim/ in the simulator) can change without touching this file. The
// callbacks mirror the face model's FaceActions (SetExpression, LookAt,
// Nod, Shake, Say); face_tools.h is the adapter the sim and the CoreS3 use.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "session.h"

namespace sc {

// ToolFace is what the tools may do to the face. Unset callbacks make
// the tool answer that the face cannot do it. Values are already checked:
// expression is one of kExpressions, direction one of kDirections.
struct ToolFace {
  std::function<void(const std::string& expression)> setExpression;
  std::function<void(const std::string& direction, uint32_t now)> lookAt;
  std::function<void(int times, uint32_t now)> nod;
  std::function<void(int times, uint32_t now)> shake;
  // say shows text in the caption balloon for about holdMs.
  std::function<void(const std::string& text, uint32_t holdMs, uint32_t now)> say;
};

// The closed vocabularies of the tools.
extern const char* const kExpressions[];  // nullptr-terminated
extern const char* const kDirections[];
constexpr size_t kMaxSayChars = 120;  // code points
constexpr int kMaxGestureTimes = 3;

class CharacterTools : public ToolRunner {
 public:
  explicit CharacterTools(ToolFace face) : face_(std::move(face)) {}
  // Catalog: set_expression, look_at, nod, shake, say.
  static std::vector<ToolSpec> Catalog();
  static const char* Instructions();
  std::string Run(const std::string& name, const std::string& args, uint32_t now) override;

 private:
  ToolFace face_;
};

// SayHoldMs is how long a caption of text stays up: long enough to read.
uint32_t SayHoldMs(const std::string& text);

}  // namespace sc
