// The jobs that make a long text's pictures beside the window (OverviewJob, RolloutJob,
// TiledFigureJob, PairValuesJob), each from the snapshot of a short text analysed as a long one,
// and the analysis worker's statistics as a long text's scan for pairs goes on.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/strongest_pairs.h"
#include "analysis_worker.h"
#include "figures/overview_thumbnails.h"
#include "figures/text_figures.h"
#include "overview_job.h"
#include "pair_values_job.h"
#include "rollout_job.h"
#include "support/analysis_so_far.h"
#include "support/head_role_scores.h"
#include "support/paths.h"
#include "support/tiny_bert.h"
#include "support/wait_for.h"
#include "tiled_figure_job.h"

namespace attnscope::ui {
namespace {

using test::wait_for;

// A short text analysed as a long one (its maps not kept) by a tiny BERT of 3 layers written to `dir`.
std::shared_ptr<const AnalysisSnapshot> long_text_snapshot(const std::filesystem::path& dir,
                                                           PairInput pairs_from = PairInput::Similarity) {
  test::write_tiny_bert(dir / "tiny", {.layers = 3});
  AnalysisWorker worker((dir / "tiny").string(), "cpu", "float32");
  AnalysisRequest asked{"the cat sat on the mat", {}, 0};
  asked.settings.pairs_from = pairs_from;
  asked.long_texts.maps_up_to = 4;
  const uint64_t serial = worker.submit(asked);
  if (!wait_for([&] { return worker.latest() && worker.latest()->serial == serial; })) return nullptr;
  return worker.latest_good();
}

// A long text's overview asked with options its run did not colour it with is made off the UI
// thread: the newest request wins, each atlas the one grid_atlas makes (rollout too, layer by
// layer), what cannot be made says why, and every step is reported for the window to draw.
TEST(OverviewJob, ColoursALongTextsOverviewAndTheNewestRequestWins) {
  const test::TempDir dir;
  const auto s = long_text_snapshot(dir.path());
  ASSERT_TRUE(s && !s->captures.attention.defined());
  std::atomic<int> notified{0};
  OverviewJob job([&] { ++notified; });
  FigureOptions rollout, similarity, rollout_of_norm;
  rollout.matrix = rollout_of_norm.matrix = MatrixKind::Rollout;
  similarity.matrix = MatrixKind::Similarity;
  rollout_of_norm.rollout_of_norm = true;
  const auto made = [&](const FigureOptions& o) {
    return wait_for([&] {
      const auto l = job.latest();
      return l && l->key == overview_request_key(s->serial, o);
    });
  };
  submit_overview(job, s, similarity);
  submit_overview(job, s, rollout);  // the newest: similarity is abandoned or replaced
  ASSERT_TRUE(made(rollout));
  EXPECT_TRUE(job.latest()->error.empty()) << job.latest()->error;
  EXPECT_EQ(job.latest()->value.rgba, grid_atlas(s->view(), rollout).rgba);
  EXPECT_EQ(job.latest()->value.rows, 3);
  EXPECT_GT(notified.load(), 0);
  EXPECT_GT(job.updates(), 0u);
  EXPECT_FALSE(job.fraction());
  submit_overview(job, s, similarity);
  ASSERT_TRUE(made(similarity));
  EXPECT_EQ(job.latest()->value.rgba, grid_atlas(s->view(), similarity).rgba);
  // The norm-based maps need value vectors this run did not capture: one line, no atlas.
  submit_overview(job, s, rollout_of_norm);
  ASSERT_TRUE(made(rollout_of_norm));
  EXPECT_FALSE(job.latest()->error.empty());
  EXPECT_TRUE(job.latest()->value.rgba.empty());
}

// A long text's rollouts for the Head and Layers views are made off the UI thread: the newest
// request wins, the ones made are long_text_rollouts', what cannot be made says why.
TEST(RolloutJob, MakesALongTextsRolloutsAndTheNewestRequestWins) {
  const test::TempDir dir;
  const auto s = long_text_snapshot(dir.path());
  ASSERT_TRUE(s && !s->captures.attention.defined());
  std::atomic<int> notified{0};
  RolloutJob job([&] { ++notified; });
  const auto made = [&](const std::vector<int>& layers, bool of_norm) {
    return wait_for([&] {
      const auto l = job.latest();
      return l && l->key == rollout_request_key(s->serial, layers, of_norm);
    });
  };
  submit_rollouts(job, s, {2}, false);
  submit_rollouts(job, s, {0, 1}, false);  // the newest: layer 2's is abandoned or replaced
  ASSERT_TRUE(made({0, 1}, false));
  ASSERT_TRUE(job.latest()->error.empty()) << job.latest()->error;
  ASSERT_TRUE(job.latest()->value);
  const std::vector<KeptRollout>& kept = *job.latest()->value;
  ASSERT_EQ(kept.size(), size_t{2});
  for (int l : {0, 1}) {
    EXPECT_EQ(kept[l].layer, l);
    EXPECT_TRUE(at::equal(kept[l].matrix, long_text_rollout(s->view(), l, false).matrix)) << "layer " << l;
  }
  EXPECT_NE(rollout_request_key(s->serial, {0, 1}, false), rollout_request_key(s->serial, {0, 1}, true));
  EXPECT_NE(rollout_request_key(s->serial, {0, 1}, false), rollout_request_key(s->serial, {1}, false));
  EXPECT_GT(notified.load(), 0);
  EXPECT_FALSE(job.fraction());
  // The norm-based maps need value vectors this run did not capture: one line, no rollout.
  submit_rollouts(job, s, {1}, true);
  ASSERT_TRUE(made({1}, true));
  EXPECT_FALSE(job.latest()->error.empty());
  EXPECT_FALSE(job.latest()->value);
}

// A long text's figure drawn from tiles is built off the UI thread with the top level of each map
// made: the newest request wins, each top level the one a pyramid of the same map makes in place
// (Fig. 5's maps too), the share done reported, and a figure that cannot be built says why.
TEST(TiledFigureJob, MakesALongTextsMapsTopLevelsAndTheNewestRequestWins) {
  const test::TempDir dir;
  const auto s = long_text_snapshot(dir.path());
  ASSERT_TRUE(s && !s->captures.attention.defined());
  std::atomic<int> notified{0};
  TiledFigureJob job([&] { ++notified; });
  const auto made = [&](const std::string& key) {
    return wait_for([&] { return job.latest() && job.latest()->key == key; });
  };
  FigureOptions head;
  head.layer = 2;
  head.head = 1;
  submit_tiled_figure(job, "head 0", s, nullptr, tiled_head_figure, FigureOptions{}, {});
  submit_tiled_figure(job, "head 2,1", s, nullptr, tiled_head_figure, head, {});  // the newest
  ASSERT_TRUE(made("head 2,1"));
  ASSERT_TRUE(job.latest()->error.empty()) << job.latest()->error;
  for (const auto& [builder, options] : {std::pair{&tiled_head_figure, head}, {&tiled_figure5, head}}) {
    submit_tiled_figure(job, "again", s, nullptr, builder, options, {});
    ASSERT_TRUE(made("again"));
    const auto taken = job.take_latest();
    ASSERT_TRUE(taken->error.empty()) << taken->error;
    const MadeTiledFigure& figure = *taken->value;
    TiledFigure in_place = builder(s->view(), options);
    ASSERT_EQ(figure.maps.size(), in_place.tiled.size());
    ASSERT_FALSE(figure.maps.empty());
    for (size_t k = 0; k < figure.maps.size(); ++k) {
      EXPECT_EQ(figure.maps[k].first, in_place.tiled[k].panel);
      MapPyramid pyramid(std::move(in_place.tiled[k].source));
      while (!pyramid.make_top(std::chrono::hours(1))) {
      }
      EXPECT_TRUE(figure.maps[k].second.top_done());
      const std::vector<float>&made_top = figure.maps[k].second.top(), &top = pyramid.top();
      ASSERT_EQ(made_top.size(), top.size());
      for (size_t c = 0; c < top.size(); ++c)  // Fig. 5's empty blocks are NaN
        ASSERT_TRUE(made_top[c] == top[c] || (std::isnan(made_top[c]) && std::isnan(top[c])))
            << "map " << k << " cell " << c;
      EXPECT_EQ(figure.maps[k].second.color_scale().hi, pyramid.color_scale().hi);
    }
    EXPECT_EQ(figure.figure.panels.size(), in_place.figure.panels.size());
    EXPECT_EQ(figure.snapshot, s);
  }
  EXPECT_GT(notified.load(), 0);
  EXPECT_FALSE(job.fraction());
  // A rollout the snapshot was not given: refused in one line, no figure.
  FigureOptions rollout = head;
  rollout.matrix = MatrixKind::Rollout;
  submit_tiled_figure(job, "rollout", s, nullptr, tiled_head_figure, rollout, {});
  ASSERT_TRUE(made("rollout"));
  EXPECT_FALSE(job.latest()->error.empty());
  EXPECT_FALSE(job.latest()->value);
}

// The values of a long text's pairs from a lens are made off the UI thread: from the head's map
// made again, or (rollout's) from the rollout the Pairs view's map made, the same bits either way
// as that map made symmetric whole; the newest request wins.
TEST(PairValuesJob, ValuesALongTextsLensPairsAsHeadPairsDoes) {
  for (const PairInput input : {PairInput::Attention, PairInput::Rollout}) {
    SCOPED_TRACE(pair_input_name(input));
    const test::TempDir dir;
    const auto s = long_text_snapshot(dir.path(), input);
    ASSERT_TRUE(s && !s->captures.attention.defined() && s->analysis.pair_map);
    const TextAnalysis& a = s->analysis;
    int64_t layer = 0, head = 0;  // a head with pairs
    for (int64_t k = 0; k < a.num_layers * a.num_heads && a.head(layer, head).pair_count == 0; ++k)
      std::tie(layer, head) = std::make_pair((k + 1) / a.num_heads, (k + 1) % a.num_heads);
    ASSERT_GT(a.head(layer, head).pair_count, 0);
    std::atomic<int> notified{0};
    PairValuesJob job([&] { ++notified; });
    const auto made = [&](int64_t l, int64_t h) {
      return wait_for([&] {
        const auto m = job.latest();
        return m && m->key == pair_values_request_key(s->serial, l, h);
      });
    };
    const at::Tensor rollout = input == PairInput::Rollout
                                   ? long_text_rollout(s->view(), static_cast<int>(layer), false).matrix
                                   : at::Tensor();
    submit_pair_values(job, s, (layer + 1) % a.num_layers, head, 3);
    submit_pair_values(job, s, layer, head, 3, rollout);  // the newest
    ASSERT_TRUE(made(layer, head));
    ASSERT_TRUE(job.latest()->error.empty()) << job.latest()->error;
    const std::vector<TokenPair>& listed = *job.latest()->value;
    const std::vector<TokenPair> expected = pairs_without_values(a, layer, head, 3);
    // (M + M^T) / 2 made whole, over the scale, as a short text's pair matrix is read.
    const at::Tensor symmetric = symmetric_pair_map(a.pair_map(layer, head));
    ASSERT_EQ(listed.size(), std::min<size_t>(3, static_cast<size_t>(a.head(layer, head).pair_count)));
    ASSERT_EQ(listed.size(), expected.size());
    for (size_t p = 0; p < listed.size(); ++p) {
      const int i = expected[p].i, j = expected[p].j;
      EXPECT_EQ(std::make_tuple(listed[p].i, listed[p].j), std::make_tuple(i, j));
      EXPECT_EQ(listed[p].value, symmetric[i][j].item<float>() / a.head(layer, head).scale) << "pair " << p;
    }
    EXPECT_GT(notified.load(), 0);
    // A map of another shape is refused in one line, not read past its end.
    submit_pair_values(job, s, layer, (head + 1) % a.num_heads, 3, at::zeros({2, 2}));
    ASSERT_TRUE(made(layer, (head + 1) % a.num_heads));
    EXPECT_NE(job.latest()->error.find("whole map"), std::string::npos) << job.latest()->error;
  }
}

// A long text's head's strongest pairs are found off the UI thread as strongest_head_pairs finds
// them (from the rollout the view made, for rollout's), the share walked reported; its key is not
// the values' of the same head.
TEST(PairValuesJob, FindsALongTextsStrongestPairs) {
  for (const PairInput input : {PairInput::Similarity, PairInput::Rollout}) {
    SCOPED_TRACE(pair_input_name(input));
    const test::TempDir dir;
    const auto s = long_text_snapshot(dir.path(), input);
    ASSERT_TRUE(s);
    const TextAnalysis& a = s->analysis;
    const int64_t layer = a.num_layers - 1, head = 0;
    ASSERT_GT(a.head(layer, head).pair_count, 2);
    const at::Tensor rollout = input == PairInput::Rollout
                                   ? long_text_rollout(s->view(), static_cast<int>(layer), false).matrix
                                   : at::Tensor();
    std::atomic<int> notified{0};
    PairValuesJob job([&] { ++notified; });
    EXPECT_NE(strongest_pairs_request_key(s->serial, layer, head), pair_values_request_key(s->serial, layer, head));
    submit_strongest_pairs(job, s, layer, head, 2, rollout);
    ASSERT_TRUE(wait_for([&] {
      const auto m = job.latest();
      return m && m->key == strongest_pairs_request_key(s->serial, layer, head);
    }));
    ASSERT_TRUE(job.latest()->error.empty()) << job.latest()->error;
    const std::vector<TokenPair>& found = *job.latest()->value;
    const std::vector<TokenPair> expected = strongest_head_pairs(a, layer, head, 2, {.map = rollout});
    ASSERT_EQ(found.size(), 2u);
    for (size_t p = 0; p < found.size(); ++p)
      EXPECT_TRUE(found[p].i == expected[p].i && found[p].j == expected[p].j && found[p].value == expected[p].value);
    EXPECT_GE(found[0].value, found[1].value);
    EXPECT_GT(notified.load(), 1) << "its progress, then its result";
  }
}

// A long text's scan for pairs hands the window its analysis so far (RunProgress::so_far) before
// the run ends: the heads scanned with the statistics the finished analysis gives them.
TEST(AnalysisWorker, ALongTextsStatisticsComeAsItsScanGoesOn) {
  const test::TempDir dir;
  test::write_tiny_bert(dir / "tiny", {.layers = 3});
  std::mutex seen_mutex;
  std::vector<std::shared_ptr<const AnalysisSnapshot>> seen;
  std::atomic<AnalysisWorker*> self{nullptr};
  AnalysisWorker worker((dir / "tiny").string(), "cpu", "float32", [&] {
    const AnalysisWorker* w = self.load();
    if (!w) return;
    const auto so_far = w->progress().so_far;
    std::lock_guard lock(seen_mutex);
    if (so_far && (seen.empty() || seen.back() != so_far)) seen.push_back(so_far);
  });
  self = &worker;
  AnalysisRequest asked{"the cat sat on the mat. the dog sat on the log.", {}, 0};
  asked.long_texts.maps_up_to = 4;
  const uint64_t serial = worker.submit(asked);
  ASSERT_TRUE(wait_for([&] { return worker.latest() && worker.latest()->serial == serial; }));
  const auto done = worker.latest_good();
  ASSERT_TRUE(done && done->serial == serial && !done->captures.attention.defined());
  std::lock_guard lock(seen_mutex);
  std::vector<TextAnalysis> analyses;
  for (const auto& s : seen) {
    EXPECT_EQ(s->serial, serial);
    EXPECT_EQ(s->encoding.ids(), done->encoding.ids());
    analyses.push_back(s->analysis);
  }
  test::expect_analyses_so_far(analyses, done->analysis);
}

// A decoder's long text typed on at its end with the overview of attention shown: its forward
// makes the blocks from the last run's last block on alone and the overview is pooled on from where
// that run's stood, the thumbnails those made from the finished text's maps. After a run that
// pooled no overview (another view shown), the next that does pools every block. The head roles,
// from the forward's blocks (the rows before its first taken from the run before's), are those of
// the maps made again within their rounding.
TEST(AnalysisWorker, ADecodersLongTextTypedOnAtItsEndPoolsItsOverviewOnFromTheRunBefore) {
  const auto model = test::real_model_file("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf");
  if (!std::filesystem::exists(model)) return;  // real_model_file said how to fetch it
  AnalysisWorker worker(model.string(), "cpu", "float32");
  std::string text = "The cat sat on the mat, and the dog watched it from the door.";
  for (int k = 0; k < 3; ++k) text += " " + text;
  text += " It sat.";  // past 128 tokens: cells of 3 tokens from the first run to the last
  AnalysisRequest asked{text, {}, 256};
  asked.grid = FigureOptions{};
  asked.long_texts.maps_up_to = 4;
  asked.block_rows = 32;
  asked.head_roles = true;
  const auto answer = [&](const std::string& typed, bool overview) {
    asked.text = typed;
    asked.grid = overview ? std::optional<FigureOptions>(FigureOptions{}) : std::nullopt;
    const uint64_t serial = worker.submit(asked);
    EXPECT_TRUE(wait_for([&] { return worker.latest() && worker.latest()->serial == serial; }));
    const auto s = worker.latest();
    EXPECT_TRUE(s && s->error.empty() && !s->captures.attention.defined()) << (s ? s->error : "no answer");
    if (s && overview) EXPECT_EQ(s->grid.rgba, grid_atlas(s->view(), *s->grid_options).rgba);
    if (!s || !s->roles) {
      ADD_FAILURE() << "no head roles";
      return int64_t{-1};
    }
    HeadRoleScores roles = *s->roles;
    take_induction(roles, HeadRoleScores(roles.layers(), roles.heads()));  // the probe's, apart
    test::expect_scores_near(roles, text_role_scores(s->checkpoint->model(), s->captures, s->encoding.ids()), 1e-6);
    return s->blocks_from;
  };
  EXPECT_EQ(answer(text, true), 0) << "nothing before";
  EXPECT_GT(answer(text += " It purred.", true), 0);
  EXPECT_GT(answer(text += " The dog sat.", false), 0) << "nothing pools the blocks";
  EXPECT_EQ(answer(text += " Then it slept.", true), 0) << "the run before pooled no overview";
  EXPECT_GT(answer(text += " It woke.", true), 0);
}

}  // namespace
}  // namespace attnscope::ui
