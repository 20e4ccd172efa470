#include "model/token_matrix.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstring>
#include <string>

#include "base/error.h"

namespace attnscope {

namespace {

using Floats8 = float __attribute__((vector_size(32)));

// One row's dot product with x in a fixed order: four sums of eight lanes each over the row's
// whole groups of 32, added, then the rest.
float row_dot(const float* w, const float* x, int64_t d) {
  Floats8 sums[4] = {};
  int64_t j = 0;
  for (; j + 32 <= d; j += 32)
    for (int k = 0; k < 4; ++k) {
      Floats8 a, b;
      std::memcpy(&a, w + j + 8 * k, sizeof a);
      std::memcpy(&b, x + j + 8 * k, sizeof b);
      sums[k] += a * b;
    }
  const Floats8 both = (sums[0] + sums[1]) + (sums[2] + sums[3]);
  float sum = 0;
  for (int k = 0; k < 8; ++k) sum += both[k];
  for (; j < d; ++j) sum += w[j] * x[j];
  return sum;
}

}  // namespace

// On the CPU in float32 each row's dot product is row_dot's, the rows split among the threads:
// torch's product of a row-major matrix and a vector ran at some 10 GB/s on one thread whatever the
// threads here (SmolLM2's 113 MB output matrix: 11 ms, where summing it took 3 ms on two threads;
// Gemma 3's 671 MB: 60 ms, now 20).
at::Tensor output_scores(const at::Tensor& output, const at::Tensor& state) {
  if (!output.device().is_cpu() || output.scalar_type() != at::kFloat || !output.is_contiguous() ||
      state.scalar_type() != at::kFloat)
    return at::mv(output, state);
  const int64_t d = output.size(1);
  if (state.dim() != 1 || state.size(0) != d)
    throw Error("a state of " + std::to_string(state.numel()) + " numbers for an output matrix of rows of " +
                std::to_string(d));
  const at::Tensor x = state.contiguous();
  at::Tensor scores = at::empty({output.size(0)}, x.options());
  const float *w = output.data_ptr<float>(), *v = x.data_ptr<float>();
  float* out = scores.data_ptr<float>();
  at::parallel_for(0, output.size(0), 1024, [&](int64_t first, int64_t end) {
    for (int64_t r = first; r < end; ++r) out[r] = row_dot(w + r * d, v, d);
  });
  return scores;
}

at::Tensor TokenMatrix::lookup(const at::Tensor& ids) const {
  return q8_ ? q8_->rows_of(ids) : at::embedding(dense_, ids);
}

at::Tensor TokenMatrix::scores(const at::Tensor& state) const {
  if (q8_) return q8_->times(state);
  return output_scores(dense_, state.to(dense_.device(), dense_.scalar_type()));
}

}  // namespace attnscope
