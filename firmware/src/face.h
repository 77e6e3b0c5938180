// Drawing for the CoreS3 (320x240): it only draws the core's display list
// (core/display.h), which the FaceModel (core/face_model.h) builds; every
// decision about what is on screen is made, and tested, there.
#pragma once

#include <M5GFX.h>

#include "display.h"

void FaceBegin(M5GFX& d);
// FaceDraw draws list off-screen and pushes it, unless it is the frame
// already shown (same hash): an idle face costs no SPI traffic.
void FaceDraw(M5GFX& d, const sc::DisplayList& list);
// FaceHasGlyph reports whether the body font (efont JA 16) draws cp.
bool FaceHasGlyph(uint32_t cp);
