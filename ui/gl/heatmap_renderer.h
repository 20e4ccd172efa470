#pragma once
// Turns a heatmap panel into an RGBA texture the UI can show: the cell positions on the colormap
// go up as a float texture and are coloured by the shader in shaders/heatmap.frag through the
// colormap's lookup table, with high-similarity cells outlined. Rendered once per change, so a
// frame costs one textured quad per heatmap.
#include <array>

#include "figures/figure.h"
#include "gl/gl_objects.h"

namespace attnscope::ui {

struct HeatmapImage {
  Texture texture;  // RGBA8, row 0 at the top
  Framebuffer framebuffer;
  int width = 0, height = 0;
};

class HeatmapRenderer {
 public:
  HeatmapRenderer();  // needs a current GL 3.3 context; throws attnscope::Error
  // `target_px`: the longer side of the image; each cell gets a whole number of pixels.
  HeatmapImage render(const HeatmapPanel& panel, int target_px) const;

 private:
  Program program_;
  VertexArray quad_;
  std::array<Texture, 4> luts_;
};

}  // namespace attnscope::ui
