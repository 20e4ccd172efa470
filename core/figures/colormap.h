#pragma once
// Colormaps as 256-entry lookup tables, and the one function that turns a value into a position
// on them. The screen (a shader reading the table) and exported files use the same table and the
// same normalisation, so a figure looks the same in both.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnscope {

struct Rgb {
  float r = 0, g = 0, b = 0;  // 0 .. 1, sRGB
};

enum class ColormapId {
  Viridis,       // perceptual, dark to light: the default for maps that are >= 0
  Magma,         // perceptual, black to light
  Diverging,     // blue - white - red, centred at 0: signed similarity
  HighContrast,  // black - red - yellow - white: projectors
};

struct Colormap {
  ColormapId id;
  const char* name;
  bool diverging;
  std::array<Rgb, 256> table;
  // The colour at t in [0, 1] (clamped; NaN gives the table's first entry).
  Rgb at(double t) const;
  // The table as 8-bit RGBA pixels, alpha 255: what the screen's lookup texture and the overview's
  // atlas of thumbnails are coloured with.
  std::array<std::array<uint8_t, 4>, 256> rgba8() const;
};

const Colormap& colormap(ColormapId id);
const std::vector<ColormapId>& all_colormaps();
// "viridis", "magma", "diverging", "high-contrast"; throws attnscope::Error for other names.
ColormapId colormap_by_name(const std::string& name);

// Linear; Log (three decades below the top); Clipped: linear up to the 99th percentile of the
// map, the top 1% drawn in the top colour. Attention maps give one column or the diagonal most of
// the weight, so on a linear scale the rest of the map is one dark colour; clipped, the structure
// of the other 99% shows (chosen by looking at the heads of several texts; the legend says so).
enum class ValueScale { Linear, Log, Clipped };
const char* value_scale_name(ValueScale scale);           // "linear", "log", "clipped"
ValueScale value_scale_by_name(const std::string& name);  // throws attnscope::Error
inline constexpr double kClipPercentile = 0.99;

// Where a value sits on the colormap, in [0, 1].
// Linear, Clipped: (v - lo) / (hi - lo). Log: log10 of v between hi / 1e3 and hi (values below map to 0).
// Symmetric (diverging maps): 0 maps to 0.5 and +-limit to 1 / 0, limit = max(|lo|, |hi|); the log
// variant is a symmetric log with a linear part below limit / 1e3.
// NaN stays NaN (an empty cell).
struct ColorScale {
  double lo = 0, hi = 1;
  ValueScale scale = ValueScale::Linear;
  bool symmetric = false;
  double position(double v) const;
  // position(v) = clamp(v * factor + offset, 0, 1) for a number v, where the scale is a straight
  // line (all but the log ones): a map coloured in bulk costs a multiply-add a cell.
  struct Affine {
    double factor = 0, offset = 0.5;
  };
  std::optional<Affine> affine() const;
};

// The value range of a matrix (NaN ignored), for ColorScale; {0, 1} when empty or all NaN.
std::pair<double, double> value_range(const std::vector<float>& values);
// The colour scale of a matrix: its range, or for Clipped the range up to the 99th percentile
// (of |v| when symmetric).
ColorScale color_scale_for(const std::vector<float>& values, ValueScale scale, bool symmetric);

}  // namespace attnscope
