#include "model/q8_rows.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "model/ggml_types.h"
#include "model/q8_row_kernel.h"

namespace attnscope {
namespace {

using q8_kernel::Floats8;
using q8_kernel::kBlock;
constexpr size_t kBlockBytes = 2 + 32;  // a block in the file: its float16 scale, then its 32 bytes

// Eight signed bytes as eight floats, one at a time: what every processor has.
struct PortableWiden {
  void operator()(const int8_t* q, Floats8& out) const {
    for (int l = 0; l < 8; ++l) out[l] = static_cast<float>(q[l]);
  }
};

#if defined(__x86_64__)
bool has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

void rows_times(const q8_kernel::RowsTimes& m, int64_t first, int64_t end, Q8Kernel kernel) {
#if defined(__x86_64__)
  if (kernel == Q8Kernel::Best && has_avx2()) return q8_kernel::rows_times_avx2(m, first, end);
#endif
  (void)kernel;
  m.rows(first, end, PortableWiden{});
}

}  // namespace

Q8Rows::Q8Rows(std::span<const std::byte> blocks, int64_t rows, int64_t columns) : rows_(rows), columns_(columns) {
  if (rows < 0 || columns <= 0 || columns % kBlock != 0)
    throw Error("a Q8_0 matrix of " + std::to_string(rows) + " x " + std::to_string(columns) +
                " (its rows must be whole blocks of 32)");
  const int64_t per_row = columns / kBlock;
  if (blocks.size() != static_cast<size_t>(rows * per_row) * kBlockBytes)
    throw Error("a Q8_0 matrix of " + std::to_string(rows) + " x " + std::to_string(columns) + " does not fit " +
                std::to_string(blocks.size()) + " bytes");
  quantities_ = at::empty({rows, columns}, at::kChar);
  scales_ = at::empty({rows, per_row}, at::kFloat);
  int8_t* q = quantities_.data_ptr<int8_t>();
  float* s = scales_.data_ptr<float>();
  at::parallel_for(0, rows * per_row, 4096, [&](int64_t first, int64_t end) {
    for (int64_t b = first; b < end; ++b) {
      const std::byte* block = blocks.data() + b * kBlockBytes;
      uint16_t scale = 0;
      std::memcpy(&scale, block, 2);  // little-endian, as the files are
      s[b] = half_to_float(scale);
      std::memcpy(q + b * kBlock, block + 2, kBlock);
    }
  });
}

size_t Q8Rows::bytes() const { return quantities_.nbytes() + scales_.nbytes(); }

at::Tensor Q8Rows::rows_of(const at::Tensor& ids) const {
  const at::Tensor flat = ids.to(at::kCPU, at::kLong).contiguous().view(-1);
  const int64_t* id = flat.data_ptr<int64_t>();
  for (int64_t k = 0; k < flat.numel(); ++k)
    if (id[k] < 0 || id[k] >= rows_)
      throw Error("token id " + std::to_string(id[k]) + " is outside the vocabulary of " + std::to_string(rows_));
  std::vector<int64_t> shape = ids.sizes().vec();
  shape.push_back(columns_);
  at::Tensor out = at::empty(shape, at::kFloat);
  const int8_t* q = quantities_.data_ptr<int8_t>();
  const float* s = scales_.data_ptr<float>();
  float* o = out.data_ptr<float>();
  at::parallel_for(0, flat.numel(), 16, [&](int64_t first, int64_t end) {
    for (int64_t k = first; k < end; ++k)  // as ggml's dequantisation: byte times scale, in float32
      for (int64_t j = 0; j < columns_; ++j)
        o[k * columns_ + j] = static_cast<float>(q[id[k] * columns_ + j]) * s[id[k] * (columns_ / kBlock) + j / kBlock];
  });
  return out;
}

at::Tensor Q8Rows::times(const at::Tensor& x, Q8Kernel kernel) const {
  if (x.dim() != 1 || x.size(0) != columns_)
    throw Error("a vector of " + std::to_string(x.numel()) + " numbers for a matrix of rows of " +
                std::to_string(columns_));
  const at::Tensor v = x.to(at::kCPU, at::kFloat).contiguous();
  at::Tensor out = at::empty({rows_}, at::kFloat);
  const q8_kernel::RowsTimes m{quantities_.data_ptr<int8_t>(), scales_.data_ptr<float>(), v.data_ptr<float>(),
                               out.data_ptr<float>(), columns_};
  at::parallel_for(0, rows_, 1024, [&](int64_t first, int64_t end) { rows_times(m, first, end, kernel); });
  return out;
}

}  // namespace attnscope
