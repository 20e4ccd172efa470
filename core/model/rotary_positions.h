#pragma once
// Rotary positions (RoPE): the tables of cosines and sines a layer's queries and keys are turned by,
// and the turning. The frequencies are theta^(-2i / r) over the r rotated dimensions of a head
// (all of them, or the first part, GPT-NeoX's partial rotation), scaled where the config asks:
// linearly (all divided by a factor) or as Llama 3 does (long wavelengths divided, short ones kept,
// the ones between interpolated). Computed in float32 as the references compute them.
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "model/config.h"

namespace attnscope {

struct RotaryTables {
  at::Tensor cos, sin;  // [r, n]: the layout of the transposed queries and keys they multiply
};

// The r / 2 inverse frequencies, float32 on the host.
at::Tensor rotary_frequencies(int64_t dims, double theta, const RotaryScaling& scaling);
// Tables for positions 0 .. n - 1 in the given options' device and dtype.
RotaryTables rotary_tables(int64_t n, int64_t dims, double theta, const RotaryScaling& scaling,
                           const at::TensorOptions& options);
// t: [.., d, n], queries or keys transposed; its first r rows turned, the rest as they are.
at::Tensor rotate(const at::Tensor& t, const RotaryTables& tables);

}  // namespace attnscope
