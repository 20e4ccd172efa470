#include "analysis/strongest_pairs.h"

#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <mutex>
#include <queue>

#include "base/error.h"

namespace attnscope {
namespace {

// The `top` strongest pairs offered so far; the weakest of them on top of the heap, the first to go.
class TopPairs {
 public:
  explicit TopPairs(int64_t top) : top_(static_cast<size_t>(std::max<int64_t>(top, 0))) {}
  void offer(const TokenPair& p) {
    if (heap_.size() < top_) {
      heap_.push(p);
    } else if (top_ > 0 && stronger_pair(p, heap_.top())) {
      heap_.pop();
      heap_.push(p);
    }
  }
  std::vector<TokenPair> strongest_first() && {
    std::vector<TokenPair> pairs;
    pairs.reserve(heap_.size());
    for (; !heap_.empty(); heap_.pop()) pairs.push_back(heap_.top());
    std::reverse(pairs.begin(), pairs.end());
    return pairs;
  }

 private:
  struct Weaker {  // the heap's "less": its top is the pair every other is stronger than
    bool operator()(const TokenPair& p, const TokenPair& q) const { return stronger_pair(p, q); }
  };
  size_t top_;
  std::priority_queue<TokenPair, std::vector<TokenPair>, Weaker> heap_;
};

// Calls `each` for every pair of the head, in some order, with the value head_pairs gives it.
class PairWalk {
 public:
  PairWalk(const TextAnalysis& a, int64_t layer, int64_t head, const StrongestPairsRun& run,
           std::function<void(const TokenPair&)> each)
      : a_(a), layer_(layer), head_(head), run_(run), each_(std::move(each)), scale_(a.head(layer, head).scale) {}

  void walk() const {
    if (a_.pair_map_rows) return causal_map_rows();
    if (a_.pair_map) return whole_map();
    if (a_.pair_matrix.defined() || a_.similarity.similarity.defined()) return whole_matrix();
    similarity_rows();
  }

 private:
  const TextAnalysis& a_;
  int64_t layer_, head_;
  const StrongestPairsRun& run_;
  std::function<void(const TokenPair&)> each_;
  float scale_;

  void walked(int64_t rows_done) const {
    stop_if_stale(run_.keep_going);
    if (run_.progress)
      run_.progress(static_cast<double>(rows_done) / static_cast<double>(std::max<int64_t>(a_.length, 1)));
  }

  // A causal map's (i, j), i < j, is held by row j alone (causal_map_pairs.h): the rows a block at
  // a time, each row's pairs found in the mask made first.
  void causal_map_rows() const {
    const PairMask mask = a_.pair_mask(layer_, head_);
    walked(0);
    a_.pair_map_rows(layer_, head_, [&](const HeldMapRows& b) {
      const float* v = b.values.const_data_ptr<float>();
      for (int64_t r = 0; r < b.rows.count; ++r) {
        const int j = static_cast<int>(b.rows.first + r);
        for (int i = 0; i < j; ++i) {
          if (!mask.test(i, j)) continue;
          const int64_t at = i - b.keys.first;
          const float m_ji = at >= 0 && at < b.keys.count ? v[r * b.keys.count + at] : 0.0f;
          each_({i, j, symmetric_of_lower(m_ji) / scale_});  // as value_causal_map_pairs values it
        }
      }
      walked(b.rows.first + b.rows.count);
      return true;
    });
  }

  void whole_map() const {
    at::Tensor map = run_.map;
    std::unique_lock<std::mutex> making;  // one such map made at a time (MadePairMasks)
    if (!map.defined()) {
      if (a_.made_masks) making = a_.made_masks->making();
      map = a_.pair_map(layer_, head_);
    }
    const at::Tensor m = map.contiguous();
    const PairMask mask = pair_mask_of_map(a_, layer_, head_, m);
    walked(0);
    const float* v = m.const_data_ptr<float>();
    mask.for_each([&](int i, int j) { each_({i, j, map_pair_value(v, a_.length, i, j, scale_)}); });
    walked(a_.length);
  }

  void whole_matrix() const {
    const at::Tensor s = kept_pair_values(a_, layer_, head_);
    const float* v = s.const_data_ptr<float>();
    const int64_t n = a_.length;
    walked(0);
    a_.head(layer_, head_).pairs.for_each([&](int i, int j) { each_({i, j, v[i * n + j] / scale_}); });
    walked(n);
  }

  // A long text's S not kept: its rows made from the head outputs a block at a time, with the
  // mask's rows (kept, or made again by the scan).
  void similarity_rows() const {
    const int64_t n = a_.length, step = pair_value_row_step(n);
    for (int64_t first = 0; first < n; first += step) {
      const int64_t count = std::min(step, n - first);
      const PairMask rows = a_.pair_mask(layer_, head_, {first, count});
      if (rows.count() > 0) {
        const at::Tensor s = pair_value_rows(a_, layer_, head_, first, count);
        const float* v = s.const_data_ptr<float>();
        rows.for_each([&](int i, int j) { each_({i, j, v[(i - first) * n + j] / scale_}); });
      }
      walked(first + count);
    }
  }
};

}  // namespace

bool stronger_pair(const TokenPair& p, const TokenPair& q) {
  if (p.value != q.value) return p.value > q.value;
  return p.i != q.i ? p.i < q.i : p.j < q.j;
}

std::vector<TokenPair> strongest_head_pairs(const TextAnalysis& a, int64_t layer, int64_t head, int64_t top,
                                            const StrongestPairsRun& run) {
  c10::InferenceMode guard;
  if (a.head(layer, head).pair_count == 0 || top <= 0) return {};
  TopPairs strongest(top);
  PairWalk(a, layer, head, run, [&](const TokenPair& p) { strongest.offer(p); }).walk();
  return std::move(strongest).strongest_first();
}

}  // namespace attnscope
