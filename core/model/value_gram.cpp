#include "model/value_gram.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.h"

namespace attnscope {
namespace {

// Any device and dtype: one product of every head's values by its columns of W_O^T W_O ([B, H, D, n],
// the size of the f_h(x_j)), then each head's d values summed against it.
void value_gram_by_tensor_ops(const at::Tensor& product, const at::Tensor& values, at::Tensor& gram,
                              at::Tensor& norms) {
  const int64_t B = values.size(0), H = values.size(1), d = values.size(2), n = values.size(3), D = H * d;
  const at::Tensor columns = product.view({D, H, d}).permute({1, 0, 2});                    // [H, D, d]
  const at::Tensor through = at::matmul(columns, values);                                   // [B, H, D, n]
  const at::Tensor pairs = through.view({B, H, H, d, n}).mul_(values.unsqueeze(1)).sum(3);  // [B, H, H', n]
  gram.copy_(pairs.permute({0, 3, 1, 2}));
  norms.copy_(pairs.diagonal(0, 1, 2).clamp_min(0).sqrt().permute({0, 2, 1}));
}

// The CPU in float32. G_j is symmetric, so head h is multiplied only by the rows of W_O^T W_O of the
// heads h' >= h (a little over half the product), a slice of tokens at a time so that the product
// is summed against the values while it is still in the cache (the whole [B, H, D, n] product is
// larger than it and was measured twice as slow inside the forward as alone). Heads are taken in
// pairs (h, H - 1 - h), whose products together are the same size, to share the work evenly.
class GramOnCpu {
 public:
  GramOnCpu(const at::Tensor& product, const at::Tensor& values, at::Tensor& gram, at::Tensor& norms,
            int64_t first_slice)
      : first_slice_(first_slice),
        product_(product),
        values_(values),
        B_(values.size(0)),
        H_(values.size(1)),
        d_(values.size(2)),
        n_(values.size(3)),
        value_data_(values.data_ptr<float>()),
        gram_(gram.data_ptr<float>()),
        norms_(norms.data_ptr<float>()) {}

  void run() {
    const int64_t pairs = (H_ + 1) / 2, slices = (n_ + kSlice - 1) / kSlice - first_slice_;
    at::parallel_for(0, B_ * pairs * slices, 1, [&](int64_t first, int64_t last) {
      at::Tensor through = at::empty({H_ * d_, std::min(kSlice, n_)}, at::kFloat);
      for (int64_t item = first; item < last; ++item) {
        const int64_t b = item / (pairs * slices), pair = item / slices % pairs,
                      j0 = (first_slice_ + item % slices) * kSlice;
        head(b, pair, j0, through);
        if (H_ - 1 - pair != pair) head(b, H_ - 1 - pair, j0, through);
      }
    });
  }

 private:
  // Tokens per product: [D, 128] floats stay in a 1 MB cache up to D = 2048.
  static constexpr int64_t kSlice = kValueGramSlice;

  // Tokens j0 .. j0 + kSlice of head h against every head h' >= h.
  void head(int64_t b, int64_t h, int64_t j0, at::Tensor& through) const {
    const int64_t width = std::min(kSlice, n_ - j0), rows = (H_ - h) * d_;
    at::Tensor out = through.narrow(0, 0, rows).narrow(1, 0, width);
    const at::Tensor v = values_.select(0, b).select(0, h).narrow(1, j0, width);
    at::mm_out(out, product_.narrow(0, h * d_, rows).narrow(1, h * d_, d_), v);  // (W_O^T W_O)[h' >= h, h] v_j^h
    const float* t = out.data_ptr<float>();
    const int64_t t_stride = out.stride(0), v_stride = values_.stride(2);
    float sums[kSlice];
    for (int64_t later = h; later < H_; ++later) {
      const float* v_later = value_data_ + b * values_.stride(0) + later * values_.stride(1) + j0;
      std::fill(sums, sums + width, 0.0f);
      for (int64_t a = 0; a < d_; ++a) {
        const float *row = t + ((later - h) * d_ + a) * t_stride, *va = v_later + a * v_stride;
        for (int64_t j = 0; j < width; ++j) sums[j] += row[j] * va[j];
      }
      store(b, h, later, j0, width, sums);
    }
  }

  void store(int64_t b, int64_t h, int64_t later, int64_t j0, int64_t width, const float* sums) const {
    float* g = gram_ + (b * n_ + j0) * H_ * H_;
    for (int64_t j = 0; j < width; ++j) {
      g[j * H_ * H_ + h * H_ + later] = sums[j];
      g[j * H_ * H_ + later * H_ + h] = sums[j];
    }
    if (later == h) {
      float* norm = norms_ + (b * H_ + h) * n_ + j0;
      for (int64_t j = 0; j < width; ++j) norm[j] = std::sqrt(std::max(sums[j], 0.0f));
    }
  }

  const int64_t first_slice_;  // the slices before it are left as they are
  const at::Tensor& product_;
  at::Tensor values_;
  const int64_t B_, H_, d_, n_;
  const float* value_data_;
  float *gram_, *norms_;
};

}  // namespace

void value_gram_into(const at::Tensor& output_product, const at::Tensor& values, at::Tensor gram, at::Tensor norms,
                     int64_t from) {
  const int64_t B = values.size(0), H = values.size(1), d = values.size(2), n = values.size(3);
  if (output_product.sizes() != at::IntArrayRef{H * d, H * d} || gram.sizes() != at::IntArrayRef{B, n, H, H} ||
      norms.sizes() != at::IntArrayRef{B, H, n})
    throw Error("value Gram matrices: the values, W_O^T W_O and the outputs do not match");
  if (from < 0 || from > n || from % kValueGramSlice != 0)
    throw Error("value Gram matrices: token " + std::to_string(from) + " starts no slice of them");
  if (from == n) return;
  const bool kernel = values.is_cpu() && values.scalar_type() == at::kFloat &&
                      output_product.scalar_type() == at::kFloat && output_product.is_contiguous() &&
                      values.stride(3) == 1 && gram.scalar_type() == at::kFloat && gram.is_contiguous() &&
                      norms.scalar_type() == at::kFloat && norms.is_contiguous();
  if (kernel) {
    GramOnCpu(output_product, values, gram, norms, from / kValueGramSlice).run();
    return;
  }
  at::Tensor later_gram = gram.narrow(1, from, n - from), later_norms = norms.narrow(2, from, n - from);
  value_gram_by_tensor_ops(output_product, values.narrow(3, from, n - from), later_gram, later_norms);
}

}  // namespace attnscope
