#include "pipeline/long_text_separators.h"

#include <ATen/ATen.h>

#include <string>

#include "analysis/attention_rollout.h"
#include "analysis/lens_maps.h"
#include "analysis/text_analysis.h"
#include "base/error.h"
#include "model/reproducible_products.h"

namespace attnscope {
namespace {

// [L, H, n]: each head's norm-based map N_ij = A_ij ||f_h(x_j)||, summed over its query rows.
// Each block over the keys its rows may see (a decoder's none after its last row): the sums of the
// keys it leaves out gain an exact 0 from it.
at::Tensor norm_column_sums(const AttentionBlockRows& blocks, const TextCaptures& c, int64_t L, int64_t H, int64_t n,
                            const SeparatorScan& scan) {
  if (!c.value_norms.defined())
    throw Error("separators from the norm-based maps need the value vectors' norms, which this run did not keep");
  at::Tensor sums = at::zeros({L, H, n}, at::kFloat);
  for (int64_t l = 0; l < L; ++l) {
    for (const auto& [first, count] : row_blocks(n, rows_per_block(H * n, scan.block_rows))) {
      stop_if_stale(scan.keep_going);
      const AttentionBlock block = blocks(l, -1, {first, count});
      sums[l].narrow(1, block.keys.first, block.keys.count) += head_norm_rows(block, c, static_cast<int>(l), 0).sum(1);
    }
    if (scan.progress) scan.progress("separators", static_cast<double>(l + 1) / static_cast<double>(L));
  }
  return sums;
}

// [L, H, n]: each layer's rollout R_l (through its heads' mean attention, as rollout_maps makes it)
// summed over its query rows, the same for every head of the layer.
at::Tensor rollout_column_sums(const AttentionBlockRows& blocks, int64_t L, int64_t H, int64_t n,
                               const SeparatorScan& scan) {
  require_rollout_fits(n);
  at::Tensor sums = at::empty({L, n}, at::kFloat);
  const RolloutOfLayer each = [&](int64_t l, const at::Tensor& rollout) {
    sums[l] = rollout.sum(0);
    if (scan.progress) scan.progress("separators", static_cast<double>(l + 1) / static_cast<double>(L));
  };
  rollout_in_blocks(mean_attention_rows(blocks, scan.keep_going), L - 1, n, rows_per_block(H * n, scan.block_rows),
                    each);
  return sums.unsqueeze(1).expand({-1, H, -1}).contiguous();
}

}  // namespace

at::Tensor long_text_separator_columns(const AttentionBlockRows& blocks, const TextCaptures& captures,
                                       SeparatorInput input, const SeparatorScan& scan) {
  if (!blocks || !captures.head_outputs.defined())
    throw Error("a long text's separators from a lens need its maps made again by the model that ran it");
  const int64_t L = captures.head_outputs.size(0), H = captures.head_outputs.size(1), n = captures.head_outputs.size(2);
  if (input == SeparatorInput::Attention) return separator_columns(captures, input);  // from the kept column sums
  const at::Tensor sums = input == SeparatorInput::Norm ? norm_column_sums(blocks, captures, L, H, n, scan)
                                                        : rollout_column_sums(blocks, L, H, n, scan);
  return column_means(sums, captures.visibility).to(captures.head_outputs.device());
}

}  // namespace attnscope
