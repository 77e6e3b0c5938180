// Stack-chan's tools (tools.h ToolFace) acting on the living face
// (face_model.h FaceActions): the one adapter the cores3-sim and the CoreS3
// share, so what a tool call does to the drawn face is tested on the host.
#pragma once

#include <functional>
#include <string>

#include "face_model.h"
#include "tools.h"

namespace sc {

// FaceGuard runs one face action; the CoreS3 passes one that holds its UI
// lock (the tools run on the protocol task, the face is drawn by loop()).
using FaceGuard = std::function<void(const std::function<void()>&)>;

// DirectionGaze is where look_at's direction points the eyes (x right, y
// down, each -1..1); false for a direction not in kDirections.
bool DirectionGaze(const std::string& direction, float* x, float* y);

// ToolFaceOver returns the tools' callbacks onto face: set_expression,
// look_at (held kLookHoldMs), nod and shake (times gestures), say (the
// caption for its hold time). With no guard each action runs directly.
ToolFace ToolFaceOver(FaceActions& face, FaceGuard guard = nullptr);

}  // namespace sc
