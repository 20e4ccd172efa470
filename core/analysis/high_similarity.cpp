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

// Row i of a head against the columns [j0, j1): flag[j - i - 1] says whether (i, j) is high,
// hist[distance] and degree[j] count it. kLater: the columns come after i (the scan's own pairs,
// flagged as the mask's row wants them); else before it (a resumed scan's later token with the
// tokens it does not read again, pair (j, i), not flagged). The loop has no branch and only
// sequential accesses, and the pointers are restrict: the flags are bytes, which C++ lets alias
// anything, and without that promise GCC did not vectorise the loop at all.
template <bool kLater>
RowCounts scan_row(const float* __restrict row, int i, int j0, int j1, float threshold, int32_t id, int32_t sent,
                   const uint8_t* __restrict takes, const int32_t* __restrict ids, const int32_t* __restrict sentence,
                   uint8_t* __restrict flag, int32_t* __restrict hist, int32_t* __restrict degree) {
  RowCounts c;
  for (int j = j0; j < j1; ++j) {
    const int32_t b = (row[j] >= threshold) & takes[j];
    const int32_t r = b & (ids[j] == id), t = b & (sentence[j] == sent);
    const int d = kLater ? j - i : i - j;
    if constexpr (kLater) flag[j - i - 1] = static_cast<uint8_t>(b);
    hist[d] += b;
    degree[j] += b;
    c.count += b;
    c.repeats += r;
    c.same += t;
    c.same_repeats += r & t;
    c.distance += b * d;
  }
  return c;
}

// What a scan's rows add up to for one head: its counts, the distances counted in int32 (a
// vector loop) until they are finished.
struct Tally {
  PairCounts counts;
  std::vector<int32_t> histogram;
  explicit Tally(int64_t n) : Tally(n, PairCounts(static_cast<size_t>(n))) {}
  // Starting from counts of n tokens (a resumed head's earlier pairs).
  Tally(int64_t n, PairCounts from)
      : counts(std::move(from)), histogram(static_cast<size_t>(std::max<int64_t>(n, 1)), 0) {}
  void add(int i, const RowCounts& row) {
    counts.degree[static_cast<size_t>(i)] += row.count;
    counts.count += row.count;
    counts.repeats += row.repeats;
    counts.same_sentence += row.same;
    counts.same_sentence_repeats += row.same_repeats;
    counts.distance_sum += row.distance;
  }
  PairCounts finished() {
    for (size_t d = 0; d < histogram.size(); ++d) counts.distance_histogram[d] += histogram[d];
    return std::move(counts);
  }
};

// Which rows of a head a scan reads, and where it counts pairs apart.
struct RowsRead {
  int from = 0;  // rows before it are not read (a resumed head's); each row read pairs with them too
  // The pairs in bands by their later token: band b those before ends[b] and not before
  // ends[b - 1], the last band (b = ends.size()) the others. Ascending, each below n.
  std::span<const int64_t> ends = {};
};

// The band of the pairs whose later token is t.
size_t band_of(std::span<const int64_t> ends, int64_t t) {
  return static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), t) - ends.begin());
}

// Rows [first, first + count) of one head (`block`: those rows of its S, each n long), those from
// read.from on: every pair of participants at or above `threshold`, counted for the statistics
// into its band's tally (`bands`: read.ends.size() + 1) and set in the mask where it has n tokens.
void scan_rows(const float* block, int first, int count, int n, const ScanFacts& f, float threshold, RowsRead read,
               std::span<Tally> bands, PairMask& mask) {
  thread_local std::vector<uint8_t> flags;
  flags.assign(static_cast<size_t>(n), 0);
  for (int i = std::max(first, read.from); i < first + count; ++i) {
    if (!f.takes[static_cast<size_t>(i)]) continue;
    const float* row = block + static_cast<int64_t>(i - first) * n;
    const int32_t id = f.ids[static_cast<size_t>(i)], sent = f.sentence[static_cast<size_t>(i)];
    int64_t found = 0;
    const auto scan = [&](auto later, int j0, int j1, Tally& into) {
      const RowCounts c = scan_row<decltype(later)::value>(row, i, j0, j1, threshold, id, sent, f.takes.data(),
                                                           f.ids.data(), f.sentence.data(), flags.data(),
                                                           into.histogram.data(), into.counts.degree.data());
      into.add(i, c);
      found += c.count;
    };
    size_t b = band_of(read.ends, i);
    if (read.from > 0) scan(std::false_type{}, 0, read.from, bands[b]);  // pairs (j, i): i the later token
    for (int j = i + 1; j < n; ++b) {                                    // pairs (i, j) in j's band
      const int end = b < read.ends.size() ? static_cast<int>(read.ends[b]) : n;
      scan(std::true_type{}, j, end, bands[b]);
      j = end;
    }
    if (mask.tokens() == n && found > 0) mask.set_row(i, flags.data());
  }
}

// One head's whole S.
void scan_head(const float* s, int n, const ScanFacts& f, float threshold, HeadHighSimilarity& out) {
  Tally all(n);
  scan_rows(s, 0, n, n, f, threshold, {}, std::span<Tally>(&all, 1), out.mask);
  out.counts = all.finished();
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

// Rows [first, first + count) of the scans' source, made from at least kFewestBlockRows rows (a
// product of fewer sums in another order: model/reproducible_products.h), the others left out.
at::Tensor source_rows(const at::Tensor& c, int64_t first, int64_t count, const at::Tensor& cosine_norms,
                       at::Tensor* norms = nullptr) {
  const int64_t n = c.size(1), made = std::min(n, std::max(count, kFewestBlockRows)), start = std::min(first, n - made);
  const at::Tensor rows = pair_source_rows(c, start, made, cosine_norms, norms);
  return made == count ? rows : rows.narrow(1, first - start, count);
}

// Rows [from, n) in blocks of `step`.
RowBlocks row_blocks_from(int64_t from, int64_t n, int64_t step) {
  RowBlocks blocks = row_blocks(n - from, step);
  for (auto& block : blocks) block.first += from;
  return blocks;
}

// A group's largest S_ij (or cosine) per head, over participants i != j, on the host: `whole`
// over the rows the pass read and every column, bands[b] over the pairs among them of band b
// (RowsRead) (-inf where none).
struct GroupMaxima {
  at::Tensor whole;
  std::vector<at::Tensor> bands;
};

// First pass over a group of heads [G, n, d], over the rows of `blocks` (when positive, the whole
// path's plain maximum is `whole` too: its diagonal is 0 and every token takes part there);
// `norms` ([G, n]) takes those rows' token norms on the way.
GroupMaxima group_maxima(const at::Tensor& c, const at::Tensor& part, const RowBlocks& blocks,
                         std::span<const int64_t> ends, at::Tensor* norms, const at::Tensor& cosine_norms) {
  const int64_t n = c.size(1);
  constexpr float kNone = -std::numeric_limits<float>::infinity();
  GroupMaxima m{at::full({c.size(0)}, kNone, c.options()), {}};
  for (size_t b = 0; b < ends.size(); ++b) m.bands.push_back(at::full({c.size(0)}, kNone, c.options()));
  const auto take = [](at::Tensor& into, const at::Tensor& part) {
    if (part.numel() > 0) into = at::maximum(into, part.amax({1, 2}));
  };
  for (const auto& [first, count] : blocks) {
    const at::Tensor rows = at::arange(first, first + count, at::TensorOptions().dtype(at::kLong).device(c.device()));
    const at::Tensor allowed = part.narrow(0, first, count)
                                   .unsqueeze(1)
                                   .logical_and(part.unsqueeze(0))
                                   .logical_and(rows.unsqueeze(1) != at::arange(n, rows.options()).unsqueeze(0));
    const at::Tensor s = at::where(allowed, source_rows(c, first, count, cosine_norms, norms), kNone);
    // Each element read once: a band's rows up to its end into the band (their pairs with an
    // earlier token, and by symmetry S's with a later one in the band), the rest into the whole.
    int64_t row = first;
    for (size_t b = 0; b < ends.size(); ++b) {
      const int64_t last = std::min(first + count, ends[b]);
      if (last <= row) continue;
      const at::Tensor rows = s.narrow(1, row - first, last - row);
      take(m.bands[b], rows.narrow(2, 0, ends[b]));
      take(m.whole, rows.narrow(2, ends[b], n - ends[b]));
      row = last;
    }
    take(m.whole, s.narrow(1, row - first, first + count - row));
  }
  for (at::Tensor& band : m.bands) {
    m.whole = at::maximum(m.whole, band);
    band = band.cpu();
  }
  m.whole = m.whole.cpu();
  return m;
}

// The heads of a group [G, n, d] that read rows [first, first + count) in the second pass (a head
// with no positive similarity reads none, a resumed head none before its row), and those heads'
// outputs (and cosine norms): the group's own where all do, else a copy, kept while the next
// blocks are read by the same heads (those of a resumed scan's rows before its row are the same).
struct ReadingHeads {
  std::vector<int64_t> heads;
  at::Tensor outputs, cosine_norms;
  void update(const at::Tensor& c, const at::Tensor& norms, const std::vector<RowsRead>& read,
              const HeadHighSimilarity* out, int64_t first, int64_t count) {
    std::vector<int64_t> now;
    for (int64_t k = 0; k < c.size(0); ++k)
      if (out[k].scale > 0 && first + count > read[static_cast<size_t>(k)].from) now.push_back(k);
    if (outputs.defined() && now == heads) return;
    heads = std::move(now);
    if (static_cast<int64_t>(heads.size()) == c.size(0)) {
      outputs = c, cosine_norms = norms;
      return;
    }
    // Each head's product is its own (a batched product's entries are made one by one): the same bits.
    const at::Tensor index = at::tensor(heads, at::TensorOptions().dtype(at::kLong)).to(c.device());
    outputs = c.index_select(0, index);
    cosine_norms = norms.defined() ? norms.index_select(0, index) : norms;
  }
};

// Second pass over a group of heads: rows [read[k].from, n) of head k scanned, a block at a time,
// into `out` (the group's G entries, their scales set) and its tallies.
void scan_group(const at::Tensor& c, const ScanFacts& f, double tau, const RowBlocks& blocks,
                const at::Tensor& cosine_norms, const std::vector<RowsRead>& read,
                std::vector<std::vector<Tally>>& bands, HeadHighSimilarity* out) {
  const int64_t n = c.size(1);
  ReadingHeads reading;
  for (const auto& block : blocks) {
    const int64_t first = block.first, count = block.second;  // named: clang 14's lambdas capture no bindings
    reading.update(c, cosine_norms, read, out, first, count);
    if (reading.heads.empty()) continue;
    const at::Tensor host = source_rows(reading.outputs, first, count, reading.cosine_norms).cpu().contiguous();
    at::parallel_for(0, static_cast<int64_t>(reading.heads.size()), 1, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t k = reading.heads[static_cast<size_t>(r)];
        const auto h = static_cast<size_t>(k);
        scan_rows(host.data_ptr<float>() + r * count * n, static_cast<int>(first), static_cast<int>(count),
                  static_cast<int>(n), f, static_cast<float>(tau) * out[k].scale, read[h], bands[h], out[k].mask);
      }
    });
  }
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
  PairMask mask(static_cast<int>(n));
  if (!(scale > 0) || count == 0) return mask;
  const at::Tensor c = head_outputs.to(at::kFloat).unsqueeze(0);
  const ScanFacts f(facts);
  const int64_t step = rows_per_block(n);
  const at::Tensor norms = cosine_norms.defined() ? cosine_norms.to(c.device(), at::kFloat).unsqueeze(0) : at::Tensor();
  Tally all(n);
  for (int64_t done = first; done < first + count;) {
    const int64_t rows = std::min(step, first + count - done);
    const at::Tensor host = source_rows(c, done, rows, norms).cpu().contiguous();
    scan_rows(host.data_ptr<float>(), static_cast<int>(done), static_cast<int>(rows), static_cast<int>(n), f,
              static_cast<float>(tau) * scale, {}, std::span<Tally>(&all, 1), mask);
    done += rows;
  }
  return mask;
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
  Tally all(n);
  for (int64_t done = first; done < first + count; done += rows_per_block(n)) {
    const int64_t rows = std::min(rows_per_block(n), first + count - done);
    const at::Tensor block = symmetric_rows(map, done, rows);
    scan_rows(block.data_ptr<float>(), static_cast<int>(done), static_cast<int>(rows), static_cast<int>(n), f,
              static_cast<float>(tau) * scale, {}, std::span<Tally>(&all, 1), out.mask);
  }
  out.counts = all.finished();
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

namespace {

void check_resume(const InBlocksRun& run, int64_t K, int64_t n, double tau) {
  if (!run.resume && !run.before) return;
  if (run.cosine || !run.norms) throw Error("pairs counted apart or taken from a scan before are S's, with its norms");
  const PairsBefore* r = run.resume;
  if (!r) return;
  const bool heads = std::all_of(r->at.begin(), r->at.end(),
                                 [&](const PairsAt& a) { return static_cast<int64_t>(a.heads.size()) == K; });
  if (!heads || r->row() > n || r->tau != tau || r->norms.dim() != 2 || r->norms.size(0) != K ||
      r->norms.size(1) != r->row())
    throw Error("the scan resumed from is not of these heads, tokens and tau");
}

// The scan resumed from's checkpoint at `row`, if it has one.
const PairsAt* checkpoint_at(const PairsBefore* r, int64_t row) {
  if (!r) return nullptr;
  const auto at = std::find_if(r->at.begin(), r->at.end(), [&](const PairsAt& a) { return a.row == row; });
  return at == r->at.end() ? nullptr : &*at;
}

// The rows a scan counts its pairs apart at: those asked for below n, but at or before the resumed
// row only where the scan resumed from has them (whose heads that resume take them from there).
std::vector<int64_t> checkpoint_rows(const InBlocksRun& run, int64_t n) {
  std::vector<int64_t> rows;
  if (!run.before) return rows;
  const int64_t from = run.resume ? run.resume->row() : 0;
  for (const int64_t row : run.splits)
    if (row > 0 && row < n && (row > from || checkpoint_at(run.resume, row)) && (rows.empty() || row > rows.back()))
      rows.push_back(row);
  return rows;
}

// A group of heads between its two passes: the rows each reads and its tallies, a band each.
struct GroupScan {
  std::vector<RowsRead> read;
  std::vector<std::vector<Tally>> bands;
};

// Each head's scale from the first pass (and, resumed, the earlier tokens' largest S_ij), and
// whether it takes its earlier pairs: only with the threshold they were counted with. A head that
// does starts the band of the resumed row with them.
GroupScan start_group(const InBlocksRun& run, const GroupMaxima& m, std::span<const int64_t> ends, int64_t g, int64_t G,
                      int64_t n, bool masks, HeadHighSimilarity* out) {
  GroupScan scan;
  const PairsBefore* r = run.resume;
  const int64_t from = r ? r->row() : 0;
  for (int64_t k = 0; k < G; ++k) {
    float whole = m.whole.data_ptr<float>()[k];
    const HeadPairsBefore* was = from > 0 ? &r->at.back().heads[static_cast<size_t>(g + k)] : nullptr;
    if (was) whole = std::max(whole, was->largest);
    const bool resumed = was && was->scale == whole;
    out[k].scale = whole;
    out[k].counts = PairCounts(static_cast<size_t>(n));
    if (masks && !resumed) out[k].mask = PairMask(static_cast<int>(n));
    scan.read.push_back({resumed ? static_cast<int>(from) : 0, ends});
    std::vector<Tally> bands;
    for (size_t b = 0; b <= ends.size(); ++b) bands.emplace_back(n);
    if (resumed) bands[band_of(ends, from)] = Tally(n, counts_of_length(was->counts, n));
    scan.bands.push_back(std::move(bands));
  }
  return scan;
}

// Each head's counts, its bands' summed, and what the next scan takes at each checkpoint: counted
// with the bands up to it, or at or before the resumed row, the scan before's (its largest S_ij
// always, its counts where the head took its pairs).
void finish_group(GroupScan& scan, const GroupMaxima& m, const InBlocksRun& run, std::span<const int64_t> ends,
                  int64_t g, HeadHighSimilarity* out) {
  const PairsBefore* r = run.resume;
  const int64_t from = r ? r->row() : 0;
  for (size_t k = 0; k < scan.read.size(); ++k) {
    const size_t head = static_cast<size_t>(g) + k;
    std::vector<Tally>& bands = scan.bands[k];
    PairCounts sum = bands.front().finished();
    float largest = from > 0 ? r->at.back().heads[head].largest : -std::numeric_limits<float>::infinity();
    for (size_t b = 0; b < ends.size(); ++b) {
      if (b > 0) add_counts(sum, bands[b].finished());
      largest = std::max(largest, m.bands[b].data_ptr<float>()[k]);
      if (!run.before) continue;
      const PairsAt* earlier = ends[b] <= from ? checkpoint_at(r, ends[b]) : nullptr;
      HeadPairsBefore& at = run.before->at[b].heads[head];
      if (earlier && scan.read[k].from > 0)
        at = earlier->heads[head];
      else
        at = {earlier ? earlier->heads[head].largest : largest, out[k].scale, counts_of_length(sum, ends[b])};
    }
    if (!ends.empty()) add_counts(sum, bands.back().finished());
    out[k].counts = std::move(sum);
  }
}

}  // namespace

std::vector<HeadHighSimilarity> high_similarity_in_blocks(const at::Tensor& head_outputs, const TextFacts& facts,
                                                          double tau, const InBlocksRun& run) {
  const int64_t K = head_outputs.size(0), n = head_outputs.size(1);
  check_resume(run, K, n, tau);
  const at::Tensor c = head_outputs.to(at::kFloat);
  const ScanFacts f(facts);
  const at::Tensor part = at::from_blob(const_cast<uint8_t*>(f.takes.data()), {n}, at::kByte).to(c.device(), at::kBool);
  const int64_t from = run.resume ? run.resume->row() : 0;
  const std::vector<int64_t> ends = checkpoint_rows(run, n);
  // Heads in groups, so that a block has about 128 rows: each block's product packs its group's
  // C^T once, and blocks of a few rows for every head at once spent more time packing than multiplying.
  const int64_t group =
      run.heads > 0 ? run.heads : std::clamp<int64_t>((int64_t{8} << 20) / (128 * std::max<int64_t>(n, 1)), 1, K);
  std::vector<HeadHighSimilarity> out(static_cast<size_t>(K));
  PairMaskBudget masks(run.mask_bytes);
  if (run.norms) *run.norms = at::empty({K, n}, c.options());
  if (run.before) {
    *run.before = {tau, {}, {}, from, 0};
    for (const int64_t row : ends)
      run.before->at.push_back({row, std::vector<HeadPairsBefore>(static_cast<size_t>(K))});
  }
  for (int64_t g = 0; g < K; g += group) {
    stop_if_stale(run.keep_going);
    const int64_t G = std::min(group, K - g), step = run.rows > 0 ? run.rows : rows_per_block(G * n);
    const at::Tensor heads = c.narrow(0, g, G);
    at::Tensor norms = run.norms ? run.norms->narrow(0, g, G) : at::Tensor();
    if (from > 0) norms.narrow(1, 0, from).copy_(run.resume->norms.narrow(0, g, G));
    const at::Tensor cosine_norms = run.cosine ? group_norms(heads, row_blocks(n, step)) : at::Tensor();
    if (run.cosine && run.norms) norms.copy_(cosine_norms);
    const GroupMaxima maxima = group_maxima(heads, part, row_blocks_from(from, n, step), ends,
                                            run.norms && !run.cosine ? &norms : nullptr, cosine_norms);
    GroupScan scan = start_group(run, maxima, ends, g, G, n, masks.any(), out.data() + g);
    const int first_read = std::min_element(scan.read.begin(), scan.read.end(), [](RowsRead a, RowsRead b) {
                             return a.from < b.from;
                           })->from;
    scan_group(heads, f, tau, row_blocks_from(first_read, n, step), cosine_norms, scan.read, scan.bands,
               out.data() + g);
    finish_group(scan, maxima, run, ends, g, out.data() + g);
    if (run.before)
      run.before->heads_resumed +=
          std::count_if(scan.read.begin(), scan.read.end(), [](const RowsRead& r) { return r.from > 0; });
    for (int64_t k = 0; k < G; ++k) masks.keep(out[static_cast<size_t>(g + k)].mask);
    // The share first: whoever is handed the heads then reads the stage they belong to.
    if (run.progress) run.progress("pairs", static_cast<double>(g + G) / static_cast<double>(K));
    if (run.scanned) run.scanned(g, std::span<const HeadHighSimilarity>(out.data() + g, static_cast<size_t>(G)));
  }
  if (run.before) run.before->norms = run.norms->narrow(1, 0, run.before->row()).clone();
  return out;
}

}  // namespace attnscope
