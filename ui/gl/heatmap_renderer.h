#pragma once
// Turns a heatmap panel into an RGBA texture the UI can show: the cell positions on the colormap
// go up as a float texture and are coloured by the shader in shaders/heatmap.frag through the
// colormap's lookup table, with high-similarity cells outlined. Rendered once per change, so a
// frame costs one textured quad per heatmap.
#include <array>
#include <cstdint>
#include <vector>

#include "figures/figure.h"
#include "figures/thumbnail_atlas.h"
#include "gl/gl_objects.h"

namespace attnscope::ui {

struct HeatmapImage {
  Texture texture;  // RGBA8, row 0 at the top
  Framebuffer framebuffer;
  int width = 0, height = 0;
  int64_t pooled_by = 1;  // the panel's cells a side in each of its cells (figures/pooled_panel.h)
};

// Many heatmaps of one size and colormap side by side in one texture, one pixel per cell: the
// overview's thumbnails go up as one upload of colours made on the CPU (figures/thumbnail_atlas.h;
// on a machine without a GPU, 156 separate offscreen draws cost more than that).
struct HeatmapAtlas {
  HeatmapImage image;
  int columns = 0, rows = 0;  // tiles
  // Texture coordinates of tile k: {u0, v0, u1, v1}.
  std::array<float, 4> uv(int k) const;
};

class HeatmapRenderer {
 public:
  HeatmapRenderer();  // needs a current GL 3.3 context; throws attnscope::Error
  // `target_px`: the longer side of the image; each cell gets a whole number of pixels.
  HeatmapImage render(const HeatmapPanel& panel, int target_px) const;
  // Uploads an atlas coloured on the CPU.
  static HeatmapAtlas upload(const ThumbnailAtlas& atlas);

 private:
  // Colours a rows x cols grid of colormap positions (and outline marks, may be null) into a new texture.
  HeatmapImage colour(const float* positions, const uint8_t* marks, int cols, int rows, int cell_px,
                      ColormapId colormap) const;

  Program program_;
  VertexArray quad_;
  std::array<Texture, 4> luts_;
};

}  // namespace attnscope::ui
