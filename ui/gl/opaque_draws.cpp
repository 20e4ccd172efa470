#include "gl/opaque_draws.h"

#include <glad/gl.h>

namespace attnscope::ui {

void begin_opaque_draws(ImDrawList* list) {
  list->AddCallback([](const ImDrawList*, const ImDrawCmd*) { glDisable(GL_BLEND); }, nullptr);
}

void end_opaque_draws(ImDrawList* list) { list->AddCallback(ImDrawCallback_ResetRenderState, nullptr); }

}  // namespace attnscope::ui
