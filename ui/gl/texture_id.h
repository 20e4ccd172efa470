#pragma once
// A heatmap's texture as ImGui's draw lists take it (an OpenGL texture name in ImTextureID).
#include <imgui.h>

#include <cstdint>

#include "gl/heatmap_renderer.h"

namespace attnscope::ui {

inline ImTextureID texture_id(const HeatmapImage& image) {
  return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(image.texture.get()));
}

}  // namespace attnscope::ui
