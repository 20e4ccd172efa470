#include "figure_canvas.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "figures/figure_painter.h"
#include "figures/pooled_panel.h"
#include "gl/texture_id.h"

namespace attnscope::ui {
namespace {

ImU32 rgba(Rgb c, double alpha) {
  return IM_COL32(static_cast<int>(c.r * 255 + 0.5f), static_cast<int>(c.g * 255 + 0.5f),
                  static_cast<int>(c.b * 255 + 0.5f), static_cast<int>(alpha * 255 + 0.5));
}

}  // namespace

// Paints into the current ImGui window's draw list, offset to the canvas origin.
class ImGuiPainter final : public Painter {
 public:
  ImGuiPainter(FigureCanvas& canvas, const HeatmapRenderer& renderer, ImVec2 origin)
      : canvas_(canvas),
        renderer_(renderer),
        origin_(origin),
        list_(ImGui::GetWindowDrawList()),
        font_(ImGui::GetFont()) {}

  double text_width(const std::string& text, double size) override {
    return font_->CalcTextSizeA(static_cast<float>(size), FLT_MAX, 0.0f, text.c_str()).x;
  }

  void text(const std::string& text, double x, double y, double size, Align align, bool upwards, Rgb color) override {
    // Out of sight across the line's height: not written (a long text's map has thousands of labels).
    const ImVec4 clip = list_->_CmdHeader.ClipRect;
    const ImVec2 p = at(x, y);
    const auto f = static_cast<float>(size);
    if (upwards ? p.x + f < clip.x || p.x - f > clip.z : p.y + f < clip.y || p.y - f > clip.w) return;
    const double w = text_width(text, size);
    const double shift = align == Align::Left ? 0 : align == Align::Center ? -w / 2 : -w;
    const ImVec2 pivot = p;
    if (!upwards) {
      list_->AddText(font_, f, ImVec2(pivot.x + static_cast<float>(shift), pivot.y - f * 0.5f), rgba(color, 1),
                     text.c_str());
      return;
    }
    // Written level at the clip rectangle's corner, where ImGui keeps every glyph (it drops glyphs
    // outside the clip rectangle as it writes them, before we turn them), then turned a quarter
    // about the anchor to read from bottom to top, and moved to the pivot.
    const ImVec2 level(clip.x, clip.y);
    const ImVec2 anchor(level.x - static_cast<float>(shift), level.y + f * 0.5f);
    const int first = list_->VtxBuffer.Size;
    list_->AddText(font_, f, level, rgba(color, 1), text.c_str());
    for (int k = first; k < list_->VtxBuffer.Size; ++k) {
      ImVec2& p = list_->VtxBuffer[k].pos;
      const ImVec2 d(p.x - anchor.x, p.y - anchor.y);
      p = ImVec2(pivot.x + d.y, pivot.y - d.x);
    }
  }

  void fill_rect(const Rect& r, Rgb color, double alpha) override {
    list_->AddRectFilled(at(r.x, r.y), at(r.right(), r.bottom()), rgba(color, alpha));
  }

  // A line of a pixel (or `width`, where wider) through the pixels just outside those the map's
  // image covers (their centres inside it: a map's edge need not fall on a pixel's), so that
  // neither the line nor its anti-aliased fringe, a pixel either side of its centre, reaches the
  // map. ImGui strokes a rectangle half a pixel inside the corners it is given.
  void frame(const Rect& r, Rgb color, double width) override {
    const float w = static_cast<float>(std::max(1.0, width)), out = (w - 1) / 2;
    const ImVec2 a = at(r.x, r.y), b = at(r.right(), r.bottom());
    const auto first = [](float edge) { return std::ceil(edge - 0.5f); };  // the first pixel covered
    list_->AddRect(ImVec2(first(a.x) - 1 - out, first(a.y) - 1 - out),
                   ImVec2(first(b.x) + 1 + out, first(b.y) + 1 + out), rgba(color, 1), 0.0f, 0, w);
  }

  void line(double x0, double y0, double x1, double y1, Rgb color, double alpha, double width) override {
    const ImVec4 clip = list_->_CmdHeader.ClipRect;  // out of sight: a long text's lines run far below
    const ImVec2 a = at(x0, y0), b = at(x1, y1);
    if (std::max(a.y, b.y) < clip.y || std::min(a.y, b.y) > clip.w) return;
    list_->AddLine(a, b, rgba(color, alpha), static_cast<float>(width));
  }

  void heatmap(const HeatmapPanel& panel, size_t index, const Rect& r) override {
    if (TiledMap* map = canvas_.tiled(index)) return tiled(*map, r);
    auto& image = canvas_.images_.at(index);
    // Shown smaller than its cells, pooled to about a cell a pixel (made again as zooming changes that).
    const int64_t k = display_pooling(std::max(panel.rows, panel.cols), std::min(r.w, r.h));
    if (!image || image->pooled_by != k) {
      image = renderer_.render(k > 1 ? pooled_panel(panel, k) : panel, 1024);
      image->pooled_by = k;
    }
    list_->AddImage(texture_id(*image), at(r.x, r.y), at(r.right(), r.bottom()));
  }

  void colorbar(ColormapId id, const Rect& r) override {
    auto& image = canvas_.colorbars_.at(static_cast<size_t>(id));
    if (!image) {
      HeatmapPanel bar;
      bar.rows = 256;
      bar.cols = 1;
      for (int i = 0; i < 256; ++i) bar.values.push_back(static_cast<float>(255 - i) / 255.0f);
      bar.colormap = id;
      bar.color_scale = {0, 1, ValueScale::Linear, false};
      image = renderer_.render(bar, 256);
    }
    list_->AddImage(texture_id(*image), at(r.x, r.y), at(r.right(), r.bottom()));
  }

 private:
  // A long text's map; while its top level is being made, a line saying how far it has come.
  void tiled(TiledMap& map, const Rect& r) {
    if (map.top_share() < 1) {
      list_->AddRectFilled(at(r.x, r.y), at(r.right(), r.bottom()), IM_COL32(60, 60, 60, 255));
      char line[64];
      std::snprintf(line, sizeof line, "making the map: %.0f%%", 100 * map.top_share());
      list_->AddText(at(r.x + 8, r.y + 8), IM_COL32(230, 230, 230, 255), line);
    }
    map.draw(renderer_, list_, at(r.x, r.y), at(r.right(), r.bottom()), canvas_.deadline_);
  }

  ImVec2 at(double x, double y) const {
    return ImVec2(origin_.x + static_cast<float>(x), origin_.y + static_cast<float>(y));
  }

  FigureCanvas& canvas_;
  const HeatmapRenderer& renderer_;
  ImVec2 origin_;
  ImDrawList* list_;
  ImFont* font_;
};

void FigureCanvas::set_lines_focus(int side, int index) {
  for (Panel& panel : figure_.panels)
    if (auto* lines = std::get_if<LinesPanel>(&panel)) {
      lines->focus_side = side;
      lines->focus_index = index;
    }
}

void FigureCanvas::set(Figure figure, std::vector<std::unique_ptr<TiledMap>> tiled) {
  figure_ = std::move(figure);
  images_.clear();
  images_.resize(figure_.panels.size());
  tiled_ = std::move(tiled);
  fitted_for_ = {-1, -1, -1};
}

namespace {

void cell_tooltip(const HeatmapPanel& p, int r, int c, float v) {
  const auto label = [](const std::vector<std::string>& labels, int k) {
    return k < static_cast<int>(labels.size()) ? labels[k] : std::string();
  };
  ImGui::BeginTooltip();
  ImGui::Text("i = %d  %s", r, label(p.row_labels, r).c_str());
  ImGui::Text("j = %d  %s", c, label(p.col_labels, c).c_str());
  if (std::isnan(v))
    ImGui::TextUnformatted("(empty)");
  else
    ImGui::Text("%s = %.6g", p.colorbar_label.empty() ? "value" : p.colorbar_label.c_str(), v);
  ImGui::EndTooltip();
}

// Frames the tokens of a highlighted pair in a token text panel; where the first one is.
std::optional<HighlightPlace> highlight_tokens(const PanelLayout& l, ImVec2 origin,
                                               const std::vector<CellHighlight>& highlights, int panel) {
  std::optional<HighlightPlace> first;
  for (const CellHighlight& h : highlights) {
    if (h.panel != panel) continue;
    for (int k : {h.row, h.col}) {
      if (k < 0 || k >= static_cast<int>(l.token_boxes.size())) continue;
      const Rect& b = l.token_boxes[static_cast<size_t>(k)];
      if (!first)
        first = HighlightPlace{static_cast<float>(b.x), static_cast<float>(b.y), static_cast<float>(b.right()),
                               static_cast<float>(b.bottom())};
      ImGui::GetWindowDrawList()->AddRect(
          ImVec2(origin.x + static_cast<float>(b.x) - 2, origin.y + static_cast<float>(b.y) - 2),
          ImVec2(origin.x + static_cast<float>(b.right()) + 2, origin.y + static_cast<float>(b.bottom()) + 2),
          IM_COL32(255, 200, 0, 255), 0.0f, 0, 3.0f);
    }
  }
  return first;
}

}  // namespace

std::vector<TiledMap*> FigureCanvas::tiled_maps() const {
  std::vector<TiledMap*> maps;
  for (const auto& map : tiled_)
    if (map) maps.push_back(map.get());
  return maps;
}

bool FigureCanvas::pending() const {
  return std::any_of(tiled_.begin(), tiled_.end(), [](const auto& map) { return map && map->pending(); });
}

const Figure& FigureCanvas::exported() {
  if (tiled_.empty()) return figure_;
  exported_ = figure_;
  for (size_t i = 0; i < tiled_.size(); ++i) {
    if (!tiled_[i] || tiled_[i]->top_share() < 1) continue;
    auto& p = std::get<HeatmapPanel>(exported_.panels.at(i));
    const MapPyramid& pyramid = tiled_[i]->pyramid();
    const int k = 1 << pyramid.top_level();
    p.rows = p.cols = static_cast<int>(pyramid.cells(pyramid.top_level()));
    p.values = pyramid.top();
    p.row_labels.clear();
    p.col_labels.clear();
    if (k > 1) p.title += " (each cell the largest of " + std::to_string(k) + " x " + std::to_string(k) + ")";
  }
  return exported_;
}

float FigureCanvas::max_zoom() const {
  int64_t n = 0;
  for (const auto& map : tiled_)
    if (map) n = std::max(n, map->pyramid().length());
  return std::max(6.0f, static_cast<float>(n) / 32.0f);
}

float FigureCanvas::fitting_width(float max_width, float max_height, float font_size) {
  if (empty()) return max_width;
  if (fitted_for_ == std::array<float, 3>{max_width, max_height, font_size}) return fitted_;
  fitted_for_ = {max_width, max_height, font_size};
  fitted_ = fitting_width_now(max_width, max_height, font_size);
  return fitted_;
}

float FigureCanvas::fitting_width_now(float max_width, float max_height, float font_size) {
  ImFont* font = ImGui::GetFont();
  const TextMeasure measure = [font](const std::string& text, double size) {
    return static_cast<double>(font->CalcTextSizeA(static_cast<float>(size), FLT_MAX, 0.0f, text.c_str()).x);
  };
  const auto height_at = [&](float width) { return layout_figure(figure_, width, font_size, measure).height; };
  if (height_at(max_width) <= max_height) return max_width;
  // The height grows with the width, but not in proportion (text keeps its size): bisect.
  // Shrunk by at most a third and a bit: below that, titles wrap and bars crowd; a figure that
  // cannot fit by then (a long text, many bar charts) keeps the width and scrolls.
  float low = std::max(std::min(max_width, font_size * 12), max_width * 0.6f), high = max_width;
  if (height_at(low) > max_height) return max_width;
  for (int step = 0; step < 10; ++step) {
    const float middle = (low + high) / 2;
    (height_at(middle) <= max_height ? low : high) = middle;
  }
  return low;
}

CanvasHover FigureCanvas::draw(const HeatmapRenderer& renderer, float width, float font_size,
                               const std::vector<CellHighlight>& highlights) {
  CanvasHover hover;
  if (empty()) return hover;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  deadline_ = TiledMap::Clock::now() + TiledMap::kFrameBudget;
  highlighted_.reset();
  for (size_t i = 0; i < tiled_.size(); ++i)  // a map's colour scale is known once its top level is made
    if (tiled_[i] && tiled_[i]->make_top(deadline_))
      std::get<HeatmapPanel>(figure_.panels.at(i)).color_scale = tiled_[i]->scale();
  ImGuiPainter painter(*this, renderer, origin);
  const FigureLayout layout = layout_figure(figure_, width, font_size, measure_with(painter));
  paint_figure(painter, figure_, layout);
  ImGui::InvisibleButton("figure", ImVec2(static_cast<float>(layout.width), static_cast<float>(layout.height)));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (size_t i = 0; i < figure_.panels.size(); ++i) {
    if (std::holds_alternative<TokenTextPanel>(figure_.panels[i]))
      if (const auto place = highlight_tokens(layout.panels[i], origin, highlights, static_cast<int>(i)); place)
        highlighted_ = place;
    if (const auto* lines = std::get_if<LinesPanel>(&figure_.panels[i]); lines && hovered) {
      const auto [side, token] =
          lines_token(*lines, layout.panels[i], mouse.x - origin.x, mouse.y - origin.y, measure_with(painter));
      if (token >= 0) {
        hover = {static_cast<int>(i), -1, -1, ImGui::IsItemClicked(), side, token};
        ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
      }
    }
    const auto* p = std::get_if<HeatmapPanel>(&figure_.panels[i]);
    if (!p) continue;
    const Rect& plot = layout.panels[i].plot;
    for (const CellHighlight& h : highlights) {
      if (h.panel != static_cast<int>(i) || h.row < 0) continue;
      const double cw = plot.w / p->cols, ch = plot.h / p->rows;
      ImGui::GetWindowDrawList()->AddRect(ImVec2(origin.x + static_cast<float>(plot.x + h.col * cw) - 2,
                                                 origin.y + static_cast<float>(plot.y + h.row * ch) - 2),
                                          ImVec2(origin.x + static_cast<float>(plot.x + (h.col + 1) * cw) + 2,
                                                 origin.y + static_cast<float>(plot.y + (h.row + 1) * ch) + 2),
                                          IM_COL32(255, 200, 0, 255), 0.0f, 0, 3.0f);
    }
    if (!hovered) continue;
    const auto [r, c] = heatmap_cell(*p, layout.panels[i], mouse.x - origin.x, mouse.y - origin.y);
    if (r < 0) continue;
    hover = {static_cast<int>(i), r, c, ImGui::IsItemClicked()};
    TiledMap* map = tiled(i);
    if (!map || map->top_share() == 1) cell_tooltip(*p, r, c, map ? map->value(r, c) : p->value(r, c));
  }
  return hover;
}

}  // namespace attnscope::ui
