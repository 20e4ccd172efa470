// The explorer's background work without a window: the analysis worker answers the newest
// request, a long text's overview is coloured beside it, corpus runs report progress and can be
// cancelled, downloads hand over their result once.
//
// Sections, in order:
//   AnalysisWorker    the newest request, its snapshot, the overview, a long text's layers, a
//                     settings change, a decoder's text typed on
//   NewestRequestJob  a request made once until handed over
//   long-text jobs    (long_text_snapshot) OverviewJob, RolloutJob, TiledFigureJob, PairValuesJob,
//                     then the worker's statistics as a long text's scan goes on
//   AnalysisWorker    a model that cannot load
//   CorpusJob, DownloadJob
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <filesystem>
#include <chrono>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "analysis_worker.h"
#include "corpus_job.h"
#include "download_job.h"
#include "figures/overview_thumbnails.h"
#include "newest_request_job.h"
#include "overview_job.h"
#include "pair_values_job.h"
#include "rollout_job.h"
#include "tiled_figure_job.h"
#include "figures/text_figures.h"
#include "support/analysis_so_far.h"
#include "support/fake_hub.h"
#include "support/paths.h"
#include "support/tiny_bert.h"

namespace attnscope::ui {
namespace {

template <typename Done>
bool wait_for(Done done, double seconds = 120) {
  const auto start = std::chrono::steady_clock::now();
  while (!done()) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// A worker on a CPU whose every notification records its progress, as the window reads it.
class WatchedWorker {
 public:
  explicit WatchedWorker(const std::filesystem::path& model)
      : worker(model.string(), "cpu", "float32", [this] {
          if (!ready_) return;  // a notification before the worker is built
          std::lock_guard lock(mutex_);
          seen_.push_back(worker.progress());
        }) {
    ready_ = true;
  }
  std::vector<RunProgress> progress_of(uint64_t serial) const {
    std::lock_guard lock(mutex_);
    std::vector<RunProgress> of;
    for (const RunProgress& p : seen_)
      if (p.serial == serial) of.push_back(p);
    return of;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<RunProgress> seen_;
  std::atomic<bool> ready_{false};

 public:
  AnalysisWorker worker;  // last: destroyed first, its thread stopped before what it notifies goes
};

TEST(AnalysisWorker, AnswersTheNewestRequestWithAnImmutableSnapshot) {
  const test::TempDir dir;
  test::write_tiny_bert(dir / "tiny", {});
  AnalysisWorker worker((dir / "tiny").string(), "cpu", "float32");
  worker.submit({"the cat", {}, 0});
  const uint64_t last = worker.submit({"the cat sat on the mat", {}, 0});
  ASSERT_TRUE(wait_for([&] { return !worker.busy() && worker.latest() && worker.latest()->serial == last; }));
  const auto snapshot = worker.latest_good();
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(snapshot->text, "the cat sat on the mat");
  EXPECT_TRUE(snapshot->error.empty());
  EXPECT_EQ(snapshot->analysis.length, static_cast<int64_t>(snapshot->encoding.size()));
  EXPECT_TRUE(worker.model_status().loaded);
  EXPECT_EQ(worker.model_status().device, "cpu float32");
  // A failing request keeps the last good snapshot.
  const uint64_t empty = worker.submit({"   ", {}, 0});
  ASSERT_TRUE(wait_for([&] { return worker.latest() && worker.latest()->serial == empty; }));
  EXPECT_FALSE(worker.latest()->error.empty());
  EXPECT_EQ(worker.latest_good(), snapshot);
}

// The window waits for a new request's run to start before drawing beside a stale one: the wait
// ends when it starts, or at its limit.
TEST(AnalysisWorker, WaitingForARunToStartEndsWhenItStartsOrAtTheLimit) {
  const test::TempDir dir;
  test::write_tiny_bert(dir / "tiny", {});
  AnalysisWorker worker((dir / "tiny").string(), "cpu", "float32");
  ASSERT_TRUE(wait_for([&] { return worker.model_status().loaded; }));
  const uint64_t serial = worker.submit({"the cat sat on the mat", {}, 0});
  auto start = std::chrono::steady_clock::now();
  worker.wait_for_start(serial, std::chrono::seconds(60));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  ASSERT_TRUE(wait_for([&] { return worker.latest() && worker.latest()->serial == serial; }));
  start = std::chrono::steady_clock::now();
  worker.wait_for_start(serial + 1000, std::chrono::milliseconds(50));  // never asked: the limit
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
}

TEST(AnalysisWorker, ColoursTheOverviewsThumbnailsWhenAskedAsTheWindowWould) {
  const test::TempDir dir;
  test::write_tiny_bert(dir / "tiny", {});
  AnalysisWorker worker((dir / "tiny").string(), "cpu", "float32");
  FigureOptions options;
  options.matrix = MatrixKind::Similarity;
  AnalysisRequest asked{"the cat sat on the mat", {}, 0};
  asked.grid = options;
  const uint64_t with_grid = worker.submit(asked);
  ASSERT_TRUE(wait_for([&] { return worker.latest() && worker.latest()->serial == with_grid; }));
  const auto s = worker.latest_good();
  ASSERT_TRUE(s && s->grid_options);
  EXPECT_EQ(s->grid_options->matrix, MatrixKind::Similarity);
  const ThumbnailAtlas here = grid_atlas({s->encoding, s->captures, s->analysis}, options);
  EXPECT_EQ(s->grid.columns, static_cast<int>(s->analysis.num_heads + 1));
  EXPECT_EQ(s->grid.rows, static_cast<int>(s->analysis.num_layers));
  EXPECT_EQ(s->grid.rgba, here.rgba);
  // Not asked (another view is shown): nothing coloured.
  const uint64_t without = worker.submit({"the dog", {}, 0});
  ASSERT_TRUE(wait_for([&] { return worker.latest() && worker.latest()->serial == without; }));
  EXPECT_FALSE(worker.latest()->grid_options);
  EXPECT_TRUE(worker.latest()->grid.rgba.empty());
}

// A long text's run (its maps not kept) reports each layer of its forward as it ends, with the
// overview so far pooled from the forward's own blocks of maps (the later layers clear), then its
// scan for pairs with the overview kept, and ends with the overview grid_atlas makes from the
// finished text.
TEST(AnalysisWorker, ALongTextsRunReportsEachLayerWithTheOverviewSoFar) {
  const test::TempDir dir;
  test::write_tiny_bert(dir / "tiny", {.layers = 3});
  WatchedWorker watched(dir / "tiny");
  AnalysisWorker& worker = watched.worker;
  AnalysisRequest asked{"the cat sat on the mat", {}, 0};
  asked.grid = FigureOptions{};
  asked.long_texts.maps_up_to = 4;
  const uint64_t serial = worker.submit(asked);
  ASSERT_TRUE(wait_for([&] { return worker.latest() && worker.latest()->serial == serial; }));
  const auto s = worker.latest_good();
  ASSERT_TRUE(s && !s->captures.attention.defined() && s->grid_options);
  EXPECT_EQ(s->grid.rgba, grid_atlas(s->view(), *s->grid_options).rgba);
  std::vector<RunProgress> layers, stages;
  for (const RunProgress& p : watched.progress_of(serial)) (p.stage.empty() ? layers : stages).push_back(p);
  ASSERT_EQ(layers.size(), size_t{3});
  ASSERT_FALSE(stages.empty());
  for (const RunProgress& p : stages) {
    EXPECT_EQ(p.stage, "pairs");
    EXPECT_EQ(p.layers_done, 3);
    EXPECT_EQ(p.overview, layers.back().overview);
  }
  EXPECT_DOUBLE_EQ(stages.back().fraction, 1.0);
  const size_t row_bytes = static_cast<size_t>(s->grid.width()) * s->grid.tile_h * 4;  // one layer's tiles
  for (size_t k = 0; k < layers.size(); ++k) {
    EXPECT_EQ(layers[k].layers_done, static_cast<int>(k) + 1);
    EXPECT_EQ(layers[k].layers, 3);
    ASSERT_TRUE(layers[k].overview);
    const std::vector<uint8_t>& so_far = layers[k].overview->rgba;
    ASSERT_EQ(so_far.size(), s->grid.rgba.size());
    const size_t done = (k + 1) * row_bytes;
    EXPECT_TRUE(std::equal(so_far.begin(), so_far.begin() + done, s->grid.rgba.begin())) << "layer " << k;
    EXPECT_TRUE(std::all_of(so_far.begin() + done, so_far.end(), [](uint8_t b) { return b == 0; })) << "layer " << k;
  }
  EXPECT_EQ(worker.progress().serial, 0u);  // nothing under way
}

// A change of settings on the text shown analyses the shown forward again, the model not run: the
// analysis a run with those settings gives, the next tokens, head roles and overview carried over.
// A request its captures do not serve (a lens, another text or length) runs the model.
TEST(AnalysisWorker, ASettingsChangeAnalysesTheShownForwardAgain) {
  const test::TempDir dir;
  test::write_tiny_bert(dir / "tiny", {});
  WatchedWorker watched(dir / "tiny");
  AnalysisWorker& worker = watched.worker;
  const auto answer = [&](const AnalysisRequest& request) {
    const uint64_t serial = worker.submit(request);
    EXPECT_TRUE(wait_for([&] { return worker.latest() && worker.latest()->serial == serial; }));
    EXPECT_TRUE(worker.latest()->error.empty()) << worker.latest()->error;
    return worker.latest();
  };
  AnalysisRequest asked{"the cat sat on the mat. the dog sat.", {}, 0};
  asked.grid = FigureOptions{};
  asked.head_roles = true;
  const auto first = answer(asked);
  EXPECT_FALSE(first->forward_reused);
  asked.settings.tau = 0.4;
  asked.settings.include_special = false;
  const auto again = answer(asked);
  EXPECT_TRUE(again->forward_reused);
  EXPECT_TRUE(again->captures.head_outputs.is_same(first->captures.head_outputs));
  const TextAnalysis expected = analyze_text(first->encoding, first->captures, asked.settings);
  ASSERT_EQ(again->analysis.heads.size(), expected.heads.size());
  for (size_t k = 0; k < expected.heads.size(); ++k)
    EXPECT_EQ(again->analysis.heads[k].pairs.bits(), expected.heads[k].pairs.bits()) << "head " << k;
  EXPECT_EQ(again->analysis.settings.tau, 0.4);
  ASSERT_TRUE(again->roles && again->grid_options);
  EXPECT_EQ(again->grid.rgba, first->grid.rgba);
  EXPECT_EQ(again->forward.max_length, first->forward.max_length);
  // A lens needs captures the forward did not take: run again, then kept for the next change.
  asked.settings.separators_from = SeparatorInput::Norm;
  const auto lens = answer(asked);
  EXPECT_FALSE(lens->forward_reused);
  EXPECT_TRUE(lens->captures.value_norms.defined());
  asked.settings.separators_from = SeparatorInput::Attention;
  EXPECT_TRUE(answer(asked)->forward_reused);
  asked.max_length = 6;
  EXPECT_FALSE(answer(asked)->forward_reused);
  asked.text = "the dog sat on the mat.";
  EXPECT_FALSE(answer(asked)->forward_reused);
  // A long text's scan reports its progress, the forward's layers all done; on words its word maps
  // are made again from its pieces'.
  asked.long_texts.maps_up_to = 4;
  asked.max_length = 0;
  const auto long_text = answer(asked);
  ASSERT_FALSE(long_text->captures.attention.defined());
  asked.settings.pairs_from = PairInput::Cosine;
  const auto cosine = answer(asked);
  EXPECT_TRUE(cosine->forward_reused);
  EXPECT_EQ(cosine->analysis.settings.pairs_from, PairInput::Cosine);
  const std::vector<RunProgress> scan = watched.progress_of(cosine->serial);
  ASSERT_FALSE(scan.empty());
  EXPECT_EQ(scan.back().stage, "pairs");
  EXPECT_DOUBLE_EQ(scan.back().fraction, 1.0);
  for (const RunProgress& p : scan) EXPECT_EQ(p.layers_done, p.layers);
  asked.settings.words = true;
  asked.text = "the dogs sat on the mats.";  // "dog ##s", "mat ##s": words of two pieces
  const auto words = answer(asked);
  EXPECT_FALSE(words->forward_reused);
  EXPECT_FALSE(words->captures.attention.defined());
  EXPECT_TRUE(words->captures.remakes_maps());
  ASSERT_EQ(words->captures.first_pieces.size(), words->encoding.size() + 1);
  EXPECT_LT(words->encoding.size(), static_cast<size_t>(words->captures.first_pieces.back()));
  EXPECT_TRUE(std::any_of(words->encoding.tokens.begin(), words->encoding.tokens.end(),
                          [](const Token& t) { return t.text == "dogs"; }));
}

// A decoder's text typed on at its end: the worker's forward takes the tokens typed before from
// its last run, and the snapshot says how many.
TEST(AnalysisWorker, ADecodersTextTypedOnRunsItsNewTokens) {
  WatchedWorker watched(test::real_model_file("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf"));
  AnalysisWorker& worker = watched.worker;
  const auto answer = [&](const std::string& text) {
    const uint64_t serial = worker.submit({text, {}, 0});
    EXPECT_TRUE(wait_for([&] { return worker.latest() && worker.latest()->serial == serial; }));
    EXPECT_TRUE(worker.latest()->error.empty()) << worker.latest()->error;
    return worker.latest();
  };
  const auto first = answer("The cat sat on the mat.");
  EXPECT_EQ(first->tokens_continued, 0);
  const auto typed = answer("The cat sat on the mat. The dog");
  EXPECT_GT(typed->tokens_continued, static_cast<int64_t>(first->encoding.size()) - 4);
  EXPECT_FALSE(typed->next.empty());
  EXPECT_LE(answer("A dog sat on the mat.")->tokens_continued, 1) << "an edit at the start: a start token at most";
}

// The same request is made once while its result is kept; handed over (take_latest), it is made
// again when asked again (a second export of the same figure); a stale request stops and leaves
// nothing.
TEST(NewestRequestJob, ARequestIsMadeOnceUntilItsResultIsHandedOver) {
  NewestRequestJob<int> job;
  std::atomic<int> runs{0};
  const auto work = [&](int value) {
    return [&runs, value](const JobControl&) {
      ++runs;
      return value;
    };
  };
  const auto made = [&](const std::string& key) {
    return wait_for([&] { return job.latest() && job.latest()->key == key && !job.busy(); });
  };
  job.submit("a", work(1));
  ASSERT_TRUE(made("a"));
  job.submit("a", work(2));  // made already: not again
  EXPECT_EQ(job.latest()->value, 1);
  EXPECT_EQ(runs.load(), 1);
  const auto taken = job.take_latest();
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->value, 1);
  EXPECT_FALSE(job.latest());
  job.submit("a", work(3));
  ASSERT_TRUE(made("a"));
  EXPECT_EQ(job.latest()->value, 3);
  EXPECT_EQ(runs.load(), 2);
  std::atomic<bool> started{false};
  job.submit("slow", [&](const JobControl& control) {
    started = true;
    while (control.keep_going()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    throw Cancelled();
    return 0;
  });
  ASSERT_TRUE(wait_for([&] { return started.load(); }));
  job.submit("b", work(4));  // the newest: "slow" stops and leaves nothing
  ASSERT_TRUE(made("b"));
  EXPECT_EQ(job.latest()->value, 4);
}

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

TEST(AnalysisWorker, AModelThatCannotLoadSaysWhy) {
  const test::TempDir dir;
  AnalysisWorker worker((dir / "none").string(), "cpu", "float32");
  ASSERT_TRUE(wait_for([&] { return !worker.model_status().error.empty(); }));
  EXPECT_NE(worker.model_status().error.find("none"), std::string::npos);
  EXPECT_FALSE(worker.busy());
}

TEST(CorpusJob, RunsReportsProgressAndSaves) {
  const test::TempDir dir;
  test::write_tiny_bert(dir / "tiny", {});
  std::string text;
  for (int k = 0; k < 40; ++k) text += "the cat sat on the mat . a dog sat . ";
  test::write_text(dir / "corpus.txt", text);
  const auto checkpoint = Checkpoint::load(dir / "tiny", ComputeDevice{});
  CorpusOptions o;
  o.input = dir / "corpus.txt";
  o.window = 16;
  o.batch = 4;
  CorpusJob job;
  job.start_run(checkpoint, o, dir / "run.json");
  ASSERT_TRUE(wait_for([&] { return !job.state().running; }));
  const CorpusJobState s = job.state();
  ASSERT_TRUE(s.result) << s.message;
  EXPECT_GT(s.result->texts(), 10);
  EXPECT_EQ(s.progress.windows, static_cast<uint64_t>(s.result->texts()));
  EXPECT_NE(s.message.find("saved to"), std::string::npos) << s.message;
  EXPECT_TRUE(std::filesystem::exists(dir / "run.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "run-csv" / "per_head.csv"));
  CorpusJob reopen;
  reopen.start_open(dir / "run.json");
  ASSERT_TRUE(wait_for([&] { return !reopen.state().running; }));
  ASSERT_TRUE(reopen.state().result);
  EXPECT_EQ(reopen.state().result->texts(), s.result->texts());
  reopen.start_open(dir / "missing.json");
  ASSERT_TRUE(wait_for([&] { return !reopen.state().running; }));
  EXPECT_NE(reopen.state().message.find("error"), std::string::npos);
}

TEST(CorpusJob, CancelStopsEarlyAndKeepsWhatWasDone) {
  const test::TempDir dir;
  test::write_tiny_bert(dir / "tiny", {});
  std::string text;
  for (int k = 0; k < 4000; ++k) text += "the cat sat on the mat . ";
  test::write_text(dir / "corpus.txt", text);
  CorpusOptions o;
  o.input = dir / "corpus.txt";
  o.window = 16;
  o.batch = 2;
  CorpusJob job;
  job.start_run(Checkpoint::load(dir / "tiny", ComputeDevice{}), o, dir / "run.json");
  ASSERT_TRUE(wait_for([&] { return job.state().progress.windows > 0; }));
  job.cancel();
  ASSERT_TRUE(wait_for([&] { return !job.state().running; }));
  const CorpusJobState s = job.state();
  ASSERT_TRUE(s.result);
  EXPECT_NE(s.message.find("cancelled"), std::string::npos) << s.message;
  EXPECT_LT(s.result->texts(), 4000 * 8 / 14);  // far from the whole corpus
}

TEST(DownloadJob, HandsOverTheFinishedModelOnce) {
  test::FakeHub hub;
  const test::TempDir cache;
  HubOptions o;
  o.endpoint = hub.endpoint();
  o.cache = cache.path();
  DownloadJob job;
  job.start("test-org/model", o);
  ASSERT_TRUE(wait_for([&] { return !job.state().running; }));
  EXPECT_TRUE(job.state().error.empty()) << job.state().error;
  EXPECT_EQ(job.take_finished(), "test-org/model");
  EXPECT_EQ(job.take_finished(), "");
  job.start("test-org/nothing", o);
  ASSERT_TRUE(wait_for([&] { return !job.state().running; }));
  EXPECT_NE(job.state().error.find("not found"), std::string::npos);
}

}  // namespace
}  // namespace attnscope::ui
