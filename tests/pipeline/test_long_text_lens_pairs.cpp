// A long text's pairs from a lens (pipeline/long_text_lens_pairs.h): each head's map made whole
// again from the kept queries and keys, one head at a time, gives the pairs the same text finds in
// its kept maps: to the bit for attention and the norm-based maps, as for rollout (made in blocks),
// on the real MiniLM at 512 tokens, and on a tiny decoder from blocks over the keys their rows
// see; their masks, not kept unless asked (rollout's always, shared by
// a layer's heads), made again the same; listed with the same values, the strongest those of
// that list sorted (strongest_pairs.h) (rollout's, which take
// minutes on a long text, also without them), each head's map made once for its mask however often
// and from however many threads it is asked, one map at a time; through the pipeline on a short
// text forced to the long path; refused in one line past the size it may hold.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <tuple>

#include "analysis/text_analysis.h"
#include "analysis/lens_maps.h"
#include "analysis/pair_mask_budget.h"
#include "base/error.h"
#include "pipeline/long_text_lens_pairs.h"
#include "pipeline/text_pipeline.h"
#include "support/analysis_so_far.h"
#include "support/long_text_views.h"
#include "support/minilm.h"
#include "support/paths.h"
#include "support/strongest_pairs_check.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

LensMapsOf lens_maps_of(const TextCaptures& captures) {
  const auto shared = std::make_shared<const TextCaptures>(captures);
  return {[shared] { return recomputed_attention_blocks(test::minilm_checkpoint().model(), *shared); }, shared};
}

void expect_same_pairs(const TextAnalysis& long_text, const TextAnalysis& whole) {
  ASSERT_EQ(long_text.heads.size(), whole.heads.size());
  int64_t pairs = 0;
  for (size_t k = 0; k < whole.heads.size(); ++k) {
    const HeadAnalysis &a = long_text.heads[k], &b = whole.heads[k];
    EXPECT_EQ(a.scale, b.scale) << "head " << k;
    EXPECT_EQ(a.pair_count, b.pair_count) << "head " << k;
    // Made again from the head's map where not kept (attention's, the norm-based maps').
    EXPECT_EQ(long_text.pair_mask(static_cast<int64_t>(k) / whole.num_heads, static_cast<int64_t>(k) % whole.num_heads)
                  .bits(),
              b.pairs.bits())
        << "head " << k;
    EXPECT_EQ(a.stats.count, b.stats.count) << "head " << k;
    EXPECT_EQ(a.stats.anchor_index, b.stats.anchor_index) << "head " << k;
    EXPECT_EQ(a.stats.same_sentence_share, b.stats.same_sentence_share) << "head " << k;
    pairs += b.pair_count;
  }
  EXPECT_GT(pairs, 0);
  for (size_t l = 0; l < whole.layers.size(); ++l)
    EXPECT_EQ(long_text.layers[l].distance_histogram, whole.layers[l].distance_histogram) << "layer " << l;
  for (const int64_t layer : {int64_t{0}, whole.num_layers - 1}) {
    const auto listed = head_pairs(long_text, layer, 1), expected = head_pairs(whole, layer, 1);
    ASSERT_EQ(listed.size(), expected.size());
    for (size_t p = 0; p < listed.size(); ++p) {
      EXPECT_EQ(std::make_pair(listed[p].i, listed[p].j), std::make_pair(expected[p].i, expected[p].j));
      EXPECT_EQ(listed[p].value, expected[p].value);
    }
    test::expect_strongest_pairs_are_the_sorted_list(long_text, layer, 1);
    test::expect_strongest_pairs_are_the_sorted_list(whole, layer, 1);
  }
}

TEST(LongTextLensPairs, EqualThePairsOfTheWholeMaps) {
  const test::BothPaths& b = test::both_paths();
  ASSERT_FALSE(b.long_text.captures.attention.defined());
  for (const PairInput input : {PairInput::Attention, PairInput::Norm, PairInput::Rollout}) {
    SCOPED_TRACE(pair_input_name(input));
    AnalysisSettings settings;
    settings.pairs_from = input;
    std::vector<TextAnalysis> so_far;  // handed on head by head (rollout's layer by layer)
    AnalysisRun run{.so_far = [&](const TextAnalysis& a) { so_far.push_back(a); }};
    find_long_text_pairs_in_lens(run, lens_maps_of(b.long_text.captures), input);
    EXPECT_FALSE(run.pair_map_rows) << "an encoder's maps are not causal";
    const TextAnalysis long_text = analyze_text(b.encoding, b.long_text.captures, settings, run);
    EXPECT_FALSE(long_text.pair_matrix.defined());
    const TextAnalysis whole = analyze_text(b.encoding, b.maps.captures, settings);
    expect_same_pairs(long_text, whole);
    // Rollout's masks are kept (made again, the rollout takes minutes), one a layer, shared by its
    // heads; attention's and the norm-based maps' are not, as S's are not.
    const bool rollout = input == PairInput::Rollout;
    for (int64_t l = 0; l < whole.num_layers; ++l)
      for (int64_t h = 0; h < whole.num_heads; ++h) {
        const PairMask& kept = long_text.head(l, h).pairs;
        EXPECT_EQ(kept.tokens(), rollout ? whole.length : 0) << l << "," << h;
        if (rollout && h > 0 && long_text.head(l, 0).pair_count > 0)
          EXPECT_TRUE(kept.shares_bytes_with(long_text.head(l, 0).pairs)) << l << "," << h;
      }
    test::expect_analyses_so_far(so_far, long_text);
    EXPECT_EQ(static_cast<int64_t>(so_far.size()),
              input == PairInput::Rollout ? whole.num_layers : whole.num_layers * whole.num_heads);
    // Rollout's values are what a window does not wait for: its pairs listed without them.
    EXPECT_EQ(pair_values_are_slow(long_text), input == PairInput::Rollout);
    EXPECT_FALSE(pair_values_are_slow(whole));
    const int64_t last = whole.num_layers - 1;
    const auto unvalued = pairs_without_values(long_text, last, 2, 5), valued = head_pairs(whole, last, 2, 5);
    ASSERT_EQ(unvalued.size(), valued.size());
    for (size_t p = 0; p < valued.size(); ++p) {
      EXPECT_EQ(std::make_pair(unvalued[p].i, unvalued[p].j), std::make_pair(valued[p].i, valued[p].j));
      EXPECT_TRUE(std::isnan(unvalued[p].value));
    }
  }
}

// A decoder past its window and past blocks of 64 rows (a tiny Gemma 3 at 230 tokens), its maps
// made again in blocks over the keys their rows may see: the pairs of its attention and of its
// norm-based maps equal those of its maps kept, masks (kept or made again) and values to the bit,
// found, made again and valued from those blocks (its maps are causal), no head's map made whole.
TEST(LongTextLensPairs, ADecodersPairsFromBlocksOverTheKeysTheyHoldAreThoseOfItsMaps) {
  const test::DecoderBothPaths& b = test::decoder_both_paths();
  const auto captures = std::make_shared<const TextCaptures>(b.long_text.captures);
  const LensMapsOf of{[model = b.model, captures] { return recomputed_attention_blocks(*model, *captures); }, captures,
                      64};  // blocks that hold some keys alone: a local layer's past its first
  for (const PairInput input : {PairInput::Attention, PairInput::Norm})
    for (const uint64_t mask_bytes : {uint64_t{0}, kEveryPairMask}) {
      SCOPED_TRACE(std::string(pair_input_name(input)) + (mask_bytes ? ", masks kept" : ", masks made again"));
      AnalysisSettings settings;
      settings.pairs_from = input;
      AnalysisRun run{.long_pair_mask_bytes = mask_bytes};
      find_long_text_pairs_in_lens(run, of, input);
      ASSERT_TRUE(run.pair_map_rows);
      int whole_maps = 0;
      run.pair_map = [&, map = run.pair_map](int64_t layer, int64_t head) {
        ++whole_maps;
        return map(layer, head);
      };
      const TextAnalysis long_text = analyze_text(b.encoding, b.long_text.captures, settings, run);
      EXPECT_EQ(long_text.head(1, 0).pairs.tokens(), mask_bytes ? long_text.length : 0);
      expect_same_pairs(long_text, analyze_text(b.encoding, b.maps.captures, settings));
      EXPECT_EQ(whole_maps, 0);
    }
  for (const PairInput input : {PairInput::Attention, PairInput::Norm})
    EXPECT_TRUE(at::equal(long_text_lens_map(of, input, 3, 1), input == PairInput::Norm
                                                                   ? head_norm_maps(b.maps.captures, 3)[1]
                                                                   : b.maps.captures.attention[3][1]));
}

// A view asks for one head's mask from several threads (Fig. 9's text, the outlines, the table's
// values): the head's map is made once for its mask, and never two maps at once by these callers.
TEST(LongTextLensPairs, AHeadsMaskIsMadeOnceAndOneMapAtATime) {
  const test::BothPaths& b = test::both_paths();
  AnalysisSettings settings;
  settings.pairs_from = PairInput::Norm;
  AnalysisRun run;
  find_long_text_pairs_in_lens(run, lens_maps_of(b.long_text.captures), PairInput::Norm);
  TextAnalysis a = analyze_text(b.encoding, b.long_text.captures, settings, run);
  const TextAnalysis whole = analyze_text(b.encoding, b.maps.captures, settings);
  ASSERT_TRUE(a.made_masks);
  std::atomic<int> made{0}, making{0}, most_at_once{0};
  a.pair_map = [&, map = a.pair_map](int64_t layer, int64_t head) {
    const int now = ++making;
    most_at_once = std::max(most_at_once.load(), now);
    at::Tensor m = map(layer, head);
    --making;
    ++made;
    return m;
  };
  const int64_t layer = 2;
  EXPECT_FALSE(a.pair_mask_at_hand(layer, 0)) << "not kept, not made yet";
  std::vector<std::thread> views;
  for (int k = 0; k < 4; ++k)
    views.emplace_back([&] { EXPECT_EQ(a.pair_mask(layer, 0).bits(), whole.head(layer, 0).pairs.bits()); });
  for (std::thread& t : views) t.join();
  EXPECT_EQ(made.load(), 1);
  const std::optional<PairMask> at_hand = a.pair_mask_at_hand(layer, 0);
  ASSERT_TRUE(at_hand);
  EXPECT_EQ(at_hand->bits(), whole.head(layer, 0).pairs.bits());
  EXPECT_EQ(a.pair_mask(layer, 0, {3, 40}).bits(), whole.pair_mask(layer, 0, {3, 40}).bits());
  EXPECT_EQ(made.load(), 1) << "rows of a head made already";
  // Values need the map itself; a head listed with them first has its mask kept from that map.
  views.clear();
  views.emplace_back([&] { EXPECT_EQ(head_pairs(a, layer, 1).size(), head_pairs(whole, layer, 1).size()); });
  views.emplace_back([&] { EXPECT_EQ(head_pairs(a, layer, 0).size(), head_pairs(whole, layer, 0).size()); });
  views.emplace_back([&] { a.pair_mask(layer, 3); });
  for (std::thread& t : views) t.join();
  EXPECT_EQ(made.load(), 4);
  EXPECT_EQ(most_at_once.load(), 1);
  ASSERT_TRUE(a.pair_mask_at_hand(layer, 1));
  EXPECT_EQ(a.pair_mask_at_hand(layer, 1)->bits(), whole.head(layer, 1).pairs.bits());
  a.pair_mask(layer, 1);
  EXPECT_EQ(made.load(), 4);
  EXPECT_FALSE(a.pair_mask_at_hand(layer + 1, 1));
  // A head without pairs has its empty mask at hand, nothing made.
  TextAnalysis none = a;
  none.heads[static_cast<size_t>(none.num_heads + 5)].pair_count = 0;
  ASSERT_TRUE(none.pair_mask_at_hand(1, 5));
  EXPECT_EQ(none.pair_mask_at_hand(1, 5)->count(), 0);
  EXPECT_EQ(none.pair_mask(1, 5, {2, 9}).count(), 0);
  EXPECT_EQ(made.load(), 4);
}

// The last masks made are kept up to a size, the newest always.
TEST(LongTextLensPairs, TheLastMasksMadeAreKeptUpToASize) {
  const test::BothPaths& b = test::both_paths();
  const TextAnalysis& whole = b.maps.analysis;
  std::vector<PairMask> masks;
  for (int64_t h = 0; h < whole.num_heads; ++h)
    if (whole.head(0, h).pairs.stored_bytes() > 0) masks.push_back(whole.head(0, h).pairs);
  ASSERT_GE(masks.size(), 3u);
  const size_t two = masks[1].stored_bytes() + masks[2].stored_bytes();
  MadePairMasks made(two);
  for (size_t k = 0; k < 3; ++k) made.keep(0, static_cast<int64_t>(k), masks[k]);
  EXPECT_FALSE(made.find(0, 0)) << "the oldest let go";
  ASSERT_TRUE(made.find(0, 1));
  EXPECT_EQ(made.find(0, 1)->bits(), masks[1].bits());
  EXPECT_TRUE(made.find(0, 2));
  MadePairMasks tiny(1);
  tiny.keep(1, 1, masks[0]);
  tiny.keep(1, 2, masks[1]);
  EXPECT_FALSE(tiny.find(1, 1));
  EXPECT_TRUE(tiny.find(1, 2)) << "the newest kept whatever its size";
}

// Without the means of making the maps again, the norm-based maps without the value vectors'
// norms, a stop asked for between heads, and a text too long for a head's whole map: one line each.
TEST(LongTextLensPairs, SayWhatTheyLackAndStopWhenAsked) {
  const test::BothPaths& b = test::both_paths();
  AnalysisSettings settings;
  settings.pairs_from = PairInput::Attention;
  EXPECT_THROW(analyze_text(b.encoding, b.long_text.captures, settings), Error);
  TextCaptures without_norms = b.long_text.captures;
  without_norms.value_norms = at::Tensor();
  const TextFacts& facts = b.maps.analysis.facts;
  EXPECT_THROW(long_text_lens_pairs(lens_maps_of(without_norms), PairInput::Norm, facts, 0.3), Error);
  EXPECT_THROW(long_text_lens_pairs({}, PairInput::Attention, facts, 0.3), Error);
  for (const PairInput input : {PairInput::Attention, PairInput::Rollout})
    EXPECT_THROW(long_text_lens_pairs(lens_maps_of(b.long_text.captures), input, facts, 0.3,
                                      {.keep_going = [] { return false; }}),
                 Cancelled);
  EXPECT_NO_THROW(require_long_text_lens_pairs_fit(PairInput::Attention, 16384));
  EXPECT_NO_THROW(require_long_text_lens_pairs_fit(PairInput::Rollout, 16384));
  for (const auto& [input, n, needed] :
       {std::tuple{PairInput::Attention, 32768, "4.3 GB"}, std::tuple{PairInput::Rollout, 23000, "4.2 GB"}})
    try {
      require_long_text_lens_pairs_fit(input, n);
      ADD_FAILURE() << n << " tokens' maps whole were not refused";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needed), std::string::npos) << e.what();
    }
  // A decoder's attention and norm-based maps are never whole, their masks are held: n^2 / 8 bytes at most.
  EXPECT_NO_THROW(require_long_text_lens_pairs_fit(PairInput::Attention, 32768, AttentionDirection::Causal));
  EXPECT_THROW(require_long_text_lens_pairs_fit(PairInput::Rollout, 32768, AttentionDirection::Causal), Error);
  try {
    require_long_text_lens_pairs_fit(PairInput::Norm, 200000, AttentionDirection::Causal);
    ADD_FAILURE() << "200,000 tokens' masks were not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mask"), std::string::npos) << e.what();
  }
  EXPECT_EQ(long_text_lens_pairs_bytes(PairInput::Norm, 100, AttentionDirection::Causal), 100 * 100 / 8);
  EXPECT_EQ(long_text_lens_pairs_bytes(PairInput::Norm, 100), 100 * 100 * 4);
  EXPECT_EQ(long_text_lens_pairs_bytes(PairInput::Rollout, 100), 2 * 100 * 100 * 4);
}

// Through the pipeline (as `analyze` and the explorer run it), and its analysis half on a run
// before: a text forced to the long path finds the pairs of every lens it finds with its maps.
TEST(LongTextLensPairs, ThePipelineFindsThemOnALongText) {
  TextPipeline pipeline(test::minilm_dir().string(), test::test_device());
  const std::string text = "The cat sat on the mat. Then it slept; the dog, however, barked at the door all night.";
  for (const PairInput input : {PairInput::Attention, PairInput::Norm, PairInput::Rollout}) {
    SCOPED_TRACE(pair_input_name(input));
    TextPipelineOptions o;
    o.settings.pairs_from = input;
    const TextPipelineResult whole = pipeline.run(text, o);
    o.long_texts = CapturePlan{.maps_up_to = 4};
    const TextPipelineResult long_text = pipeline.run(text, o);
    ASSERT_FALSE(long_text.captures.attention.defined());
    expect_same_pairs(long_text.analysis, whole.analysis);
    o.long_pair_mask_bytes = kEveryPairMask;  // as `analyze` asks when it writes a result file
    const TextPipelineResult kept = pipeline.run(text, o);
    for (size_t k = 0; k < whole.analysis.heads.size(); ++k)
      EXPECT_EQ(kept.analysis.heads[k].pairs.bits(), whole.analysis.heads[k].pairs.bits()) << "head " << k;
    // Up to a budget (the explorer's): attention's and the norm-based maps' first two heads kept,
    // the others made again when asked; rollout's all (each layer's one mask, made in minutes).
    o.long_pair_mask_bytes = kept.analysis.heads[0].pairs.stored_bytes() + kept.analysis.heads[1].pairs.stored_bytes();
    const TextPipelineResult some = pipeline.run(text, o);
    const int64_t H = whole.analysis.num_heads;
    for (size_t k = 0; k < whole.analysis.heads.size(); ++k) {
      const bool all = input == PairInput::Rollout;
      EXPECT_EQ(some.analysis.heads[k].pairs.tokens(), all || k < 2 ? whole.analysis.length : 0) << "head " << k;
      const int64_t l = static_cast<int64_t>(k) / H, h = static_cast<int64_t>(k) % H;
      EXPECT_EQ(some.analysis.pair_mask(l, h).bits(), whole.analysis.heads[k].pairs.bits()) << "head " << k;
    }
    o.long_pair_mask_bytes = 0;
    TextPipelineOptions of_s = o;
    of_s.settings.pairs_from = PairInput::Similarity;
    of_s.lens_captures = true;  // the norm-based maps' value norms, which pairs of S do not take
    const TextPipelineResult first = pipeline.run(text, of_s);
    expect_same_pairs(pipeline.analyze(first.encoding, first.captures, o).analysis, whole.analysis);
  }
}

}  // namespace
}  // namespace attnscope
