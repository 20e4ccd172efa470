// The explorer's background work without a window: the analysis worker answers the newest
// request (its snapshot, the overview, a long text's layers, a settings change, a decoder's text
// typed on, a model that cannot load), a request is made once until handed over, corpus runs
// report progress and can be cancelled, downloads hand over their result once. The jobs that make
// a long text's pictures beside the window: test_long_text_jobs.cpp.
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
#include "base/host_memory_pool.h"
#include "corpus/allocator_tuning.h"
#include "corpus_job.h"
#include "download_job.h"
#include "figures/overview_thumbnails.h"
#include "newest_request_job.h"
#include "support/fake_hub.h"
#include "support/paths.h"
#include "support/tiny_bert.h"
#include "support/wait_for.h"

namespace attnscope::ui {
namespace {

using test::wait_for;

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

// Once an answer is shown (and the one before let go), blocks like those it holds are made ready,
// pages and all, for the next edit's run: that run maps or grows none of its large tensors.
TEST(AnalysisWorker, MakesBlocksReadyForTheNextEditWhileIdle) {
  if (!host_memory_pool_available()) GTEST_SKIP() << "no pool under AddressSanitizer";
  const auto model = test::real_model_file("models/all-MiniLM-L6-v2");
  if (!std::filesystem::exists(model)) return;  // real_model_file said how to fetch it
  keep_freed_memory_for_reuse();                // as the explorer does from its start
  AnalysisWorker worker(model.string(), "cpu", "float32");
  const auto answer = [&](const std::string& text) {
    const uint64_t serial = worker.submit({text, {}, 128});
    EXPECT_TRUE(wait_for([&] { return worker.latest() && worker.latest()->serial == serial; }));
    EXPECT_TRUE(worker.latest()->error.empty()) << worker.latest()->error;
  };
  std::string text;
  for (int i = 0; i < 40; ++i) text += "The quick brown fox jumps over the lazy dog. ";
  const HostMemoryPool::Counts opened = host_tensors_counts();
  answer(text);  // 128 tokens: each layer's maps 786 kB, every layer's 4.7 MB, S as much
  ASSERT_TRUE(wait_for([&] { return host_tensors_counts().preparations > opened.preparations; }));
  EXPECT_GT(host_tensors_counts().prepared, opened.prepared) << "nothing made ready";
  const HostMemoryPool::Counts before = host_tensors_counts();
  answer("A " + text);
  EXPECT_EQ(host_tensors_counts().mapped, before.mapped) << "the edit's run mapped blocks anew";
  EXPECT_EQ(host_tensors_counts().grown, before.grown) << "the edit's run grew blocks";
  return_freed_memory();  // as the other tests of this process expect glibc's heap
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
