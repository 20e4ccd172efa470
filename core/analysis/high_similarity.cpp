#include "analysis/high_similarity.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "analysis/context_similarity.h"
#include "analysis/scan_facts.h"
#include "base/error.h"
#include "model/reproducible_products.h"

namespace attnscope {
namespace {

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

// Rows [first, first + count) of one head (`block`: those rows of its S, each n long): every
// (i < j) of participants at or above `threshold`, counted for the statistics and set in the mask.
// `histogram`: the head's distance counts so far, n entries.
void scan_rows(const float* block, int first, int count, int n, const ScanFacts& f, float threshold, int32_t* histogram,
               HeadHighSimilarity& out) {
  thread_local std::vector<uint8_t> flags;
  flags.assign(static_cast<size_t>(n), 0);
  PairCounts& c = out.counts;
  for (int i = first; i < first + count; ++i) {
    if (!f.takes[static_cast<size_t>(i)]) continue;
    const RowCounts row = scan_row(block + static_cast<int64_t>(i - first) * n, i, n, threshold,
                                   f.ids[static_cast<size_t>(i)], f.sentence[static_cast<size_t>(i)], f.takes.data(),
                                   f.ids.data(), f.sentence.data(), flags.data(), histogram, c.degree.data());
    c.degree[static_cast<size_t>(i)] += row.count;
    c.count += row.count;
    c.repeats += row.repeats;
    c.same_sentence += row.same;
    c.same_sentence_repeats += row.same_repeats;
    c.distance_sum += row.distance;
    if (row.count && out.mask.tokens() == n) out.mask.set_row(i, flags.data());  // a mask is not always kept
  }
}

// One head's whole S.
void scan_head(const float* s, int n, const ScanFacts& f, float threshold, HeadHighSimilarity& out) {
  thread_local std::vector<int32_t> histogram;
  histogram.assign(static_cast<size_t>(n), 0);
  scan_rows(s, 0, n, n, f, threshold, histogram.data(), out);
  for (int d = 0; d < n; ++d) out.counts.distance_histogram[static_cast<size_t>(d)] = histogram[static_cast<size_t>(d)];
}

using RowBlocks = std::vector<std::pair<int64_t, int64_t>>;

// The rows the scans read: S's, or (`cosine_norms` given, [G, n]) S's divided by the token norms,
// as cosine_from_similarity divides the whole S: the same bits. `norms` as similarity_rows.
at::Tensor pair_source_rows(const at::Tensor& c, int64_t first, int64_t count, const at::Tensor& cosine_norms,
                            at::Tensor* norms = nullptr) {
  const at::Tensor s = similarity_rows(c, first, count, norms);
  return cosine_norms.defined() ? cosine_rows(s, cosine_norms, first) : s;
}

// Every token's norm in a group of heads [G, n, d], from S's diagonal as the scans' own products
// give it (context_similarity's bits): cosine divides by every column's norm from its first row.
at::Tensor group_norms(const at::Tensor& c, const RowBlocks& blocks) {
  at::Tensor norms = at::empty({c.size(0), c.size(1)}, c.options());
  for (const auto& [first, count] : blocks) similarity_rows(c, first, count, &norms);
  return norms;
}

// First pass over a group of heads [G, n, d]: each head's largest S_ij (or cosine) over
// participants i != j (when positive, the whole path's plain maximum is this one too: its diagonal
// is 0 and every token takes part there), on the host; `norms` ([G, n]) takes the token norms on
// the way.
at::Tensor group_maxima(const at::Tensor& c, const at::Tensor& part, const RowBlocks& blocks, at::Tensor* norms,
                        const at::Tensor& cosine_norms) {
  const int64_t n = c.size(1);
  at::Tensor scale = at::full({c.size(0)}, -std::numeric_limits<float>::infinity(), c.options());
  for (const auto& [first, count] : blocks) {
    const at::Tensor rows = at::arange(first, first + count, at::TensorOptions().dtype(at::kLong).device(c.device()));
    const at::Tensor allowed = part.narrow(0, first, count)
                                   .unsqueeze(1)
                                   .logical_and(part.unsqueeze(0))
                                   .logical_and(rows.unsqueeze(1) != at::arange(n, rows.options()).unsqueeze(0));
    const at::Tensor s = pair_source_rows(c, first, count, cosine_norms, norms);
    scale = at::maximum(scale, at::where(allowed, s, -std::numeric_limits<float>::infinity()).amax({1, 2}));
  }
  return scale.cpu();
}

// Second pass over a group of heads: the rows of each block scanned, head by head, into `out` (the
// group's G entries, their scales set).
void scan_group(const at::Tensor& c, const ScanFacts& f, double tau, const RowBlocks& blocks,
                const at::Tensor& cosine_norms, HeadHighSimilarity* out) {
  const int64_t G = c.size(0), n = c.size(1);
  std::vector<std::vector<int32_t>> histograms(static_cast<size_t>(G), std::vector<int32_t>(static_cast<size_t>(n)));
  for (const auto& block : blocks) {
    const int64_t first = block.first, count = block.second;  // named: clang 14's lambdas capture no bindings
    const at::Tensor host = pair_source_rows(c, first, count, cosine_norms).cpu().contiguous();
    at::parallel_for(0, G, 1, [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        if (!(out[k].scale > 0)) continue;
        scan_rows(host.data_ptr<float>() + k * count * n, static_cast<int>(first), static_cast<int>(count),
                  static_cast<int>(n), f, static_cast<float>(tau) * out[k].scale,
                  histograms[static_cast<size_t>(k)].data(), out[k]);
      }
    });
  }
  for (int64_t k = 0; k < G; ++k)
    for (int64_t d = 0; d < n; ++d)
      out[k].counts.distance_histogram[static_cast<size_t>(d)] =
          histograms[static_cast<size_t>(k)][static_cast<size_t>(d)];
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

PairMask pair_rows(const at::Tensor& head_outputs, const TextFacts& facts, double tau, float scale, int64_t first,
                   int64_t count, const at::Tensor& cosine_norms) {
  const int64_t n = head_outputs.size(0);
  if (first < 0 || count < 0 || first + count > n) throw Error("pair rows out of range");
  HeadHighSimilarity out;
  out.mask = PairMask(static_cast<int>(n));
  out.counts = PairCounts(static_cast<size_t>(n));
  if (!(scale > 0) || count == 0) return std::move(out.mask);
  const at::Tensor c = head_outputs.to(at::kFloat).unsqueeze(0);
  const ScanFacts f(facts);
  std::vector<int32_t> histogram(static_cast<size_t>(n));
  const int64_t step = rows_per_block(n);
  const at::Tensor norms = cosine_norms.defined() ? cosine_norms.to(c.device(), at::kFloat).unsqueeze(0) : at::Tensor();
  for (int64_t done = first; done < first + count;) {
    const int64_t rows = std::min(step, first + count - done);
    // A product of fewer than kFewestBlockRows rows sums in another order: made from more, the
    // rows wanted read out of it.
    const int64_t made = std::min(n, std::max(rows, kFewestBlockRows)), start = std::min(done, n - made);
    const at::Tensor host = pair_source_rows(c, start, made, norms).cpu().contiguous();
    scan_rows(host.data_ptr<float>() + (done - start) * n, static_cast<int>(done), static_cast<int>(rows),
              static_cast<int>(n), f, static_cast<float>(tau) * scale, histogram.data(), out);
    done += rows;
  }
  return std::move(out.mask);
}

namespace {

void require_whole_map(const at::Tensor& map) {
  if (map.dim() != 2 || map.size(0) != map.size(1) || !map.is_cpu() || map.scalar_type() != at::kFloat)
    throw Error("a head's pairs are found in its whole map, square float32 on the host");
}

// Rows [first, first + count) of (M + M^T) / 2 as symmetric_pair_map makes them (a sum, then
// halved; a float sum is the same in either order), the diagonal 0; `map` contiguous. In tiles of
// 64 x 64, so that M^T's rows, M's columns, are read a cache line at a time: torch's sum with the
// transposed block read every element of it from its own line, and made the pairs of a long
// text's 264 norm-based maps take twice as long.
at::Tensor symmetric_rows(const at::Tensor& map, int64_t first, int64_t count) {
  constexpr int64_t kTile = 64;
  const int64_t n = map.size(0);
  at::Tensor out = at::empty({count, n}, at::kFloat);
  const float* m = map.const_data_ptr<float>();
  float* o = out.data_ptr<float>();
  at::parallel_for(0, (n + kTile - 1) / kTile, 1, [&](int64_t begin, int64_t end) {
    for (int64_t j0 = begin * kTile; j0 < std::min(n, end * kTile); j0 += kTile)
      for (int64_t r0 = 0; r0 < count; r0 += kTile)
        for (int64_t r = r0; r < std::min(count, r0 + kTile); ++r) {
          const float* row = m + (first + r) * n;
          float* __restrict to = o + r * n;
          for (int64_t j = j0; j < std::min(n, j0 + kTile); ++j) to[j] = (row[j] + m[j * n + first + r]) * 0.5f;
        }
  });
  out.diagonal(first).zero_();
  return out;
}

// Scans rows [first, first + count) of the map's symmetric matrix into `out` (its mask and
// counts made for n tokens), a block of rows at a time, with the threshold tau * scale.
void scan_map_rows(const at::Tensor& map, const ScanFacts& f, double tau, float scale, int64_t first, int64_t count,
                   HeadHighSimilarity& out) {
  const int64_t n = map.size(0);
  std::vector<int32_t> histogram(static_cast<size_t>(n));
  for (int64_t done = first; done < first + count; done += rows_per_block(n)) {
    const int64_t rows = std::min(rows_per_block(n), first + count - done);
    const at::Tensor block = symmetric_rows(map, done, rows);
    scan_rows(block.data_ptr<float>(), static_cast<int>(done), static_cast<int>(rows), static_cast<int>(n), f,
              static_cast<float>(tau) * scale, histogram.data(), out);
  }
  for (int64_t d = 0; d < n; ++d)
    out.counts.distance_histogram[static_cast<size_t>(d)] = histogram[static_cast<size_t>(d)];
}

}  // namespace

HeadHighSimilarity high_similarity_of_map(const at::Tensor& given, const TextFacts& facts, double tau) {
  require_whole_map(given);
  const at::Tensor map = given.contiguous();
  const int64_t n = map.size(0);
  const ScanFacts f(facts);
  const at::Tensor part = at::from_blob(const_cast<uint8_t*>(f.takes.data()), {n}, at::kByte).to(at::kBool);
  HeadHighSimilarity out;
  // The largest element of participants off the diagonal: high_similarity's scale (its plain
  // maximum, where it takes one, is this one whenever that is positive, and otherwise it takes this).
  out.scale = -std::numeric_limits<float>::infinity();
  for (const auto& [first, count] : row_blocks(n, rows_per_block(n))) {
    at::Tensor allowed = part.narrow(0, first, count).unsqueeze(1).logical_and(part.unsqueeze(0));
    allowed.diagonal(first).fill_(false);
    const at::Tensor block = symmetric_rows(map, first, count);
    out.scale =
        std::max(out.scale, at::where(allowed, block, -std::numeric_limits<float>::infinity()).max().item<float>());
  }
  out.mask = PairMask(static_cast<int>(n));
  out.counts = PairCounts(static_cast<size_t>(n));
  if (out.scale > 0) scan_map_rows(map, f, tau, out.scale, 0, n, out);
  return out;
}

PairMask map_pair_rows(const at::Tensor& given, const TextFacts& facts, double tau, float scale, int64_t first,
                       int64_t count) {
  require_whole_map(given);
  const at::Tensor map = given.contiguous();
  const int64_t n = map.size(0);
  if (first < 0 || count < 0 || first + count > n) throw Error("pair rows out of range");
  HeadHighSimilarity out;
  out.mask = PairMask(static_cast<int>(n));
  out.counts = PairCounts(static_cast<size_t>(n));
  if (scale > 0 && count > 0) scan_map_rows(map, ScanFacts(facts), tau, scale, first, count, out);
  return std::move(out.mask);
}

int64_t pairs_in_both(const float* s_a, const PairRule& a, const float* s_b, const PairRule& b, int64_t first,
                      int64_t count, int64_t n) {
  if (!a.any || !b.any) return 0;
  int64_t both = 0;
  for (int64_t i = first; i < first + count; ++i) {
    if (!a.takes[i] || !b.takes[i]) continue;
    const float* __restrict ra = s_a + (i - first) * n;
    const float* __restrict rb = s_b + (i - first) * n;
    int32_t row = 0;  // one row's, summed without a branch (a vector loop)
    for (int64_t j = i + 1; j < n; ++j)
      row += (ra[j] >= a.threshold) & a.takes[j] & (rb[j] >= b.threshold) & b.takes[j];
    both += row;
  }
  return both;
}

std::vector<TokenPair> list_pairs(const PairMask& mask, const float* similarity, float scale) {
  std::vector<TokenPair> pairs;
  pairs.reserve(static_cast<size_t>(mask.count()));
  const int n = mask.tokens();
  mask.for_each([&](int i, int j) { pairs.push_back({i, j, similarity[static_cast<int64_t>(i) * n + j] / scale}); });
  return pairs;
}

std::vector<HeadHighSimilarity> high_similarity_in_blocks(const at::Tensor& head_outputs, const TextFacts& facts,
                                                          double tau, const InBlocksRun& run) {
  const int64_t K = head_outputs.size(0), n = head_outputs.size(1);
  const at::Tensor c = head_outputs.to(at::kFloat);
  const ScanFacts f(facts);
  const at::Tensor part = at::from_blob(const_cast<uint8_t*>(f.takes.data()), {n}, at::kByte).to(c.device(), at::kBool);
  // Heads in groups, so that a block has about 128 rows: each block's product packs its group's
  // C^T once, and blocks of a few rows for every head at once spent more time packing than multiplying.
  const int64_t group =
      run.heads > 0 ? run.heads : std::clamp<int64_t>((int64_t{8} << 20) / (128 * std::max<int64_t>(n, 1)), 1, K);
  std::vector<HeadHighSimilarity> out(static_cast<size_t>(K));
  PairMaskBudget masks(run.mask_bytes);
  if (run.norms) *run.norms = at::empty({K, n}, c.options());
  for (int64_t g = 0; g < K; g += group) {
    stop_if_stale(run.keep_going);
    const int64_t G = std::min(group, K - g);
    const at::Tensor heads = c.narrow(0, g, G);
    const auto blocks = row_blocks(n, run.rows > 0 ? run.rows : rows_per_block(G * n));
    at::Tensor norms = run.norms ? run.norms->narrow(0, g, G) : at::Tensor();
    const at::Tensor cosine_norms = run.cosine ? group_norms(heads, blocks) : at::Tensor();
    if (run.cosine && run.norms) norms.copy_(cosine_norms);
    const at::Tensor scale =
        group_maxima(heads, part, blocks, run.norms && !run.cosine ? &norms : nullptr, cosine_norms);
    for (int64_t k = 0; k < G; ++k) {
      HeadHighSimilarity& h = out[static_cast<size_t>(g + k)];
      h.scale = scale.data_ptr<float>()[k];
      if (masks.any()) h.mask = PairMask(static_cast<int>(n));
      h.counts = PairCounts(static_cast<size_t>(n));
    }
    scan_group(heads, f, tau, blocks, cosine_norms, out.data() + g);
    for (int64_t k = 0; k < G; ++k) masks.keep(out[static_cast<size_t>(g + k)].mask);
    // The share first: whoever is handed the heads then reads the stage they belong to.
    if (run.progress) run.progress("pairs", static_cast<double>(g + G) / static_cast<double>(K));
    if (run.scanned) run.scanned(g, std::span<const HeadHighSimilarity>(out.data() + g, static_cast<size_t>(G)));
  }
  return out;
}

}  // namespace attnscope
