// A corpus run on a tiny BERT: the accumulators equal the sum of per-text results computed one
// by one; an interrupted and resumed run ends with the same totals as an uninterrupted one.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "corpus/corpus_run.h"
#include "corpus/window_stream.h"
#include "base/error.h"
#include "results/corpus_csv.h"
#include "results/corpus_json.h"
#include "support/paths.h"
#include "support/tiny_bert.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

// load_corpus refuses `file` with a message that contains `part`.
void expect_refused(const std::filesystem::path& file, const std::string& part) {
  try {
    load_corpus(file);
    ADD_FAILURE() << file << " was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

class CorpusRun : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_tiny_bert(dir_ / "model", {});
    checkpoint_ = Checkpoint::load(dir_ / "model", test::test_device());
    std::string text;
    for (int i = 0; i < 9; ++i) text += "the cat sat on the mat . a dog sat . the dogs sat on a mat ! ";
    test::write_text(dir_ / "corpus.txt", text);
    options_.input = dir_ / "corpus.txt";
    options_.window = 12;
    options_.batch = 1;
  }
  CorpusAccumulator fresh() const { return CorpusAccumulator(2, 2, 12); }
  test::TempDir dir_;
  std::shared_ptr<const Checkpoint> checkpoint_;
  CorpusOptions options_;
};

// Batches of 1 (no pads) and of 4 (the document's last window is shorter: padded batches).
class CorpusRunBatches : public CorpusRun, public ::testing::WithParamInterface<size_t> {};
INSTANTIATE_TEST_SUITE_P(Sizes, CorpusRunBatches, ::testing::Values(1, 4));

TEST_P(CorpusRunBatches, AccumulatorsAreTheSumOfPerTextResults) {
  options_.batch = GetParam();
  CorpusAccumulator acc = fresh();
  const CorpusOutcome outcome = run_corpus(*checkpoint_, options_, acc);
  EXPECT_TRUE(outcome.complete);

  // The same windows, each run and analysed on its own, summed here by hand.
  CorpusReader reader(options_.input);
  WindowStream stream(reader, checkpoint_->tokenizer(), 12);
  const int64_t N = 12;
  at::Tensor plain = at::zeros({2, 2, N, N}, at::kDouble), no_sep = plain.clone(), no_diag = plain.clone(),
             masks = plain.clone();
  at::Tensor distances = at::zeros({2, 2, N}, at::kLong);
  at::Tensor separator_classes = at::zeros({2, kTokenClasses}, at::kLong),
             token_classes = at::zeros({kTokenClasses}, at::kLong);
  double repeat_sum = 0;
  int64_t texts = 0, repeat_undefined = 0;
  Encoding e;
  while (stream.next(e)) {
    const TextRun run = std::move(checkpoint_->run({e}).front());
    const TextAnalysis a = analyze_text(run.encoding, run.captures, options_.settings);
    const int64_t n = run.captures.length;
    const at::Tensor A = run.captures.attention.to(at::kDouble);
    plain.narrow(2, 0, n).narrow(3, 0, n) += A;
    at::Tensor zeroed = A.clone();
    for (int j : a.segment_separators.positions) zeroed.select(3, j).zero_();
    no_sep.narrow(2, 0, n).narrow(3, 0, n) += zeroed;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = std::max<int64_t>(0, i - 1); j <= std::min(n - 1, i + 1); ++j)
        zeroed.select(2, i).select(2, j).zero_();
    no_diag.narrow(2, 0, n).narrow(3, 0, n) += zeroed;
    for (size_t i = 0; i < e.size(); ++i) token_classes[static_cast<int>(token_class(e.tokens[i], i))] += 1;
    for (int64_t l = 0; l < 2; ++l)
      for (int p : a.layers[static_cast<size_t>(l)].separators.positions)
        separator_classes[l][static_cast<int>(token_class(e.tokens[static_cast<size_t>(p)], static_cast<size_t>(p)))] +=
            1;
    for (int64_t l = 0; l < 2; ++l)
      for (int64_t h = 0; h < 2; ++h) {
        const HeadStats& s = a.head(l, h).stats;
        a.head(l, h).pairs.for_each([&](int i, int j) {
          masks[l][h][i][j] += 1;
          masks[l][h][j][i] += 1;
        });
        for (int64_t d = 0; d < n; ++d) distances[l][h][d] += s.distance_histogram[static_cast<size_t>(d)];
        if (l == 1 && h == 0) {
          if (s.repeat_share)
            repeat_sum += *s.repeat_share;
          else
            ++repeat_undefined;
        }
      }
    ++texts;
  }
  EXPECT_EQ(acc.texts(), texts);
  EXPECT_EQ(static_cast<int64_t>(outcome.windows), texts);
  EXPECT_GT(texts, 10);
  // Alone, a text runs through matrix products of other shapes than in a padded batch: its maps
  // differ in the last float bits.
  const double tolerance = options_.batch == 1 ? 1e-9 : 1e-5;
  EXPECT_TRUE(at::allclose(acc.attention_sum(), plain, 0, tolerance));
  EXPECT_TRUE(at::allclose(acc.attention_without_separators(), no_sep, 0, tolerance));
  EXPECT_TRUE(at::allclose(acc.attention_without_separators_and_diagonals(), no_diag, 0, tolerance));
  EXPECT_TRUE(at::equal(acc.mask_sum(), masks));
  EXPECT_TRUE(at::equal(acc.distance_histogram, distances));
  EXPECT_TRUE(at::equal(acc.separator_classes, separator_classes)) << acc.separator_classes << separator_classes;
  EXPECT_TRUE(at::equal(acc.token_classes, token_classes));
  EXPECT_GT(token_classes[static_cast<int>(TokenClass::Punctuation)].item<int64_t>(), 0);  // "." and "!" in the text
  const auto& repeat = acc.stats[CorpusAccumulator::RepeatShare];
  EXPECT_NEAR(repeat.sum[1][0].item<double>(), repeat_sum, 1e-9);
  EXPECT_EQ(repeat.undefined[1][0].item<int64_t>(), repeat_undefined);
  EXPECT_EQ(repeat.histogram[1][0].sum().item<int64_t>() + repeat_undefined, texts);
  EXPECT_EQ(acc.distinct_anchors.sum(1).eq(texts).all().item<bool>(), true);
}

// add_batch sums the maps on the host in one pass per head; off the host it uses tensor
// operations. Both ways, on the same padded batches, give the same accumulators.
TEST_F(CorpusRun, HostAndTensorOperationsAgree) {
  CorpusReader reader(options_.input);
  WindowStream stream(reader, checkpoint_->tokenizer(), 12);
  std::vector<Encoding> windows;
  for (Encoding e; stream.next(e);) windows.push_back(e);
  std::rotate(windows.begin(), windows.end() - 1, windows.end());  // the short last window first: a padded batch
  CorpusAccumulator host = fresh(), ops = fresh();
  for (size_t first = 0; first + 3 <= windows.size(); first += 3) {
    std::vector<std::vector<int64_t>> ids;
    std::vector<TextAnalysis> analyses;
    const std::vector<Encoding> batch(windows.begin() + static_cast<std::ptrdiff_t>(first),
                                      windows.begin() + static_cast<std::ptrdiff_t>(first + 3));
    for (const Encoding& e : batch) ids.push_back(e.ids());
    const BatchCaptures captures = checkpoint_->model().forward(ids);
    for (size_t i = 0; i < batch.size(); ++i)
      analyses.push_back(analyze_text(batch[i], text_captures(captures, i, true), options_.settings));
    host.add_batch(captures, analyses);
    ops.add_batch_with_tensor_ops(captures, analyses);
  }
  ASSERT_GT(host.texts(), 3);
  EXPECT_LT(windows.front().size(), 12u);
  EXPECT_EQ(host.texts(), ops.texts());
  auto a = host.tensors(), b = ops.tensors();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(at::allclose(*a[i].second, *b[i].second, 0, 1e-6)) << a[i].first;
  EXPECT_GT(host.attention_sum().sum().item<double>(), 0);
  EXPECT_GT(host.attention_without_separators().sum().item<double>(),
            host.attention_without_separators_and_diagonals().sum().item<double>());
}

TEST_F(CorpusRun, InterruptedAndResumedEqualsUninterrupted) {
  options_.batch = 3;
  CorpusAccumulator whole = fresh();
  const CorpusOutcome all = run_corpus(*checkpoint_, options_, whole);

  CorpusAccumulator first = fresh();
  int batches = 0;
  const CorpusOutcome stopped =
      run_corpus(*checkpoint_, options_, first, 0, [&](const CorpusProgress&) { return ++batches < 2; });
  EXPECT_FALSE(stopped.complete);
  EXPECT_EQ(stopped.windows, 6u);
  const auto& config = checkpoint_->model().config();
  save_corpus(dir_ / "partial.json", {"model",
                                      config.to_json(),
                                      {},
                                      {},
                                      "cpu float32",
                                      options_,
                                      true,
                                      stopped.windows,
                                      stopped.documents,
                                      pieces_per_window(checkpoint_->tokenizer(), options_.window),
                                      std::make_shared<CorpusAccumulator>(first)});
  CorpusFile saved = load_corpus(dir_ / "partial.json");
  EXPECT_TRUE(saved.partial);
  EXPECT_EQ(saved.windows, 6u);
  const CorpusOutcome rest = run_corpus(*checkpoint_, options_, *saved.accumulator, saved.windows);
  EXPECT_TRUE(rest.complete);
  EXPECT_EQ(rest.windows, all.windows);
  CorpusAccumulator& resumed = *saved.accumulator;
  EXPECT_EQ(resumed.texts(), whole.texts());
  auto a = whole.tensors(), b = resumed.tensors();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(at::equal(a[i].second->cpu(), b[i].second->cpu())) << a[i].first;
}

// The result is written a piece at a time (a BERT-base-sized run at 512 tokens: 1.6 GB of JSON),
// the bytes of the whole document's dump, with the share written rising to 1.
TEST_F(CorpusRun, AResultIsWrittenAsTheWholeDocumentDumps) {
  options_.max_windows = 4;
  CorpusAccumulator acc = fresh();
  const CorpusOutcome run = run_corpus(*checkpoint_, options_, acc);
  const CorpusFile file{"model",
                        checkpoint_->model().config().to_json(),
                        {{"files", 1}},
                        {{"bytes", 2}},
                        "cpu float32",
                        options_,
                        false,
                        run.windows,
                        run.documents,
                        pieces_per_window(checkpoint_->tokenizer(), options_.window),
                        std::make_shared<CorpusAccumulator>(acc)};
  std::vector<double> shares;
  save_corpus(dir_ / "r.json", file, [&](std::string_view stage, double share) {
    EXPECT_EQ(stage, "writing");
    shares.push_back(share);
  });
  std::stringstream written;
  written << std::ifstream(dir_ / "r.json", std::ios::binary).rdbuf();
  EXPECT_EQ(written.str(), corpus_to_json(file).dump() + "\n");
  ASSERT_FALSE(shares.empty());
  EXPECT_TRUE(std::is_sorted(shares.begin(), shares.end()));
  EXPECT_DOUBLE_EQ(shares.back(), 1.0);
  const CorpusFile back = load_corpus(dir_ / "r.json");
  EXPECT_EQ(back.windows, run.windows);
  auto a = acc.tensors(), b = back.accumulator->tensors();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(at::equal(a[i].second->cpu(), b[i].second->cpu())) << a[i].first;
  // The same read with every accumulator's data left in the file (a large result's way; this
  // one's data is kilobytes, under the default threshold): the same sums.
  const JsonWithBlobs json(dir_ / "r.json", 16);
  EXPECT_GE(json.blobs(), a.size() - 2);
  const CorpusFile cut = corpus_from_json(json.document(), "r.json", &json);
  const auto c = cut.accumulator->tensors();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(at::equal(a[i].second->cpu(), c[i].second->cpu())) << a[i].first;
}

TEST_F(CorpusRun, MaxWindowsAndProgress) {
  options_.max_windows = 5;
  options_.batch = 2;
  CorpusAccumulator acc = fresh();
  std::vector<CorpusProgress> seen;
  const CorpusOutcome o = run_corpus(*checkpoint_, options_, acc, 0, [&](const CorpusProgress& p) {
    seen.push_back(p);
    return true;
  });
  EXPECT_TRUE(o.complete);
  EXPECT_EQ(o.windows, 5u);
  ASSERT_EQ(seen.size(), 4u);  // batches of 2, 2, 1, then the end
  EXPECT_DOUBLE_EQ(seen.back().fraction(), 1.0);
  EXPECT_LT(seen.front().fraction(), seen.back().fraction());
}

TEST_F(CorpusRun, ProgressFollowsTheWindowsThroughTheInput) {
  options_.batch = 2;
  CorpusAccumulator acc = fresh();
  std::vector<double> fractions;
  run_corpus(*checkpoint_, options_, acc, 0, [&](const CorpusProgress& p) {
    fractions.push_back(p.fraction());
    return true;
  });
  ASSERT_GT(fractions.size(), 4u);
  EXPECT_LT(fractions.front(), 0.3);  // the whole file is read at once, but only a window or two is done
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
}

TEST_F(CorpusRun, CsvTablesHaveAHeaderAndOneRowPerHeadOrLayer) {
  CorpusAccumulator acc = fresh();
  run_corpus(*checkpoint_, options_, acc);
  write_corpus_csv(dir_ / "csv", acc);
  const auto lines = [&](const char* name) {
    std::ifstream in(dir_ / "csv" / name);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  const auto head = lines("per_head.csv"), layer = lines("per_layer.csv");
  ASSERT_EQ(head.size(), 5u);  // header + 2 x 2 heads
  EXPECT_EQ(head[0].substr(0, 26), "layer,head,texts,mean_pair");
  EXPECT_EQ(layer.size(), 3u);
  EXPECT_EQ(std::count(head[1].begin(), head[1].end(), ','), std::count(head[0].begin(), head[0].end(), ','));
  EXPECT_GT(lines("head_distances.csv").size(), 1u);
  EXPECT_GT(lines("layer_distances.csv").size(), 1u);
}

TEST_F(CorpusRun, DamagedResultFilesAreRefused) {
  test::write_text(dir_ / "x.json", "{\"format\": \"attnscope.corpus\", \"version\": 1}");
  EXPECT_THROW(load_corpus(dir_ / "x.json"), Error);
  test::write_text(dir_ / "y.json", "[]");
  EXPECT_THROW(load_corpus(dir_ / "y.json"), Error);
  CorpusAccumulator acc = fresh();
  save_corpus(dir_ / "z.json", {"model",
                                checkpoint_->model().config().to_json(),
                                {},
                                {},
                                "cpu",
                                options_,
                                false,
                                0,
                                0,
                                pieces_per_window(checkpoint_->tokenizer(), options_.window),
                                std::make_shared<CorpusAccumulator>(acc)});
  auto json = test::read_json(dir_ / "z.json");
  json["accumulators"]["mask_sum"]["shape"] = {2, 2, 12, 11};
  test::write_text(dir_ / "z.json", json.dump());
  expect_refused(dir_ / "z.json", "accumulators.mask_sum");
  // Numbers that do not fit their field (found by fuzzing: a float where a count belongs).
  for (const char* key : {"batch", "window", "windows"}) {
    auto bad = test::read_json(dir_ / "z.json");
    bad[key] = 8.23e21;
    test::write_text(dir_ / "f.json", bad.dump());
    expect_refused(dir_ / "f.json", key);
  }
  {  // a field of another type (found by fuzzing: an array where the dtype belongs)
    auto bad = test::read_json(dir_ / "z.json");
    bad["accumulators"]["mask_sum"]["dtype"] = nlohmann::json::array({1});
    test::write_text(dir_ / "f.json", bad.dump());
    EXPECT_THROW(load_corpus(dir_ / "f.json"), Error);
  }
  // A small file claiming a huge model is refused before anything that size is allocated.
  json = test::read_json(dir_ / "z.json");
  json["model"]["config"]["num_hidden_layers"] = 100000;
  json["model"]["config"]["max_position_embeddings"] = 100000;
  json["window"] = 100000;
  test::write_text(dir_ / "z.json", json.dump());
  expect_refused(dir_ / "z.json", "does not hold 100000 x");
}

TEST_F(CorpusRun, BadOptionsAreRefused) {
  CorpusAccumulator acc = fresh();
  options_.batch = 0;
  EXPECT_THROW(run_corpus(*checkpoint_, options_, acc), Error);
  options_.batch = 1;
  options_.window = 20;  // the accumulators were made for 12
  EXPECT_THROW(run_corpus(*checkpoint_, options_, acc), Error);
  CorpusAccumulator big(2, 2, 20);
  EXPECT_THROW(run_corpus(*checkpoint_, options_, big), Error);  // 20 > the model's 16 positions
  // Sums of maps no machine here holds (22 x 12 heads of 65,536 x 65,536, 36 TB): one line, nothing taken.
  try {
    CorpusAccumulator too_big(22, 12, 65536);
    ADD_FAILURE() << "accumulators of 36 TB were made";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--window"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attnscope
