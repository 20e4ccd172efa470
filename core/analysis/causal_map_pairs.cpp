#include "analysis/causal_map_pairs.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include "analysis/scan_facts.h"
#include "base/error.h"

namespace attnscope {
namespace {

void require_rows(const HeldMapRows& b, int64_t n) {
  if (b.values.dim() != 2 || b.values.size(0) != b.rows.count || b.values.size(1) != b.keys.count ||
      !b.values.is_cpu() || b.values.scalar_type() != at::kFloat || !b.values.is_contiguous() || b.rows.first < 0 ||
      b.keys.first < 0 || b.rows.first + b.rows.count > n || b.keys.first + b.keys.count > n)
    throw Error("a causal map's rows are handed out as [rows, keys] float32 on the host, within its n tokens");
}

// The same rows over every key (their zeros written): for a threshold at or below 0, which the
// keys not held meet too.
HeldMapRows over_every_key(const HeldMapRows& b, int64_t n) {
  at::Tensor whole = at::zeros({b.rows.count, n}, at::kFloat);
  whole.narrow(1, b.keys.first, b.keys.count).copy_(b.values);
  return {b.rows, {0, n}, whole};
}

// First pass: the largest (M_ij + M_ji) / 2 over participants i != j. A row's participants before
// it that it does not hold weigh 0 and count as such.
float causal_map_scale(const CausalMapRows& map, int64_t n, const ScanFacts& f) {
  std::vector<int64_t> before(static_cast<size_t>(n) + 1, 0);  // participants in [0, j)
  for (int64_t j = 0; j < n; ++j)
    before[static_cast<size_t>(j) + 1] = before[static_cast<size_t>(j)] + f.takes[static_cast<size_t>(j)];
  float scale = -std::numeric_limits<float>::infinity();
  map([&](const HeldMapRows& b) {
    require_rows(b, n);
    const float* v = b.values.const_data_ptr<float>();
    for (int64_t r = 0; r < b.rows.count; ++r) {
      const int64_t j = b.rows.first + r, first = b.keys.first, end = std::min(first + b.keys.count, j);
      if (!f.takes[static_cast<size_t>(j)]) continue;
      const float* row = v + r * b.keys.count;  // key `first` on
      float most = -std::numeric_limits<float>::infinity();
      int64_t held = 0;
      for (int64_t i = first; i < end; ++i) {
        const bool takes = f.takes[static_cast<size_t>(i)];
        most = takes ? std::max(most, symmetric_of_lower(row[i - first])) : most;
        held += takes;
      }
      if (held < before[static_cast<size_t>(j)]) most = std::max(most, 0.0f);
      scale = std::max(scale, most);
    }
    return true;
  });
  return scale;
}

// What the second pass adds up for a head, as the scan of S's rows does (high_similarity.cpp).
struct CausalScan {
  const ScanFacts& f;
  int64_t n;
  float threshold;
  PairCounts& counts;
  std::vector<int32_t> histogram;
  std::vector<uint8_t>& bits;  // the mask, packed as PairMask's bits

  // Row j against the keys i < j it holds (`row` from key `first` on): (i, j) a pair where its
  // value meets the threshold and both take part. The counting loop has no branch; the mask's
  // bits are set in a second loop.
  void row(const float* row, int64_t j, int64_t first, int64_t end) {
    const auto J = static_cast<size_t>(j);
    const int32_t id = f.ids[J], sentence = f.sentence[J];
    int32_t count = 0, repeats = 0, same = 0, same_repeats = 0;
    int64_t distance = 0;
    for (int64_t i = first; i < end; ++i) {
      const auto I = static_cast<size_t>(i);
      const int32_t hit = (symmetric_of_lower(row[i - first]) >= threshold) & f.takes[I];
      const int32_t repeat = hit & (f.ids[I] == id), in_sentence = hit & (f.sentence[I] == sentence);
      histogram[static_cast<size_t>(j - i)] += hit;
      counts.degree[I] += hit;
      count += hit, repeats += repeat, same += in_sentence, same_repeats += repeat & in_sentence;
      distance += hit * (j - i);
    }
    counts.degree[J] += count;
    counts.count += count, counts.repeats += repeats, counts.same_sentence += same;
    counts.same_sentence_repeats += same_repeats, counts.distance_sum += distance;
    if (!count) return;
    for (int64_t i = first; i < end; ++i)
      if ((symmetric_of_lower(row[i - first]) >= threshold) & f.takes[static_cast<size_t>(i)]) {
        const int64_t k = PairMask::index(static_cast<int>(n), static_cast<int>(i), static_cast<int>(j));
        bits[static_cast<size_t>(k >> 3)] |= static_cast<uint8_t>(1u << (k & 7));
      }
  }

  void block(const HeldMapRows& given) {
    const HeldMapRows b = threshold > 0 ? given : over_every_key(given, n);
    const float* v = b.values.const_data_ptr<float>();
    for (int64_t r = 0; r < b.rows.count; ++r) {
      const int64_t j = b.rows.first + r;
      if (f.takes[static_cast<size_t>(j)])
        row(v + r * b.keys.count, j, b.keys.first, std::min(b.keys.first + b.keys.count, j));
    }
  }
};

// Second pass: the counts and the mask, at or above tau * scale (scale > 0).
void scan_causal_map(const CausalMapRows& map, const ScanFacts& f, double tau, HeadHighSimilarity& out) {
  const int n = out.mask.tokens();
  std::vector<uint8_t> bits(static_cast<size_t>((PairMask::triangle(n) + 7) / 8), 0);
  const float threshold = static_cast<float>(tau) * out.scale;
  CausalScan scan{f, n, threshold, out.counts, std::vector<int32_t>(static_cast<size_t>(n)), bits};
  map([&](const HeldMapRows& b) {
    require_rows(b, n);
    scan.block(b);
    return true;
  });
  for (int d = 0; d < n; ++d)
    out.counts.distance_histogram[static_cast<size_t>(d)] = scan.histogram[static_cast<size_t>(d)];
  out.mask = PairMask(n, bits);
}

HeadHighSimilarity empty_pairs(int64_t n, float scale) {
  HeadHighSimilarity out;
  out.scale = scale;
  out.mask = PairMask(static_cast<int>(n));
  out.counts = PairCounts(static_cast<size_t>(n));
  return out;
}

}  // namespace

HeadHighSimilarity causal_map_high_similarity(const CausalMapRows& map, int64_t n, const TextFacts& facts, double tau) {
  const ScanFacts f(facts);
  HeadHighSimilarity out = empty_pairs(n, causal_map_scale(map, n, f));
  if (out.scale > 0) scan_causal_map(map, f, tau, out);
  return out;
}

PairMask causal_map_pair_mask(const CausalMapRows& map, int64_t n, const TextFacts& facts, double tau, float scale) {
  HeadHighSimilarity out = empty_pairs(n, scale);
  if (scale > 0) scan_causal_map(map, ScanFacts(facts), tau, out);
  return std::move(out.mask);
}

void value_causal_map_pairs(const CausalMapRows& map, float scale, std::vector<TokenPair>& pairs) {
  if (pairs.empty()) return;
  std::vector<size_t> by_row(pairs.size());  // the pairs by j, the row that holds each
  std::iota(by_row.begin(), by_row.end(), size_t{0});
  std::stable_sort(by_row.begin(), by_row.end(), [&](size_t a, size_t b) { return pairs[a].j < pairs[b].j; });
  size_t next = 0;
  map([&](const HeldMapRows& b) {
    require_rows(b, std::numeric_limits<int64_t>::max());
    const float* v = b.values.const_data_ptr<float>();
    for (; next < by_row.size() && pairs[by_row[next]].j < b.rows.first + b.rows.count; ++next) {
      TokenPair& p = pairs[by_row[next]];
      const int64_t r = p.j - b.rows.first, at = p.i - b.keys.first;
      if (r < 0) throw Error("a causal map's rows are handed out from its first row on");
      p.value = symmetric_of_lower(at >= 0 && at < b.keys.count ? v[r * b.keys.count + at] : 0.0f) / scale;
    }
    return next < by_row.size();
  });
  if (next < by_row.size()) throw Error("a pair lies past the last row of its map");
}

}  // namespace attnscope
