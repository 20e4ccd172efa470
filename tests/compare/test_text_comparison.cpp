// Comparing runs on the real MiniLM checkpoint: with itself (no change), with a copy whose heads
// were permuted in its weights (the matching finds the permutation), with copies perturbed by
// growing noise (the changes grow), and one model on two texts.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "compare/text_comparison.h"
#include "base/error.h"
#include "model/attention_rows.h"
#include "model/checkpoint.h"
#include "pipeline/long_text_lens_pairs.h"
#include "support/minilm.h"
#include "support/modified_checkpoint.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

const std::string kText = "The cat sat on the mat. The dog saw the cat, and the cat ran away from the dog.";

struct Analysed {
  std::string text;
  TextRun run;
  TextAnalysis analysis;
  ComparedRun view() const { return {run.encoding, text, run.captures, analysis}; }
};

Analysed analyse(const Checkpoint& model, const std::string& text, const CheckpointRun& run = {},
                 const AnalysisSettings& settings = {}) {
  Analysed a{text, model.run(text, 128, run), {}};
  a.analysis = analyze_text(a.run.encoding, a.run.captures, settings);
  return a;
}

// MiniLM with noise of 0.1 added to its weights, written under `dir`.
std::shared_ptr<const Checkpoint> noisy_minilm(const test::TempDir& dir) {
  test::write_modified_checkpoint(test::minilm_dir(), dir / "noisy", test::add_noise(0.1, 11));
  return Checkpoint::load(dir / "noisy", test::test_device());
}

double mean_change(const TextComparison& c) {
  double sum = 0;
  for (const HeadChange& h : c.changes) sum += h.change();
  return sum / static_cast<double>(c.changes.size());
}

TEST(TextComparison, AModelAgainstItselfChangesNothing) {
  const Analysed a = analyse(test::minilm_checkpoint(), kText);
  const TextComparison c = compare_texts(a.view(), a.view());
  ASSERT_EQ(c.changes.size(), 72u);
  EXPECT_TRUE(c.alignment.identical);
  for (const HeadChange& h : c.changes) {
    EXPECT_NEAR(h.cka, 1.0, 1e-6);  // the products are float32 (linear_cka.h)
    EXPECT_NEAR(*h.attention_cosine, 1.0, 1e-9);
    EXPECT_EQ(*h.attention_max_difference, 0.0);
    EXPECT_EQ(*h.similarity_relative_change, 0.0);
    if (h.jaccard) EXPECT_EQ(*h.jaccard, 1.0);
    EXPECT_EQ(h.stats.count, 0);
    if (h.stats.repeat_share) EXPECT_EQ(*h.stats.repeat_share, 0.0);
    if (h.stats.same_anchor) EXPECT_TRUE(*h.stats.same_anchor);
  }
  for (const std::vector<int>& layer : c.matching)
    EXPECT_EQ(layer, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  for (const ComparedMatrix m : {ComparedMatrix::Attention, ComparedMatrix::Similarity, ComparedMatrix::Cosine})
    EXPECT_EQ(difference_map(a.view(), a.view(), m, 5, 3).abs().max().item<float>(), 0.0f);
}

TEST(TextComparison, TheMatchingFindsHeadsPermutedInTheWeights) {
  std::vector<std::vector<int>> permutation;
  for (int l = 0; l < 6; ++l) {  // a different shuffle per layer
    std::vector<int> order{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    std::rotate(order.begin(), order.begin() + 1 + l, order.end());
    std::swap(order[0], order[11 - l]);
    permutation.push_back(order);
  }
  const test::TempDir dir;
  test::write_modified_checkpoint(test::minilm_dir(), dir / "permuted", test::permute_heads(permutation, 12));
  const auto permuted = Checkpoint::load(dir / "permuted", test::test_device());
  const Analysed a = analyse(test::minilm_checkpoint(), kText), b = analyse(*permuted, kText);
  EXPECT_TRUE(at::allclose(a.run.captures.hidden_states[6], b.run.captures.hidden_states[6], 1e-4, 1e-5))
      << "the permuted copy computes something else";
  const TextComparison c = compare_texts(a.view(), b.view());
  for (int l = 0; l < 6; ++l)
    for (int j = 0; j < 12; ++j) {
      const int h = permutation[static_cast<size_t>(l)][static_cast<size_t>(j)];  // B's head j is A's head h
      EXPECT_EQ(c.matching[static_cast<size_t>(l)][static_cast<size_t>(h)], j) << "layer " << l << " head " << h;
      EXPECT_NEAR(c.layer_cka[l][h][j].item<double>(), 1.0, 1e-5);
    }
}

TEST(TextComparison, ChangesGrowWithTheNoiseInTheWeights) {
  const Analysed a = analyse(test::minilm_checkpoint(), kText);
  double previous_change = 0, previous_cosine = 1;
  const test::TempDir dir;
  for (const double noise : {0.02, 0.1, 0.5}) {
    const auto folder = dir / ("noise" + std::to_string(noise));
    test::write_modified_checkpoint(test::minilm_dir(), folder, test::add_noise(noise, 11));
    const Analysed b = analyse(*Checkpoint::load(folder, test::test_device()), kText);
    const TextComparison c = compare_texts(a.view(), b.view());
    double cosine = 0;
    for (const HeadChange& h : c.changes) cosine += *h.attention_cosine / 72.0;
    EXPECT_GT(mean_change(c), previous_change) << "noise " << noise;
    EXPECT_LT(cosine, previous_cosine) << "noise " << noise;
    previous_change = mean_change(c), previous_cosine = cosine;
  }
  EXPECT_GT(previous_change, 0.05);
}

TEST(TextComparison, TwoTextsCompareOnTheTokensTheyShare) {
  const Analysed a = analyse(test::minilm_checkpoint(), kText);
  const Analysed b = analyse(test::minilm_checkpoint(),
                             "The cat sat on the rug. The dog saw the cat, and the cat ran away from the dog.");
  const TextComparison c = compare_texts(a.view(), b.view());
  EXPECT_FALSE(c.alignment.identical);
  EXPECT_EQ(c.alignment.size(), a.run.encoding.size() - 1);  // all but "mat" / "rug"
  for (const HeadChange& h : c.changes) {
    EXPECT_FALSE(h.attention_cosine || h.jaccard || h.similarity_relative_change);
    EXPECT_TRUE(std::isnan(h.cka) || (h.cka > 0.0 && h.cka <= 1.0 + 1e-9));
  }
  EXPECT_GT(c.changes.front().cka, 0.5) << "one word changed; the first head should barely notice";
  EXPECT_THROW(difference_map(a.view(), b.view(), ComparedMatrix::Attention, 0, 0), Error);
}

TEST(TextComparison, AllHeadsCkaHoldsTheLayerBlocks) {
  const Analysed a = analyse(test::minilm_checkpoint(), kText);
  const TextComparison c = compare_texts(a.view(), a.view());
  const at::Tensor all = all_heads_cka(a.view(), a.view(), c.alignment);
  ASSERT_EQ(all.sizes(), (at::IntArrayRef{72, 72}));
  EXPECT_TRUE(at::allclose(all.slice(0, 24, 36).slice(1, 24, 36), c.layer_cka[2], 1e-9, 1e-12));
}

TEST(TextComparison, WithoutMatchingEachHeadMeetsItsOwnOnly) {
  const Analysed a = analyse(test::minilm_checkpoint(), kText);
  const Analysed b = analyse(test::minilm_checkpoint(), "The cat sat on the rug. The dog saw the cat.");
  const TextComparison matched = compare_texts(a.view(), b.view()), own = compare_texts(a.view(), b.view(), {false});
  EXPECT_TRUE(own.matching.empty());
  EXPECT_FALSE(own.layer_cka.defined());
  for (size_t k = 0; k < own.changes.size(); ++k) EXPECT_NEAR(own.changes[k].cka, matched.changes[k].cka, 1e-6) << k;
}

// Two long texts' runs (no map or S kept whole) compared a few rows at a time, their maps made again
// by their models and S from their head outputs, against the same runs with every map kept.
TEST(TextComparison, LongTextsCompareBlockByBlockAsWholeOnes) {
  const test::TempDir dir;
  const auto noisy = noisy_minilm(dir);
  const Checkpoint& minilm = test::minilm_checkpoint();
  const CheckpointRun long_text{.kept = KeptAttention::QueriesAndKeys};
  const Analysed a = analyse(minilm, kText), b = analyse(*noisy, kText), long_a = analyse(minilm, kText, long_text),
                 long_b = analyse(*noisy, kText, long_text);
  ASSERT_FALSE(long_a.run.captures.attention.defined() || long_a.analysis.similarity.similarity.defined());
  const auto remade = [](const Analysed& r, const Checkpoint& model) {
    ComparedRun v = r.view();
    v.attention_blocks = recomputed_attention_blocks(model.model(), r.run.captures);
    return v;
  };
  const auto near = [](double got, double want) {
    return std::abs(got - want) <= 1e-9 * std::max(1.0, std::abs(want));
  };
  const TextComparison whole = compare_texts(a.view(), b.view());
  const TextComparison blocks = compare_texts(remade(long_a, minilm), remade(long_b, *noisy), {.block_rows = 7});
  ASSERT_EQ(blocks.changes.size(), whole.changes.size());
  for (size_t k = 0; k < whole.changes.size(); ++k) {
    const HeadChange &got = blocks.changes[k], &want = whole.changes[k];
    EXPECT_NEAR(got.cka, want.cka, 1e-9) << "head " << k;
    EXPECT_TRUE(near(*got.attention_cosine, *want.attention_cosine)) << "head " << k;
    EXPECT_TRUE(near(*got.attention_max_difference, *want.attention_max_difference)) << "head " << k;
    EXPECT_TRUE(near(*got.similarity_relative_change, *want.similarity_relative_change)) << "head " << k;
    EXPECT_EQ(got.jaccard, want.jaccard) << "head " << k;
    EXPECT_EQ(got.stats.count, want.stats.count) << "head " << k;
  }
  EXPECT_EQ(blocks.matching, whole.matching);
  for (const ComparedMatrix m : {ComparedMatrix::Attention, ComparedMatrix::Similarity, ComparedMatrix::Cosine}) {
    const at::Tensor got = difference_map(remade(long_a, minilm), remade(long_b, *noisy), m, 4, 7),
                     want = difference_map(a.view(), b.view(), m, 4, 7);
    EXPECT_TRUE(at::allclose(got, want, 1e-6, 1e-6)) << static_cast<int>(m);
  }
  // Without the model that makes its maps again, a long run has no attention measures.
  const TextComparison without = compare_texts(long_a.view(), long_b.view());
  EXPECT_FALSE(without.changes.front().attention_cosine);
  EXPECT_TRUE(without.changes.front().similarity_relative_change);
  EXPECT_THROW(difference_map(long_a.view(), long_b.view(), ComparedMatrix::Attention, 0, 0), Error);
}

// Pairs of each head's cosine: a long text's shared pairs counted from the rows of its cosine (S's
// rows divided by the norms), as the whole runs' masks give them; one side long, the other whole too.
TEST(TextComparison, ALongTextsCosinePairsAreSharedAsWholeOnes) {
  const test::TempDir dir;
  const auto noisy = noisy_minilm(dir);
  const Checkpoint& minilm = test::minilm_checkpoint();
  AnalysisSettings cosine;
  cosine.pairs_from = PairInput::Cosine;
  const CheckpointRun long_text{.kept = KeptAttention::QueriesAndKeys};
  const Analysed a = analyse(minilm, kText, {}, cosine), b = analyse(*noisy, kText, {}, cosine),
                 long_a = analyse(minilm, kText, long_text, cosine), long_b = analyse(*noisy, kText, long_text, cosine);
  const TextComparison whole = compare_texts(a.view(), b.view());
  int64_t shared = 0;
  for (const TextComparison& blocks : {compare_texts(long_a.view(), long_b.view(), {.block_rows = 7}),
                                       compare_texts(a.view(), long_b.view(), {.block_rows = 7})}) {
    ASSERT_EQ(blocks.changes.size(), whole.changes.size());
    for (size_t k = 0; k < whole.changes.size(); ++k) {
      EXPECT_EQ(blocks.changes[k].jaccard, whole.changes[k].jaccard) << "head " << k;
      shared += whole.changes[k].jaccard.value_or(0) > 0;
    }
  }
  EXPECT_GT(shared, 0);
}

// Pairs of attention: a long text's masks (kept, since only the model finds them again) give the
// shared pairs, as the whole runs' do; they are not counted from S's rows.
TEST(TextComparison, ALongTextsPairsFromALensAreSharedAsWholeOnes) {
  const test::TempDir dir;
  const auto noisy = noisy_minilm(dir);
  const Checkpoint& minilm = test::minilm_checkpoint();
  AnalysisSettings attention;
  attention.pairs_from = PairInput::Attention;
  const auto long_analyse = [&](const Checkpoint& model, uint64_t mask_bytes = 0) {
    Analysed a{kText, model.run(kText, 128, {.kept = KeptAttention::QueriesAndKeys}), {}};
    const auto captures = std::make_shared<const TextCaptures>(a.run.captures);
    AnalysisRun run{.long_pair_mask_bytes = mask_bytes};
    find_long_text_pairs_in_lens(
        run, {[&model, captures] { return recomputed_attention_blocks(model.model(), *captures); }, captures},
        PairInput::Attention);
    a.analysis = analyze_text(a.run.encoding, a.run.captures, attention, run);
    return a;
  };
  const Analysed a = analyse(minilm, kText, {}, attention), b = analyse(*noisy, kText, {}, attention),
                 long_a = long_analyse(minilm), long_b = long_analyse(*noisy);
  const TextComparison whole = compare_texts(a.view(), b.view()),
                       blocks = compare_texts(long_a.view(), long_b.view(), {.block_rows = 7});
  ASSERT_EQ(blocks.changes.size(), whole.changes.size());
  int64_t shared = 0;
  for (size_t k = 0; k < whole.changes.size(); ++k) {
    EXPECT_EQ(blocks.changes[k].jaccard, whole.changes[k].jaccard) << "head " << k;
    shared += whole.changes[k].jaccard.value_or(0) > 0;
  }
  EXPECT_GT(shared, 0);
  // The long steps are reported, each layer's maps and each head's masks made again (6, and a
  // step a head with pairs on either side), and a stop asked between them is taken.
  std::vector<double> shares;
  const auto report = [&](std::string_view stage, double share) {
    EXPECT_EQ(stage, "compare");
    shares.push_back(share);
  };
  compare_texts(long_a.view(), long_b.view(), {.block_rows = 7, .progress = report});
  size_t with_pairs = 0;
  for (size_t k = 0; k < long_a.analysis.heads.size(); ++k)
    with_pairs += long_a.analysis.heads[k].pair_count > 0 || long_b.analysis.heads[k].pair_count > 0;
  EXPECT_GT(with_pairs, 60u);
  ASSERT_EQ(shares.size(), 6u + with_pairs);
  EXPECT_TRUE(std::is_sorted(shares.begin(), shares.end()));
  EXPECT_DOUBLE_EQ(shares.back(), 1.0);
  // Masks kept on both sides (as `compare` and, up to its budget, the explorer keep them): the
  // layers' steps alone, the same Jaccard indices.
  const Analysed kept_a = long_analyse(minilm, kEveryPairMask), kept_b = long_analyse(*noisy, kEveryPairMask);
  shares.clear();
  const TextComparison kept = compare_texts(kept_a.view(), kept_b.view(), {.block_rows = 7, .progress = report});
  EXPECT_EQ(shares.size(), 6u);
  for (size_t k = 0; k < whole.changes.size(); ++k)
    EXPECT_EQ(kept.changes[k].jaccard, whole.changes[k].jaccard) << "head " << k;
  int asked = 0;
  const auto ten_steps = [&] { return ++asked < 10; };
  EXPECT_THROW(compare_texts(long_a.view(), long_b.view(), {.block_rows = 7, .keep_going = ten_steps}), Cancelled);
  EXPECT_EQ(asked, 10);
  shares.clear();
  compare_texts(a.view(), b.view(), {.progress = report});
  EXPECT_TRUE(shares.empty()) << "nothing long in short texts' comparison";
}

TEST(TextComparison, RunsThatShareNoTokenAreRefused) {
  const Analysed a = analyse(test::minilm_checkpoint(), "alpha");
  Analysed b = analyse(test::minilm_checkpoint(), "omega");
  for (Token& t : b.run.encoding.tokens) t.text += "x", t.id += 1;  // not even [CLS] in common
  EXPECT_THROW(compare_texts(a.view(), b.view()), Error);
}

}  // namespace
}  // namespace attnscope
