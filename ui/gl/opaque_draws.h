#pragma once
// Images that cover what is under them (the overview's thumbnails) drawn with blending off. ImGui's
// OpenGL backend blends every draw; an opaque image gains nothing from it, and a software
// rasteriser (Mesa's llvmpipe, when there is no GPU) then reads back every pixel it writes.
#include <imgui.h>

namespace attnscope::ui {

// What a draw list gets between these two is drawn without blending; the backend's own state
// comes back after.
void begin_opaque_draws(ImDrawList* list);
void end_opaque_draws(ImDrawList* list);

}  // namespace attnscope::ui
