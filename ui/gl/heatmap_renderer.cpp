#include "gl/heatmap_renderer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/error.h"
#include "shader_sources.h"

namespace attnscope::ui {

HeatmapRenderer::HeatmapRenderer() : program_(make_program(kHeatmapVertexShader, kHeatmapFragmentShader)) {
  GLuint vao = 0;
  glGenVertexArrays(1, &vao);
  quad_ = VertexArray(vao);
  for (ColormapId id : all_colormaps())
    luts_[static_cast<size_t>(id)] =
        make_texture(GL_RGBA8, 256, 1, GL_RGBA, GL_UNSIGNED_BYTE, colormap(id).rgba8().data());
}

HeatmapImage HeatmapRenderer::render(const HeatmapPanel& p, int target_px) const {
  if (p.rows <= 0 || p.cols <= 0) return {};
  const int cell_px = std::max(1, target_px / std::max(p.rows, p.cols));
  std::vector<float> positions(p.values.size());
  for (size_t k = 0; k < positions.size(); ++k) positions[k] = static_cast<float>(p.color_scale.position(p.values[k]));
  std::vector<uint8_t> outline;
  if (!p.outlined.empty()) {
    outline.assign(p.values.size(), 0);
    for (const auto& [i, j] : p.outlined) outline[static_cast<size_t>(i) * p.cols + j] = 255;
  }
  return colour(positions.data(), outline.empty() ? nullptr : outline.data(), p.cols, p.rows, cell_px, p.colormap);
}

std::array<float, 4> HeatmapAtlas::uv(int k) const {
  const float cw = 1.0f / static_cast<float>(columns), ch = 1.0f / static_cast<float>(rows);
  const int c = k % columns, r = k / columns;
  return {c * cw, r * ch, (c + 1) * cw, (r + 1) * ch};
}

HeatmapAtlas HeatmapRenderer::upload(const ThumbnailAtlas& cpu) {
  HeatmapAtlas atlas;
  if (cpu.rgba.empty()) return atlas;
  atlas.columns = cpu.columns;
  atlas.rows = cpu.rows;
  atlas.image.width = cpu.width();
  atlas.image.height = cpu.height();
  atlas.image.texture = make_texture(GL_RGBA8, cpu.width(), cpu.height(), GL_RGBA, GL_UNSIGNED_BYTE, cpu.rgba.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);  // thumbnails shrink smoothly
  return atlas;
}

HeatmapImage HeatmapRenderer::colour(const float* positions, const uint8_t* marks, int cols, int rows, int cell_px,
                                     ColormapId colormap) const {
  HeatmapImage out;
  out.width = std::min(16384, cols * cell_px);
  out.height = std::min(16384, rows * cell_px);
  const Texture values = make_texture(GL_R32F, cols, rows, GL_RED, GL_FLOAT, positions);
  const Texture outline = marks ? make_texture(GL_R8, cols, rows, GL_RED, GL_UNSIGNED_BYTE, marks) : Texture();
  out.texture = make_texture(GL_RGBA8, out.width, out.height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);  // thumbnails shrink smoothly
  GLuint fbo = 0;
  glGenFramebuffers(1, &fbo);
  out.framebuffer = Framebuffer(fbo);

  // Keep the caller's GL state (ImGui's backend sets its own each frame, but be a good citizen).
  GLint old_fbo = 0, old_viewport[4];
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &old_fbo);
  glGetIntegerv(GL_VIEWPORT, old_viewport);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, out.texture.get(), 0);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(old_fbo));
    throw Error("the GPU driver refused an offscreen heatmap target");
  }
  glViewport(0, 0, out.width, out.height);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glUseProgram(program_.get());
  const GLuint prog = program_.get();
  const GLuint textures[] = {values.get(), luts_[static_cast<size_t>(colormap)].get(),
                             marks ? outline.get() : values.get()};
  const char* names[] = {"positions", "lut", "outline"};
  for (int unit = 0; unit < 3; ++unit) {
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_2D, textures[unit]);
    glUniform1i(glGetUniformLocation(prog, names[unit]), unit);
  }
  glUniform2f(glGetUniformLocation(prog, "cells"), static_cast<float>(cols), static_cast<float>(rows));
  glUniform1f(glGetUniformLocation(prog, "border"), cell_px >= 6 ? 0.12f : 0.2f);
  glUniform1i(glGetUniformLocation(prog, "use_outline"), marks ? 1 : 0);
  glBindVertexArray(quad_.get());
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glActiveTexture(GL_TEXTURE0);
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(old_fbo));
  glViewport(old_viewport[0], old_viewport[1], old_viewport[2], old_viewport[3]);
  return out;
}

}  // namespace attnscope::ui
