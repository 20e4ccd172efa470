#include "pipeline/long_text_lens_pairs.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <string>

#include "analysis/attention_rollout.h"
#include "analysis/causal_map_pairs.h"
#include "analysis/lens_maps.h"
#include "base/byte_size.h"
#include "base/error.h"
#include "model/mapped_tensor.h"
#include "model/reproducible_products.h"

namespace attnscope {
namespace {

int64_t tokens_of(const TextCaptures& c) { return c.head_outputs.size(2); }

void require_source(const LensMapsOf& of, PairInput input) {
  if (!of.blocks || !of.captures || !of.captures->head_outputs.defined())
    throw Error("a long text's pairs from a lens need its maps made again by the model that ran it");
  if (input == PairInput::Norm && !of.captures->value_norms.defined())
    throw Error("pairs from the norm-based maps need the value vectors' norms, which this run did not keep");
}

// Rollout R_l through each layer's mean attention, made in blocks (attention_rollout.h), handed to
// `each` layer by layer up to `last`; R_last returned.
at::Tensor rollouts(const LensMapsOf& of, const AttentionBlockRows& blocks, int64_t last, const KeepGoing& keep_going,
                    const RolloutOfLayer& each = {}) {
  const int64_t n = tokens_of(*of.captures), H = of.captures->head_outputs.size(1);
  return rollout_in_blocks(mean_attention_rows(blocks, keep_going), last, n, rows_per_block(H * n, of.block_rows),
                           each);
}

// One head's map of attention or the norm-based maps, made whole a block of rows at a time (the
// recomputation's scores and softmax held for a block, not for the whole map), each block over the
// keys its rows may see and 0 at the others.
at::Tensor head_map(const LensMapsOf& of, const AttentionBlockRows& blocks, PairInput input, int64_t layer,
                    int64_t head) {
  const TextCaptures& c = *of.captures;
  const int64_t n = tokens_of(c);
  at::Tensor map = mapped_empty({n, n});  // returned when freed (mapped_tensor.h)
  for (const auto& [first, count] : row_blocks(n, rows_per_block(n, of.block_rows))) {
    const AttentionBlock block = blocks(layer, head, {first, count});
    const int64_t end = block.keys.first + block.keys.count;
    at::Tensor rows = map.narrow(0, first, count);
    rows.narrow(1, 0, block.keys.first).zero_();
    rows.narrow(1, end, n - end).zero_();
    rows.narrow(1, block.keys.first, block.keys.count)
        .copy_(input == PairInput::Norm ? head_norm_rows(block, c, static_cast<int>(layer), static_cast<int>(head))[0]
                                        : block.maps[0][0]);
  }
  return map;
}

// A causal head's map (a decoder's attention or norm-based map) a block of rows at a time over the
// keys its rows may see, on the host: what its pairs are found in without the map whole
// (analysis/causal_map_pairs.h).
CausalMapRows causal_head_rows(const LensMapsOf& of, const AttentionBlockRows& blocks, PairInput input, int64_t layer,
                               int64_t head) {
  return [&of, &blocks, input, layer, head](const MapRowsVisitor& each) {
    const TextCaptures& c = *of.captures;
    const int64_t n = tokens_of(c);
    for (const auto& [first, count] : row_blocks(n, rows_per_block(n, of.block_rows))) {
      const AttentionBlock block = blocks(layer, head, {first, count});
      const at::Tensor values = input == PairInput::Norm
                                    ? head_norm_rows(block, c, static_cast<int>(layer), static_cast<int>(head))[0]
                                    : block.maps[0][0];
      if (!each({{first, count}, block.keys, values.to(at::kCPU, at::kFloat).contiguous()})) return;
    }
  };
}

bool causal_maps(const LensMapsOf& of, PairInput input) {
  return input != PairInput::Rollout && of.captures && of.captures->visibility.causal;
}

AttentionDirection direction_of(const LensMapsOf& of) {
  return of.captures && of.captures->visibility.causal ? AttentionDirection::Causal : AttentionDirection::Both;
}

// A head's pairs in a map of its own (attention's, the norm-based map's), made symmetric in place:
// quicker than high_similarity_of_map's symmetric rows, made twice, which a layer's rollout needs
// (R_l is read for R_(l+1)) rather than a third n x n matrix.
HeadHighSimilarity pairs_of_own_map(at::Tensor map, const TextFacts& facts, double tau) {
  symmetric_pair_map_in_place(map);
  return std::move(high_similarity(map.unsqueeze(0), facts, tau).front());
}

}  // namespace

double long_text_lens_pairs_bytes(PairInput input, int64_t n, AttentionDirection direction) {
  const double squared = static_cast<double>(n) * static_cast<double>(n);
  if (input == PairInput::Rollout) return rollout_in_blocks_bytes(n);
  // A causal map's: the mask's packed bits and the mask made of them, n^2 / 16 bytes each at most.
  return direction == AttentionDirection::Causal ? squared / 8 : squared * sizeof(float);
}

void require_long_text_lens_pairs_fit(PairInput input, int64_t n, AttentionDirection direction) {
  const double bytes = long_text_lens_pairs_bytes(input, n, direction);
  if (bytes <= kMostRolloutBytes) return;
  const bool whole = input == PairInput::Rollout || direction != AttentionDirection::Causal;
  throw Error(std::string("pairs from ") + pair_input_name(input) + " on a text of " + std::to_string(n) + " tokens " +
              (whole ? "make each head's map whole (" : "hold each head's mask twice (") + byte_size(bytes) +
              " at a time, more than " + byte_size(kMostRolloutBytes) +
              "): take them from S, the default, or a shorter text (--max-len)");
}

at::Tensor long_text_lens_map(const LensMapsOf& of, PairInput input, int64_t layer, int64_t head) {
  require_source(of, input);
  require_long_text_lens_pairs_fit(input, tokens_of(*of.captures));  // the map whole, causal or not
  c10::InferenceMode guard;
  const AttentionBlockRows blocks = of.blocks();
  if (input != PairInput::Rollout) return head_map(of, blocks, input, layer, head);
  return rollouts(of, blocks, layer, {});
}

std::vector<HeadHighSimilarity> long_text_lens_pairs(const LensMapsOf& of, PairInput input, const TextFacts& facts,
                                                     double tau, const LensPairsScan& scan) {
  require_source(of, input);
  const TextCaptures& c = *of.captures;
  const int64_t L = c.head_outputs.size(0), H = c.head_outputs.size(1), n = tokens_of(c);
  require_long_text_lens_pairs_fit(input, n, direction_of(of));
  c10::InferenceMode guard;
  const AttentionBlockRows blocks = of.blocks();
  std::vector<HeadHighSimilarity> high(static_cast<size_t>(L * H));
  // Heads [first, end) scanned: the share first, as high_similarity_in_blocks reports them.
  const auto done = [&](int64_t first, int64_t end) {
    if (scan.progress) scan.progress("pairs", static_cast<double>(end) / static_cast<double>(L * H));
    if (scan.scanned)
      scan.scanned(first, std::span<const HeadHighSimilarity>(high.data() + first, static_cast<size_t>(end - first)));
  };
  if (input == PairInput::Rollout) {  // one rollout a layer, shared by its heads
    rollouts(of, blocks, L - 1, scan.keep_going, [&](int64_t l, const at::Tensor& rollout) {
      const HeadHighSimilarity layer = high_similarity_of_map(rollout, facts, tau);
      for (int64_t h = 0; h < H; ++h) high[static_cast<size_t>(l * H + h)] = layer;  // the mask's bytes shared
      done(l * H, (l + 1) * H);
    });
    return high;
  }
  PairMaskBudget masks(scan.mask_bytes);
  for (int64_t k = 0; k < L * H; ++k) {
    stop_if_stale(scan.keep_going);
    HeadHighSimilarity& head = high[static_cast<size_t>(k)];
    head = causal_maps(of, input)
               ? causal_map_high_similarity(causal_head_rows(of, blocks, input, k / H, k % H), n, facts, tau)
               : pairs_of_own_map(head_map(of, blocks, input, k / H, k % H), facts, tau);
    masks.keep(head.mask);  // where it is dropped, its count and statistics are what stays
    done(k, k + 1);
  }
  return high;
}

void find_long_text_pairs_in_lens(AnalysisRun& run, const LensMapsOf& of, PairInput input) {
  if (input == PairInput::Similarity || input == PairInput::Cosine) return;
  run.lens_pairs = [of, input, keep_going = run.keep_going, progress = run.progress](
                       const TextFacts& facts, double tau, uint64_t mask_bytes, const HeadsScanned& scanned) {
    return long_text_lens_pairs(of, input, facts, tau, {keep_going, progress, scanned, mask_bytes});
  };
  run.pair_map = [of, input](int64_t layer, int64_t head) { return long_text_lens_map(of, input, layer, head); };
  if (causal_maps(of, input))
    run.pair_map_rows = [of, input](int64_t layer, int64_t head, const MapRowsVisitor& each) {
      c10::InferenceMode guard;
      const AttentionBlockRows blocks = of.blocks();  // its own: a window asks from several threads
      causal_head_rows(of, blocks, input, layer, head)(each);
    };
}

}  // namespace attnscope
