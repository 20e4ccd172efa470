#include "model/rotary_positions.h"

#include <ATen/ATen.h>

#include <cmath>
#include <numbers>

namespace attnscope {
namespace {

// Llama 3's: wavelengths longer than original / low_freq_factor slowed by the factor, shorter than
// original / high_freq_factor kept, those between a blend of the two weighted by how far between.
at::Tensor llama3_scaled(const at::Tensor& inv_freq, const RotaryScaling& s) {
  const double original = static_cast<double>(s.original_positions);
  const double long_wavelength = original / s.low_freq_factor, short_wavelength = original / s.high_freq_factor;
  const at::Tensor wavelength = (2 * std::numbers::pi) / inv_freq;
  const at::Tensor slowed = at::where(wavelength > long_wavelength, inv_freq / s.factor, inv_freq);
  const at::Tensor blend = (original / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
  const at::Tensor blended = (1 - blend) * slowed / s.factor + blend * slowed;
  const at::Tensor between = (wavelength >= short_wavelength).logical_and(wavelength <= long_wavelength);
  return at::where(between, blended, slowed);
}

}  // namespace

at::Tensor rotary_frequencies(int64_t dims, double theta, const RotaryScaling& scaling) {
  const auto f32 = at::TensorOptions().dtype(at::kFloat);
  const at::Tensor inv_freq = 1.0 / at::pow(theta, at::arange(0, dims, 2, f32) / static_cast<double>(dims));
  switch (scaling.kind) {
    case RotaryScaling::Kind::None: return inv_freq;
    case RotaryScaling::Kind::Linear: return inv_freq / scaling.factor;
    case RotaryScaling::Kind::Llama3: return llama3_scaled(inv_freq, scaling);
  }
  return inv_freq;
}

RotaryTables rotary_tables(int64_t n, int64_t dims, double theta, const RotaryScaling& scaling,
                           const at::TensorOptions& options) {
  const at::Tensor inv_freq = rotary_frequencies(dims, theta, scaling);
  const at::Tensor freqs = at::arange(n, at::TensorOptions().dtype(at::kFloat)).unsqueeze(1) * inv_freq.unsqueeze(0);
  const at::Tensor angles = at::cat({freqs, freqs}, -1).t().contiguous();  // [r, n]
  return {angles.cos().to(options), angles.sin().to(options)};
}

// x cos + rotate_half(x) sin, rotate_half(x1, x2) = (-x2, x1) along the rows r: the first half
// x1 cos - x2 sin, the second x2 cos + x1 sin, in place in x cos. a + (-b) s and a - b s are the
// same values to the bit (negation is exact), so this is transformers' order without the halves
// swapped into a new tensor (that copy and its negation took 22 ms of Gemma 3's forward at 512
// tokens) and with one temporary of half the size.
at::Tensor rotate(const at::Tensor& t, const RotaryTables& tables) {
  const int64_t r = tables.cos.size(0), half = r / 2;
  const auto turn = [&](const at::Tensor& x) {
    const at::Tensor x1 = x.narrow(-2, 0, half), x2 = x.narrow(-2, half, half);
    at::Tensor out = x * tables.cos;
    at::Tensor other = x2 * tables.sin.narrow(0, 0, half);
    out.narrow(-2, 0, half).sub_(other);
    out.narrow(-2, half, half).add_(at::mul_out(other, x1, tables.sin.narrow(0, half, half)));
    return out;
  };
  if (r == t.size(-2)) return turn(t);
  return at::cat({turn(t.narrow(-2, 0, r)), t.narrow(-2, r, t.size(-2) - r)}, -2);
}

}  // namespace attnscope
