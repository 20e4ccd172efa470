#include "figures/colormap.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "base/error.h"

namespace attnscope {
namespace {

// Colours are interpolated in Oklab between anchor colours, so that equal steps in t look like
// equal steps in colour. The anchors are the published colours of each map at evenly spaced t.
struct Lab {
  double L, a, b;
};

double to_linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double to_srgb(double c) {
  c = std::clamp(c, 0.0, 1.0);
  return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
}

Lab oklab(Rgb c) {
  const double r = to_linear(c.r), g = to_linear(c.g), b = to_linear(c.b);
  const double l = std::cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const double m = std::cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const double s = std::cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return {0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
          1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
          0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s};
}

Rgb from_oklab(Lab c) {
  const double l = std::pow(c.L + 0.3963377774 * c.a + 0.2158037573 * c.b, 3);
  const double m = std::pow(c.L - 0.1055613458 * c.a - 0.0638541728 * c.b, 3);
  const double s = std::pow(c.L - 0.0894841775 * c.a - 1.2914855480 * c.b, 3);
  return {static_cast<float>(to_srgb(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s)),
          static_cast<float>(to_srgb(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s)),
          static_cast<float>(to_srgb(-0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s))};
}

Rgb hex(uint32_t v) { return {((v >> 16) & 255) / 255.0f, ((v >> 8) & 255) / 255.0f, (v & 255) / 255.0f}; }

Colormap build(ColormapId id, const char* name, bool diverging, std::vector<uint32_t> anchors) {
  Colormap map{id, name, diverging, {}};
  std::vector<Lab> lab;
  for (uint32_t a : anchors) lab.push_back(oklab(hex(a)));
  const double segments = static_cast<double>(lab.size() - 1);
  for (size_t i = 0; i < map.table.size(); ++i) {
    const double t = static_cast<double>(i) / (map.table.size() - 1) * segments;
    const size_t k = std::min(static_cast<size_t>(t), lab.size() - 2);
    const double f = t - static_cast<double>(k);
    const Lab& p = lab[k];
    const Lab& q = lab[k + 1];
    map.table[i] = from_oklab({p.L + f * (q.L - p.L), p.a + f * (q.a - p.a), p.b + f * (q.b - p.b)});
  }
  // The ends are exactly the anchors (no round trip error).
  map.table.front() = hex(anchors.front());
  map.table.back() = hex(anchors.back());
  return map;
}

std::vector<Colormap> build_all() {
  return {
      build(ColormapId::Viridis, "viridis", false,
            {0x440154, 0x472D7B, 0x3B528B, 0x2C728E, 0x21908C, 0x27AD81, 0x5DC863, 0xAADC32, 0xFDE725}),
      build(ColormapId::Magma, "magma", false,
            {0x000004, 0x1D1147, 0x51127C, 0x822681, 0xB63679, 0xE65164, 0xFB8861, 0xFEC287, 0xFCFDBF}),
      build(ColormapId::Diverging, "diverging", true,
            {0x053061, 0x2166AC, 0x4393C3, 0x92C5DE, 0xD1E5F0, 0xF7F7F7, 0xFDDBC7, 0xF4A582, 0xD6604D, 0xB2182B,
             0x67001F}),
      build(ColormapId::HighContrast, "high-contrast", false, {0x000000, 0xB40000, 0xFF6400, 0xFFDC00, 0xFFFFFF}),
  };
}

const std::vector<Colormap>& maps() {
  static const std::vector<Colormap> all = build_all();
  return all;
}

}  // namespace

Rgb Colormap::at(double t) const {
  if (std::isnan(t)) t = 0;
  const double x = std::clamp(t, 0.0, 1.0) * (table.size() - 1);
  return table[static_cast<size_t>(std::lround(x))];
}

const Colormap& colormap(ColormapId id) { return maps().at(static_cast<size_t>(id)); }

std::array<std::array<uint8_t, 4>, 256> Colormap::rgba8() const {
  const auto byte = [](float v) { return static_cast<uint8_t>(std::clamp(v, 0.0f, 1.0f) * 255 + 0.5f); };
  std::array<std::array<uint8_t, 4>, 256> pixels{};
  for (size_t k = 0; k < table.size(); ++k) pixels[k] = {byte(table[k].r), byte(table[k].g), byte(table[k].b), 255};
  return pixels;
}

const std::vector<ColormapId>& all_colormaps() {
  static const std::vector<ColormapId> ids = {ColormapId::Viridis, ColormapId::Magma, ColormapId::Diverging,
                                              ColormapId::HighContrast};
  return ids;
}

ColormapId colormap_by_name(const std::string& name) {
  for (const Colormap& m : maps())
    if (name == m.name) return m.id;
  throw Error("unknown colormap \"" + name + "\": expected viridis, magma, diverging or high-contrast");
}

double ColorScale::position(double v) const {
  if (std::isnan(v)) return v;
  constexpr double kDecades = 1e3;
  if (symmetric) {
    const double limit = std::max(std::abs(lo), std::abs(hi));
    if (limit <= 0) return 0.5;
    // Linear and clipped alike a straight line; the log a symmetric log, itself linear below c.
    if (scale != ValueScale::Log) return std::clamp(0.5 + 0.5 * v / limit, 0.0, 1.0);
    const double c = limit / kDecades;
    const auto symlog = [c](double x) { return std::copysign(std::log10(1 + std::abs(x) / c), x); };
    return std::clamp(0.5 + 0.5 * symlog(v) / symlog(limit), 0.0, 1.0);
  }
  if (scale == ValueScale::Log) {
    if (hi <= 0) return 0;
    const double floor = hi / kDecades;
    if (v <= floor) return 0;
    return std::clamp(std::log10(v / floor) / std::log10(kDecades), 0.0, 1.0);
  }
  if (hi <= lo) return 0.5;
  return std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
}

std::optional<ColorScale::Affine> ColorScale::affine() const {
  if (symmetric) {
    if (scale == ValueScale::Log) return std::nullopt;  // the symmetric log
    const double limit = std::max(std::abs(lo), std::abs(hi));
    return limit > 0 ? Affine{0.5 / limit, 0.5} : Affine{};
  }
  if (scale == ValueScale::Log) return std::nullopt;
  return hi > lo ? Affine{1 / (hi - lo), -lo / (hi - lo)} : Affine{};
}

const char* value_scale_name(ValueScale scale) {
  switch (scale) {
    case ValueScale::Linear: return "linear";
    case ValueScale::Log: return "log";
    case ValueScale::Clipped: return "clipped";
  }
  return "?";
}

ValueScale value_scale_by_name(const std::string& name) {
  for (ValueScale s : {ValueScale::Linear, ValueScale::Log, ValueScale::Clipped})
    if (name == value_scale_name(s)) return s;
  throw Error("unknown scale \"" + name + "\": expected linear, log or clipped");
}

namespace {

// The k-th smallest (from 0) of the values that are not NaN (their magnitudes when `magnitude`),
// of which there are `count` > k. Near the top, as the 99th percentile is, the few values above it
// are kept in a min-heap and most values cost one comparison: the overview colours 156 maps for
// every edit, and sorting a copy of each took most of that time.
float kth_smallest(const std::vector<float>& values, size_t count, size_t k, bool magnitude) {
  const size_t above = count - k;  // the k-th smallest is the above-th largest
  std::vector<float> heap;
  heap.reserve(above);
  for (float v : values) {
    if (std::isnan(v)) continue;
    if (magnitude) v = std::abs(v);
    if (heap.size() < above) {
      heap.push_back(v);
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    } else if (v > heap.front()) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      heap.back() = v;
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    }
  }
  return heap.front();
}

}  // namespace

ColorScale color_scale_for(const std::vector<float>& values, ValueScale scale, bool symmetric) {
  const auto [lo, hi] = value_range(values);
  if (scale != ValueScale::Clipped) return {lo, hi, scale, symmetric};
  const auto count =
      static_cast<size_t>(std::count_if(values.begin(), values.end(), [](float v) { return !std::isnan(v); }));
  if (count == 0) return {lo, hi, scale, symmetric};
  const auto k = static_cast<size_t>(std::ceil(kClipPercentile * static_cast<double>(count))) - 1;
  const double top = kth_smallest(values, count, k, symmetric);
  if (symmetric) return {-top, top, scale, true};
  return {lo, top > lo ? top : hi, scale, false};
}

std::pair<double, double> value_range(const std::vector<float>& values) {
  // In registers, NaN skipped by the comparisons themselves (it compares false): the overview
  // ranges 156 maps for every edit.
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (float v : values) {
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  if (lo > hi) return {0.0, 1.0};
  return {lo, hi};
}

}  // namespace attnscope
