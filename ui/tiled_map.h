#pragma once
// A long text's head map on screen from its pyramid of tiles (figures/map_pyramid.h): the top
// level as one texture under everything, and over the part of the plot that is visible the tiles
// of the level whose cells are about a screen pixel, made and coloured when first seen. A frame
// makes bands for at most kFrameBudget, so zooming and panning never stop the window; the tiles
// still missing show the coarser level meanwhile, and `pending` asks for another frame. A figure
// may have several (Fig. 5's four maps, a layer's map each in Fig. 12).
#include <imgui.h>

#include <chrono>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "analysis_worker.h"
#include "figures/map_pyramid.h"
#include "gl/heatmap_renderer.h"

namespace attnscope::ui {

class TiledMap {
 public:
  using Clock = std::chrono::steady_clock;
  // What a frame may spend making bands, all of its tiled maps together.
  static constexpr std::chrono::milliseconds kFrameBudget{40};

  // `style`: the panel the map is drawn as (colormap; its colour scale is set once the top level
  // is made). `snapshot` holds what the source reads.
  TiledMap(std::shared_ptr<const AnalysisSnapshot> snapshot, MapSource source, const HeatmapPanel& style,
           PyramidOptions options = {});
  // A pyramid whose top level was made beside the window (tiled_figure_job.h).
  TiledMap(std::shared_ptr<const AnalysisSnapshot> snapshot, MapPyramid made, const HeatmapPanel& style);

  // Makes more of the top level until `deadline` (at least a band); true once it is whole, and
  // then `scale` is the map's colour scale.
  bool make_top(Clock::time_point deadline);
  double top_share() const { return pyramid_.top_share(); }
  const ColorScale& scale() const { return style_.color_scale; }
  // Draws the map into the screen rectangle [p0, p1] of `list`, as far as its clip rectangle shows
  // it, making the tiles it lacks until `deadline`.
  void draw(const HeatmapRenderer& renderer, ImDrawList* list, ImVec2 p0, ImVec2 p1, Clock::time_point deadline);
  // More frames are needed: the top level or a visible tile is not made yet, or its outlines.
  bool pending() const { return pending_ || wants_outlines(); }
  // Cell (i, j) of the map itself; the last one asked is kept, as a hover asks it every frame
  // (its row is made again where no band of level 0 holds it).
  float value(int i, int j);
  const MapPyramid& pyramid() const { return pyramid_; }
  // A tile of level 0 was drawn without the outlines the source makes slowly
  // (MapSource::make_outlined): the view makes them off the UI thread and hands them over here,
  // which draws those tiles again.
  bool wants_outlines() const { return wants_outlines_ && pyramid_.outlines_pending(); }
  void set_outlined(MapSource::Outlined outlined);

 private:
  struct Tile {
    HeatmapImage image;
    uint64_t used = 0;
  };
  using TileKey = std::tuple<int, int64_t, int64_t, int>;  // level, band, column tile, pixels a cell
  const HeatmapImage* tile(const HeatmapRenderer& renderer, const TileKey& key, bool make);
  void drop_old_tiles();

  std::shared_ptr<const AnalysisSnapshot> snapshot_;  // what the pyramid reads
  MapPyramid pyramid_;
  HeatmapPanel style_;  // colormap and colour scale; no values
  HeatmapImage top_;
  std::map<TileKey, Tile> tiles_;
  uint64_t clock_ = 0;
  bool pending_ = true;
  bool wants_outlines_ = false;
  std::pair<int, int> hovered_{-1, -1};
  float hovered_value_ = 0;
};

}  // namespace attnscope::ui
