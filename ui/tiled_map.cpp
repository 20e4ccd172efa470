#include "tiled_map.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "figures/pooled_panel.h"
#include "gl/texture_id.h"

namespace attnscope::ui {
namespace {

// Tiles kept as textures: a screen of them twice over (a tile is at most 512 pixels a side, 1 MB).
constexpr size_t kKeptTiles = 96;

}  // namespace

TiledMap::TiledMap(std::shared_ptr<const AnalysisSnapshot> snapshot, MapSource source, const HeatmapPanel& style,
                   PyramidOptions options)
    : snapshot_(std::move(snapshot)), pyramid_(std::move(source), options), style_(style) {
  style_.values.clear();
  style_.outlined.clear();
}

TiledMap::TiledMap(std::shared_ptr<const AnalysisSnapshot> snapshot, MapPyramid made, const HeatmapPanel& style)
    : snapshot_(std::move(snapshot)), pyramid_(std::move(made)), style_(style) {
  style_.values.clear();
  style_.outlined.clear();
  if (pyramid_.top_done()) style_.color_scale = pyramid_.color_scale();
}

bool TiledMap::make_top(Clock::time_point deadline) {
  if (pyramid_.top_done()) return true;
  if (Clock::now() >= deadline) return false;  // the frame's budget went to the figure's other maps
  if (!pyramid_.make_top(std::max(Clock::duration::zero(), deadline - Clock::now()))) return false;
  style_.color_scale = pyramid_.color_scale();
  return true;
}

float TiledMap::value(int i, int j) {
  if (hovered_ != std::pair{i, j}) {
    hovered_ = {i, j};
    hovered_value_ = pyramid_.value(i, j);
  }
  return hovered_value_;
}

const HeatmapImage* TiledMap::tile(const HeatmapRenderer& renderer, const TileKey& key, bool make) {
  if (auto it = tiles_.find(key); it != tiles_.end()) {
    it->second.used = ++clock_;
    return &it->second.image;
  }
  const auto [level, b, column_tile, cell_px] = key;
  const PooledBand* band = pyramid_.band(level, b, make);
  if (!band) return nullptr;
  HeatmapPanel p = style_;
  p.rows = static_cast<int>(band->rows);
  const int64_t first = column_tile * MapPyramid::kTileCells;
  p.cols = static_cast<int>(std::min(MapPyramid::kTileCells, band->cols - first));
  p.values.resize(static_cast<size_t>(p.rows) * p.cols);
  for (int r = 0; r < p.rows; ++r)
    std::copy_n(band->values.begin() + r * band->cols + first, p.cols, p.values.begin() + r * p.cols);
  if (level == 0 && cell_px >= 3) {
    p.outlined = pyramid_.outlined(b, column_tile);
    wants_outlines_ = wants_outlines_ || pyramid_.outlines_pending();
  }
  drop_old_tiles();
  Tile& made = tiles_[key];
  made = {renderer.render(p, cell_px * std::max(p.rows, p.cols)), ++clock_};
  return &made.image;
}

void TiledMap::set_outlined(MapSource::Outlined outlined) {
  pyramid_.set_outlined(std::move(outlined));
  wants_outlines_ = false;
  for (auto it = tiles_.begin(); it != tiles_.end();) {
    const auto [level, b, column_tile, cell_px] = it->first;
    it = level == 0 && cell_px >= 3 ? tiles_.erase(it) : std::next(it);
  }
}

void TiledMap::drop_old_tiles() {
  while (tiles_.size() >= kKeptTiles) {
    tiles_.erase(std::min_element(tiles_.begin(), tiles_.end(),
                                  [](const auto& a, const auto& b) { return a.second.used < b.second.used; }));
  }
}

// The top level stretched over the whole plot, then the finer tiles over what the clip rectangle
// shows, those not made yet made until the frame's deadline (the coarser level shows meanwhile).
void TiledMap::draw(const HeatmapRenderer& renderer, ImDrawList* list, ImVec2 p0, ImVec2 p1,
                    Clock::time_point deadline) {
  pending_ = !pyramid_.top_done();
  if (pending_) return;
  // The top level as FigureCanvas renders a whole map (the same pixels below 1,024 tokens), pooled
  // further where its cells outnumber the pixels.
  const int64_t top_cells = pyramid_.cells(pyramid_.top_level());
  if (const int64_t k = display_pooling(top_cells, p1.x - p0.x); !top_.texture.get() || top_.pooled_by != k) {
    HeatmapPanel top = style_;
    top.rows = top.cols = static_cast<int>(top_cells);
    top.values = pyramid_.top();
    top_ = renderer.render(k > 1 ? pooled_panel(top, k) : top, 1024);
    top_.pooled_by = k;
  }
  list->AddImage(texture_id(top_), p0, p1);
  const ImVec4 clip = list->_CmdHeader.ClipRect;
  if (clip.x >= p1.x || clip.z <= p0.x || clip.y >= p1.y || clip.w <= p0.y) return;  // out of sight
  const double n = static_cast<double>(pyramid_.length()), px = (p1.x - p0.x) / n;   // pixels a token
  // The finest level whose cells take a pixel or more: a finer one's would be sampled, not pooled.
  const int level = std::clamp(static_cast<int>(std::ceil(std::log2(1.0 / px) - 1e-9)), 0, pyramid_.top_level());
  if (level == pyramid_.top_level()) return;
  const double tile_tokens = static_cast<double>(MapPyramid::kTileCells << level), tile_px = tile_tokens * px;
  const auto tiles_between = [&](float from, float to, float origin, int64_t count) {
    const auto first = static_cast<int64_t>(std::floor(std::max(0.0f, from - origin) / tile_px));
    const auto last = static_cast<int64_t>(std::floor(std::max(0.0f, to - origin) / tile_px));
    return std::make_pair(std::min(first, count - 1), std::min(last, count - 1));
  };
  const int64_t count = pyramid_.bands(level);
  const auto [b0, b1] = tiles_between(clip.y, clip.w, p0.y, count);
  const auto [t0, t1] = tiles_between(clip.x, clip.z, p0.x, count);
  const int cell_px = std::clamp(static_cast<int>(px * (1 << level)), 1, 4);
  for (int64_t b = b0; b <= b1; ++b)
    for (int64_t t = t0; t <= t1; ++t) {
      const bool may_make = Clock::now() < deadline;
      const HeatmapImage* image = tile(renderer, {level, b, t, cell_px}, may_make);
      if (!image) {
        pending_ = true;
        continue;
      }
      const auto edge = [&](int64_t k, float origin) {
        return origin + static_cast<float>(std::min(n, static_cast<double>(k) * tile_tokens) * px);
      };
      list->AddImage(texture_id(*image), ImVec2(edge(t, p0.x), edge(b, p0.y)),
                     ImVec2(edge(t + 1, p0.x), edge(b + 1, p0.y)));
    }
}

}  // namespace attnscope::ui
