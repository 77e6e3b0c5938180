// Drawing for the CoreS3 (320x240): the face, the caption balloon, status and
// task badges, and the approval screen. Pure presentation of UiState; every
// decision (pages, labels, fitting) comes from the core's ApprovalView.
#pragma once

#include <M5GFX.h>

#include <string>

#include "apps.h"
#include "touch.h"

struct UiState {
  uint32_t version = 0;
  uint8_t status = 0;
  bool taskRunning = false;
  std::string caption;
  float mouth = 0;
  sc::ApprovalView approval;
  sc::ConvState conversation = sc::ConvState::Standby;
  std::string conversationError;
  sc::TransportState link = sc::TransportState::Disconnected;
};

void FaceBegin(M5GFX& d);
void FaceDraw(M5GFX& d, const UiState& s, uint32_t now_ms);
// FaceHasGlyph reports whether the approval font (efont JA 16) draws cp.
bool FaceHasGlyph(uint32_t cp);
