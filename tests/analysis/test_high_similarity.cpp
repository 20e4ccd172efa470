// S_hat, the threshold, the pair masks and the statistics counted by the scan, on matrices
// written out by hand and on random ones checked against the definitions.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "analysis/high_similarity.h"
#include "base/error.h"

namespace attnscope {
namespace {

at::Tensor symmetric(int n, std::vector<std::tuple<int, int, float>> entries) {
  at::Tensor s = at::zeros({1, n, n});
  for (auto [i, j, v] : entries) {
    s[0][i][j] = v;
    s[0][j][i] = v;
  }
  return s;
}

// n tokens with distinct ids in one sentence, `takes` saying who takes part (all when empty).
TextFacts facts(int n, std::vector<bool> takes = {}) {
  std::vector<int32_t> ids;
  for (int i = 0; i < n; ++i) ids.push_back(100 + i);
  if (takes.empty()) takes.assign(static_cast<size_t>(n), true);
  return text_facts(ids, std::vector<int>(static_cast<size_t>(n), 0), takes);
}

std::vector<TokenPair> pairs_of(const at::Tensor& s, const HeadHighSimilarity& h, int k = 0) {
  const at::Tensor head = s[k].contiguous();
  return list_pairs(h.mask, head.data_ptr<float>(), h.scale);
}

std::vector<std::pair<int, int>> positions(const std::vector<TokenPair>& pairs) {
  std::vector<std::pair<int, int>> out;
  for (const auto& p : pairs) out.emplace_back(p.i, p.j);
  return out;
}

TEST(HighSimilarity, NormalisedByTheOffDiagonalMaximum) {
  // max is 10 at (1, 3); S_hat: (0,1) 0.2, (0,2) 0.3, (1,3) 1, (2,3) 0.29
  const at::Tensor s = symmetric(4, {{0, 1, 2}, {0, 2, 3}, {1, 3, 10}, {2, 3, 2.9f}});
  const auto r = high_similarity(s, facts(4), 0.3);
  EXPECT_EQ(r[0].scale, 10.0f);
  const auto pairs = pairs_of(s, r[0]);
  EXPECT_EQ(positions(pairs), (std::vector<std::pair<int, int>>{{0, 2}, {1, 3}}));  // 0.3 counts: S_hat >= tau
  EXPECT_FLOAT_EQ(pairs[0].value, 0.3f);
  EXPECT_FLOAT_EQ(pairs[1].value, 1.0f);
  EXPECT_EQ(r[0].mask.count(), 2);
  EXPECT_TRUE(r[0].mask.test(3, 1));
  EXPECT_FALSE(r[0].mask.test(2, 3));
}

TEST(HighSimilarity, TiesAtTheMaximumAreAllPairs) {
  const at::Tensor s = symmetric(3, {{0, 1, 5}, {1, 2, 5}, {0, 2, 1}});
  EXPECT_EQ(positions(pairs_of(s, high_similarity(s, facts(3), 0.5)[0])),
            (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}}));
}

TEST(HighSimilarity, NegativeSimilaritiesNeverPass) {
  const at::Tensor s = symmetric(3, {{0, 1, 4}, {0, 2, -8}, {1, 2, -1}});
  EXPECT_EQ(positions(pairs_of(s, high_similarity(s, facts(3), 0.3)[0])), (std::vector<std::pair<int, int>>{{0, 1}}));
}

TEST(HighSimilarity, AHeadWhoseMaximumIsNotPositiveHasNoPairs) {
  const auto negative = high_similarity(symmetric(3, {{0, 1, -1}, {0, 2, -2}, {1, 2, -3}}), facts(3), 0.3);
  EXPECT_EQ(negative[0].mask.count(), 0);
  EXPECT_EQ(negative[0].counts.count, 0);
  EXPECT_EQ(negative[0].scale, -1.0f);
  const auto zero = high_similarity(at::zeros({1, 3, 3}), facts(3), 0.3);
  EXPECT_EQ(zero[0].mask.count(), 0);
}

TEST(HighSimilarity, LeftOutTokensTakeNoPartInTheMaximumOrThePairs) {
  // token 0 ([CLS], say) has the largest similarity; leaving it out makes (1, 2) the maximum
  const at::Tensor s = symmetric(4, {{0, 1, 100}, {1, 2, 4}, {2, 3, 2}, {1, 3, 1}});
  EXPECT_EQ(positions(pairs_of(s, high_similarity(s, facts(4), 0.3)[0])), (std::vector<std::pair<int, int>>{{0, 1}}));
  const auto without = high_similarity(s, facts(4, {false, true, true, true}), 0.3);
  EXPECT_EQ(without[0].scale, 4.0f);
  EXPECT_EQ(positions(pairs_of(s, without[0])), (std::vector<std::pair<int, int>>{{1, 2}, {2, 3}}));
}

TEST(HighSimilarity, ThePairsAreExactlyTheUpperTriangleOfTheMask) {
  const at::Tensor c = at::randn({5, 12, 6});
  at::Tensor s = at::matmul(c, c.transpose(1, 2));
  s.diagonal(0, 1, 2).zero_();
  const auto r = high_similarity(s, facts(12), 0.3);
  for (int k = 0; k < 5; ++k) {
    const at::Tensor top = s[k].masked_select(at::eye(12).logical_not().to(at::kBool)).max();
    const at::Tensor mask = (s[k] / top >= 0.3).triu(1);
    const auto pairs = pairs_of(s, r[static_cast<size_t>(k)], k);
    EXPECT_EQ(static_cast<int64_t>(pairs.size()), mask.sum().item<int64_t>());
    for (const auto& p : pairs) EXPECT_TRUE(mask[p.i][p.j].item<bool>());
  }
}

// The scan's counts give the statistics the definition gives from the pair list, on random
// heads with repeated tokens, several sentences and left-out tokens.
TEST(HighSimilarity, TheScanCountsWhatThePairListDefines) {
  at::manual_seed(7);
  const int n = 37;
  std::vector<int32_t> ids;
  std::vector<int> sentence;
  std::vector<bool> takes;
  for (int i = 0; i < n; ++i) {
    ids.push_back(i % 5 == 0 ? 7 : 100 + i % 11);
    sentence.push_back(i / 9);
    takes.push_back(i != 0 && i != n - 1 && i != 13);
  }
  const TextFacts f = text_facts(ids, sentence, takes);
  const at::Tensor c = at::randn({9, n, 5}) + 0.4;
  at::Tensor s = at::matmul(c, c.transpose(1, 2));
  s.diagonal(0, 1, 2).zero_();
  for (double tau : {0.05, 0.3, 0.7}) {
    const auto r = high_similarity(s, f, tau);
    for (int k = 0; k < 9; ++k) {
      const auto& h = r[static_cast<size_t>(k)];
      const HeadStats scanned = stats_from_counts(h.counts, f), defined = head_stats(pairs_of(s, h, k), f);
      EXPECT_EQ(scanned.count, defined.count);
      EXPECT_EQ(h.mask.count(), defined.count);
      EXPECT_EQ(scanned.repeat_share, defined.repeat_share);
      EXPECT_EQ(scanned.same_sentence_repeat_share, defined.same_sentence_repeat_share);
      EXPECT_EQ(scanned.same_sentence_share, defined.same_sentence_share);
      EXPECT_EQ(scanned.mean_distance, defined.mean_distance);
      EXPECT_EQ(scanned.distance_histogram, defined.distance_histogram);
      EXPECT_EQ(scanned.anchor_index, defined.anchor_index);
      EXPECT_EQ(scanned.anchor_share, defined.anchor_share);
    }
  }
}

// The pairs two heads share, counted from rows of their S by each one's rule (its tau, scale and
// who takes part), block by block: what count_both of the scans' masks gives.
TEST(HighSimilarity, PairsInBothRowsCountWhatBothMasksShare) {
  const int n = 37;
  at::manual_seed(5);
  const auto random_s = [&] {
    const at::Tensor c = at::randn({1, n, 6});
    return at::matmul(c, c.transpose(1, 2)).mul_(1 - at::eye(n)).contiguous();
  };
  const at::Tensor s_a = random_s(), s_b = random_s();
  std::vector<bool> takes_a(n, true), takes_b(n, true);
  takes_a[0] = takes_a[5] = false;
  takes_b[0] = takes_b[20] = false;
  const TextFacts facts_a = facts(n, takes_a), facts_b = facts(n, takes_b);
  const HeadHighSimilarity a = high_similarity(s_a, facts_a, 0.2)[0], b = high_similarity(s_b, facts_b, 0.15)[0];
  const std::vector<uint8_t> part_a(takes_a.begin(), takes_a.end()), part_b(takes_b.begin(), takes_b.end());
  const PairRule rule_a(0.2, a.scale, part_a.data()), rule_b(0.15, b.scale, part_b.data());
  int64_t both = 0;
  for (const auto& [first, count] : std::vector<std::pair<int64_t, int64_t>>{{0, 10}, {10, 4}, {14, 23}})
    both += pairs_in_both(s_a.data_ptr<float>() + first * n, rule_a, s_b.data_ptr<float>() + first * n, rule_b, first,
                          count, n);
  ASSERT_GT(a.mask.count_both(b.mask), 0);
  EXPECT_EQ(both, a.mask.count_both(b.mask));
  // A head without a positive similarity has no pairs, whatever its threshold makes of the rows.
  EXPECT_EQ(
      pairs_in_both(s_a.data_ptr<float>(), PairRule(0.2, -1.0f, part_a.data()), s_b.data_ptr<float>(), rule_b, 0, n, n),
      0);
}

TEST(PairMask, BitsFollowTheRowMajorUpperTriangle) {
  // n = 4: (0,1) (0,2) (0,3) (1,2) (1,3) (2,3) are bits 0 .. 5
  EXPECT_EQ(PairMask::index(4, 0, 1), 0);
  EXPECT_EQ(PairMask::index(4, 1, 2), 3);
  EXPECT_EQ(PairMask::index(4, 2, 3), 5);
  const PairMask m(4, {0b101001});  // (0,1), (1,2), (2,3)
  EXPECT_EQ(m.count(), 3);
  std::vector<std::pair<int, int>> seen;
  m.for_each([&](int i, int j) { seen.emplace_back(i, j); });
  EXPECT_EQ(seen, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_TRUE(m.test(2, 1));
  EXPECT_FALSE(m.test(1, 1));
}

// Held in chunks of 4,096 bits: a chunk with no pair or every pair is a tag alone, so a dense head
// of a long text takes next to nothing, a mixed chunk its 512 bytes; the packed bits, the pairs
// listed and the tests are those of the bits set, whatever the chunks; count_both counts the
// pairs two masks share, chunk kind against chunk kind.
TEST(PairMask, UniformChunksAreTagsAndEverythingElseIsTheBitsSet) {
  const int n = 300;  // 44,850 bits: 11 chunks, the last one partial
  std::vector<uint8_t> ones(n, 1), none(n, 0), some(n, 0);
  for (int j = 0; j < n; j += 7) some[static_cast<size_t>(j)] = 1;
  PairMask full(n), empty(n), mixed(n);
  for (int i = 0; i < n; ++i) {
    full.set_row(i, ones.data());
    empty.set_row(i, none.data());
    mixed.set_row(i, i < 100 ? ones.data() : some.data());
  }
  EXPECT_EQ(full.count(), PairMask::triangle(n));
  EXPECT_LE(full.stored_bytes(), 11 * 5 + 512u);  // tags (the last chunk written may stay open)
  EXPECT_LE(empty.stored_bytes(), 11 * 5 + 512u);
  EXPECT_EQ(empty.count(), 0);
  EXPECT_GT(mixed.stored_bytes(), 2 * 512u);
  const std::vector<uint8_t> bits = mixed.bits();
  ASSERT_EQ(bits.size(), static_cast<size_t>((PairMask::triangle(n) + 7) / 8));
  const PairMask again(n, bits);  // from a file: the same pairs, the same chunks kept
  EXPECT_EQ(again.count(), mixed.count());
  EXPECT_EQ(again.bits(), bits);
  int64_t listed = 0;
  mixed.for_each([&](int i, int j) {
    EXPECT_TRUE(i < 100 || (j - i - 1) % 7 == 0) << i << "," << j;  // flag m is j = i + 1 + m
    EXPECT_TRUE(again.test(j, i));
    ++listed;
  });
  EXPECT_EQ(listed, mixed.count());
  EXPECT_EQ(PairMask::count_packed(n, bits), mixed.count());  // counted where they lie: the same pairs
  EXPECT_TRUE(full.test(299, 0));
  EXPECT_FALSE(empty.test(1, 2));
  EXPECT_EQ(full.count_both(mixed), mixed.count());
  EXPECT_EQ(mixed.count_both(mixed), mixed.count());
  EXPECT_EQ(empty.count_both(full), 0);
  EXPECT_THROW(mixed.count_both(PairMask(n - 1)), Error);
  // Rows out of order are kept all the same (only not as small).
  PairMask backwards(n);
  for (int i = n - 1; i >= 0; --i) backwards.set_row(i, i < 100 ? ones.data() : some.data());
  EXPECT_EQ(backwards.bits(), bits);
}

// Rows set from flags, at every alignment of a row's first bit (whole bytes are set eight flags
// at a time, the ends one by one): each pair is set exactly when its flag was.
TEST(PairMask, RowsSetFromFlagsHoldExactlyThoseFlags) {
  const int n = 45;
  PairMask m(n);
  std::vector<std::vector<uint8_t>> flags(n);
  int64_t expected = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) flags[i].push_back(static_cast<uint8_t>((i * 7 + j * 3 + i * j) % 5 < 2));
    for (uint8_t f : flags[i]) expected += f;
    m.set_row(i, flags[i].data());
  }
  EXPECT_EQ(m.count(), expected);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      EXPECT_EQ(m.test(i, j), flags[i][static_cast<size_t>(j - i - 1)] == 1) << i << "," << j;
}

// A copy shares the chunks' bytes (a layer's rollout pairs are each of its heads'); written to, it
// takes bytes of its own and the other keeps its pairs.
TEST(PairMask, CopiesShareTheirBytesUntilOneIsWrittenTo) {
  const int n = 200;
  std::vector<uint8_t> some(n, 0);
  for (int j = 0; j < n; j += 3) some[static_cast<size_t>(j)] = 1;
  PairMask original(n);
  for (int i = 0; i < 150; ++i) original.set_row(i, some.data());
  const std::vector<uint8_t> bits = original.bits();
  PairMask copy = original;
  EXPECT_TRUE(copy.shares_bytes_with(original));
  EXPECT_EQ(copy.bits(), bits);
  EXPECT_EQ(copy.count_both(original), original.count());
  const std::vector<uint8_t> ones(n, 1);
  copy.set_row(150, ones.data());
  EXPECT_FALSE(copy.shares_bytes_with(original));
  EXPECT_EQ(original.bits(), bits);  // untouched
  EXPECT_EQ(copy.count(), original.count() + n - 151);
  EXPECT_TRUE(copy.test(150, 199));
  EXPECT_FALSE(original.test(150, 199));
  EXPECT_FALSE(PairMask(n).shares_bytes_with(PairMask(n)));  // nothing mixed: nothing shared
}

// A lens's pairs found in its map as made (not symmetric), and its mask made again, some rows or
// all: what the scan of symmetric_pair_map's matrix finds (scale, bits, counts), ties and left-out
// tokens included.
TEST(HighSimilarity, RowsOfAMapsPairsAreThoseOfItsSymmetricMatrixScanned) {
  const int n = 150;
  at::manual_seed(7);
  at::Tensor map = at::rand({n, n});
  map[3][9] = map[9][3] = 1.5f;  // the maximum, tied with itself both ways
  std::vector<bool> takes(static_cast<size_t>(n), true);
  takes[0] = takes[77] = false;
  const TextFacts f = facts(n, takes);
  at::Tensor symmetric = (map + map.t()).mul_(0.5);
  symmetric.diagonal().zero_();
  const HeadHighSimilarity whole = high_similarity(symmetric.unsqueeze(0), f, 0.4).front();
  ASSERT_GT(whole.mask.count(), 1000);
  const HeadHighSimilarity of_map = high_similarity_of_map(map, f, 0.4);  // found without the symmetric matrix
  EXPECT_EQ(of_map.scale, whole.scale);
  EXPECT_EQ(of_map.mask.bits(), whole.mask.bits());
  EXPECT_EQ(of_map.counts.count, whole.counts.count);
  EXPECT_EQ(of_map.counts.distance_histogram, whole.counts.distance_histogram);
  EXPECT_EQ(of_map.counts.degree, whole.counts.degree);
  EXPECT_EQ(of_map.counts.same_sentence, whole.counts.same_sentence);
  EXPECT_EQ(of_map.counts.distance_sum, whole.counts.distance_sum);
  // Every element not positive: no scale above 0, no pairs, as high_similarity says.
  const at::Tensor negative = -map;
  const HeadHighSimilarity none = high_similarity_of_map(negative, f, 0.4);
  EXPECT_EQ(none.scale,
            high_similarity((negative + negative.t()).mul_(0.5).fill_diagonal_(0).unsqueeze(0), f, 0.4).front().scale);
  EXPECT_EQ(none.mask.count(), 0);
  EXPECT_EQ(map_pair_rows(map, f, 0.4, whole.scale, 0, n).bits(), whole.mask.bits());
  const PairMask part = map_pair_rows(map, f, 0.4, whole.scale, 40, 25);
  int64_t in_rows = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const bool expected = i >= 40 && i < 65 && whole.mask.test(i, j);
      ASSERT_EQ(part.test(i, j), expected) << i << "," << j;
      in_rows += expected;
    }
  EXPECT_EQ(part.count(), in_rows);
  EXPECT_EQ(map_pair_rows(map, f, 0.4, 0.0f, 0, n).count(), 0);  // no positive maximum: no pairs
  EXPECT_THROW(map_pair_rows(map, f, 0.4, whole.scale, 140, 20), Error);
  EXPECT_THROW(map_pair_rows(map.narrow(1, 0, n - 1), f, 0.4, whole.scale, 0, 1), Error);
}

TEST(PairMask, BitsPastTheEndAreIgnoredAndWrongSizesRefused) {
  EXPECT_EQ(PairMask(4, {0xff}).count(), 6);  // 6 pairs; the top two bits mean nothing
  EXPECT_THROW(PairMask(4, {0, 0}), Error);
  EXPECT_THROW(PairMask(5, {0}), Error);
  EXPECT_EQ(PairMask(1, std::vector<uint8_t>{}).count(), 0);
  // Counted in place, the same: n = 12 is 66 bits, eight whole bytes and two bits of the ninth.
  std::vector<uint8_t> bits(9, 0xff);
  EXPECT_EQ(PairMask::count_packed(12, bits), 66);
  bits[3] = 0x0f;
  EXPECT_EQ(PairMask::count_packed(12, bits), PairMask(12, bits).count());
  EXPECT_EQ(PairMask::count_packed(4, std::vector<uint8_t>{0xff}), 6);
  EXPECT_THROW(PairMask::count_packed(4, std::vector<uint8_t>{0, 0}), Error);
  EXPECT_EQ(PairMask::count_packed(1, std::vector<uint8_t>{}), 0);
}

}  // namespace
}  // namespace attnscope
