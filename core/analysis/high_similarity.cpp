#include "analysis/high_similarity.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <limits>

namespace attnscope {
namespace {

// What the scan reads of the text, as plain arrays (vector<bool> cannot be read in a vector loop).
struct ScanFacts {
  std::vector<uint8_t> takes;
  std::vector<int32_t> ids, sentence;
  explicit ScanFacts(const TextFacts& f)
      : takes(f.takes_part.begin(), f.takes_part.end()), ids(f.ids), sentence(f.sentence.begin(), f.sentence.end()) {}
};

// What one row adds to a head's counts.
struct RowCounts {
  int32_t count = 0, repeats = 0, same = 0, same_repeats = 0;
  int64_t distance = 0;
};

// Row i of a head against every j > i: flag[j - i - 1] says whether (i, j) is high; hist[j - i]
// and degree[j] count it. The loop has no branch and only sequential accesses, and the pointers
// are restrict: the flags are bytes, which C++ lets alias anything, and without that promise GCC
// did not vectorise the loop at all.
RowCounts scan_row(const float* __restrict row, int i, int n, float threshold, int32_t id, int32_t sent,
                   const uint8_t* __restrict takes, const int32_t* __restrict ids, const int32_t* __restrict sentence,
                   uint8_t* __restrict flag, int32_t* __restrict hist, int32_t* __restrict degree) {
  RowCounts c;
  for (int j = i + 1; j < n; ++j) {
    const int32_t b = (row[j] >= threshold) & takes[j];
    const int32_t r = b & (ids[j] == id), t = b & (sentence[j] == sent);
    flag[j - i - 1] = static_cast<uint8_t>(b);
    hist[j - i] += b;
    degree[j] += b;
    c.count += b;
    c.repeats += r;
    c.same += t;
    c.same_repeats += r & t;
    c.distance += b * (j - i);
  }
  return c;
}

// One head: every (i < j) of participants at or above `threshold`, counted for the statistics
// and set in the mask.
void scan_head(const float* s, int n, const ScanFacts& f, float threshold, HeadHighSimilarity& out) {
  thread_local std::vector<uint8_t> flags;
  thread_local std::vector<int32_t> histogram;
  flags.assign(static_cast<size_t>(n), 0);
  histogram.assign(static_cast<size_t>(n), 0);
  PairCounts& c = out.counts;
  for (int i = 0; i < n; ++i) {
    if (!f.takes[static_cast<size_t>(i)]) continue;
    const RowCounts row = scan_row(s + static_cast<int64_t>(i) * n, i, n, threshold, f.ids[static_cast<size_t>(i)],
                                   f.sentence[static_cast<size_t>(i)], f.takes.data(), f.ids.data(), f.sentence.data(),
                                   flags.data(), histogram.data(), c.degree.data());
    c.degree[static_cast<size_t>(i)] += row.count;
    c.count += row.count;
    c.repeats += row.repeats;
    c.same_sentence += row.same;
    c.same_sentence_repeats += row.same_repeats;
    c.distance_sum += row.distance;
    if (row.count) out.mask.set_row(i, flags.data());
  }
  for (int d = 0; d < n; ++d) c.distance_histogram[static_cast<size_t>(d)] = histogram[static_cast<size_t>(d)];
}

}  // namespace

std::vector<HeadHighSimilarity> high_similarity(const at::Tensor& similarity, const TextFacts& facts, double tau) {
  const int64_t heads = similarity.size(0), n = similarity.size(1);
  const at::Tensor s = similarity.to(at::kFloat);
  const ScanFacts f(facts);
  const at::Tensor part = at::from_blob(const_cast<uint8_t*>(f.takes.data()), {n}, at::kByte).to(s.device(), at::kBool);
  // With every token taking part, the plain maximum is the off-diagonal one whenever that is
  // positive (the diagonal is 0); the exact, masked maximum is needed only for the other cases.
  at::Tensor scale;
  if (part.all().item<bool>()) scale = s.amax({1, 2});
  if (!scale.defined() || !(scale > 0).all().item<bool>()) {
    const at::Tensor allowed =
        part.unsqueeze(1).logical_and(part.unsqueeze(0)).logical_and(at::eye(n, part.options()).logical_not());
    scale = at::where(allowed, s, -std::numeric_limits<float>::infinity()).amax({1, 2});
  }
  scale = scale.cpu();
  const at::Tensor host = s.cpu().contiguous();

  std::vector<HeadHighSimilarity> out(static_cast<size_t>(heads));
  at::parallel_for(0, heads, 1, [&](int64_t first, int64_t last) {
    for (int64_t k = first; k < last; ++k) {
      HeadHighSimilarity& h = out[static_cast<size_t>(k)];
      h.scale = scale.data_ptr<float>()[k];
      h.mask = PairMask(static_cast<int>(n));
      h.counts = PairCounts(static_cast<size_t>(n));
      if (!(h.scale > 0)) continue;  // no positive off-diagonal similarity: no high-similarity elements
      // S >= tau max S, i.e. S_hat >= tau
      scan_head(host.data_ptr<float>() + k * n * n, static_cast<int>(n), f, static_cast<float>(tau) * h.scale, h);
    }
  });
  return out;
}

std::vector<TokenPair> list_pairs(const PairMask& mask, const float* similarity, float scale) {
  std::vector<TokenPair> pairs;
  pairs.reserve(static_cast<size_t>(mask.count()));
  const int n = mask.tokens();
  mask.for_each([&](int i, int j) { pairs.push_back({i, j, similarity[static_cast<int64_t>(i) * n + j] / scale}); });
  return pairs;
}

}  // namespace attnscope
