// Stack-chan's own tools: the catalog our firmware offers over the session
// layer (session.h) and what each call does to the face. The face is
// reached only through FaceActions, so the drawing code (src/ on the
// CoreS3, sim/ in the simulator) can change without touching this file.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "session.h"

namespace sc {

// FaceActions is what the tools may do to the face. Unset callbacks make
// the tool answer that the face cannot do it.
struct FaceActions {
  std::function<void(const std::string& expression)> setExpression;
  std::function<void(const std::string& direction)> lookAt;
  std::function<void(int times)> nod;
  std::function<void(int times)> shake;
  // say shows text in the caption balloon for about holdMs.
  std::function<void(const std::string& text, uint32_t holdMs)> say;
};

// The closed vocabularies of the tools.
extern const char* const kExpressions[];  // nullptr-terminated
extern const char* const kDirections[];
constexpr size_t kMaxSayChars = 120;  // code points
constexpr int kMaxGestureTimes = 3;

class CharacterTools : public ToolRunner {
 public:
  explicit CharacterTools(FaceActions face) : face_(std::move(face)) {}
  // Catalog: set_expression, look_at, nod, shake, say.
  static std::vector<ToolSpec> Catalog();
  static const char* Instructions();
  std::string Run(const std::string& name, const std::string& args, uint32_t now) override;

 private:
  FaceActions face_;
};

// SayHoldMs is how long a caption of text stays up: long enough to read.
uint32_t SayHoldMs(const std::string& text);

}  // namespace sc
