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
  explicit ScanFacts(const TextFacts& f) : takes(f.takes_part.begin(), f.takes_part.end()), ids(f.ids), sentence(f.sentence.begin(), f.sentence.end()) {}
};

// One head: every (i < j) of participants at or above `threshold`, counted for the statistics
// and set in the mask. The inner loop has no branch and only sequential accesses (the histogram
// index j - i and the degree index j both step by one), so the compiler vectorises it.
void scan_head(const float* s, int n, const ScanFacts& f, float threshold, HeadHighSimilarity& out) {
  thread_local std::vector<uint8_t> flags;
  thread_local std::vector<int32_t> histogram;
  flags.assign(static_cast<size_t>(n), 0);
  histogram.assign(static_cast<size_t>(n), 0);
  PairCounts& c = out.counts;
  int32_t* degree = c.degree.data();
  const uint8_t* takes = f.takes.data();
  const int32_t* ids = f.ids.data();
  const int32_t* sentence = f.sentence.data();
  for (int i = 0; i < n; ++i) {
    if (!takes[i]) continue;
    const float* row = s + static_cast<int64_t>(i) * n;
    const int32_t id = ids[i], sent = sentence[i];
    int32_t count = 0, repeats = 0, same = 0, same_repeats = 0;
    int64_t distance = 0;
    uint8_t* flag = flags.data();
    int32_t* hist = histogram.data();
    for (int j = i + 1; j < n; ++j) {
      const int32_t b = (row[j] >= threshold) & takes[j];
      const int32_t r = b & (ids[j] == id), t = b & (sentence[j] == sent);
      flag[j - i - 1] = static_cast<uint8_t>(b);
      hist[j - i] += b;
      degree[j] += b;
      count += b;
      repeats += r;
      same += t;
      same_repeats += r & t;
      distance += b * (j - i);
    }
    degree[i] += count;
    c.count += count;
    c.repeats += repeats;
    c.same_sentence += same;
    c.same_sentence_repeats += same_repeats;
    c.distance_sum += distance;
    if (count) out.mask.set_row(i, flags.data());
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
    const at::Tensor allowed = part.unsqueeze(1).logical_and(part.unsqueeze(0)).logical_and(at::eye(n, part.options()).logical_not());
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
