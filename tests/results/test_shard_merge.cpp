// A corpus run split into shards and merged equals the run in one piece: counts and histograms
// identical, float64 sums within 1e-6 relative; shards that do not belong together, a missing,
// repeated or partial shard, and a damaged file are each refused with one line naming them.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "corpus/corpus_run.h"
#include "corpus/run_fingerprint.h"
#include "corpus/window_stream.h"
#include "results/shard_merge.h"
#include "base/error.h"
#include "results/corpus_json.h"
#include "support/paths.h"
#include "support/tiny_bert.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

class ShardMerge : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_tiny_bert(dir_ / "model", {});
    checkpoint_ = Checkpoint::load(dir_ / "model", test::test_device());
    std::string text;
    for (int i = 0; i < 11; ++i) text += "the cat sat on the mat . a dog sat . the dogs sat on a mat ! ";
    test::write_text(dir_ / "corpus.txt", text);
    options_.input = dir_ / "corpus.txt";
    options_.window = 12;
    options_.batch = 3;
  }

  // Runs one shard (or the whole run, 0 of 1) and saves it; returns the file.
  std::filesystem::path run(uint64_t index, uint64_t count, const std::string& name, const CorpusOptions& base) {
    CorpusOptions o = base;
    o.shard_index = index;
    o.shard_count = count;
    auto acc = std::make_shared<CorpusAccumulator>(2, 2, 12);
    const CorpusOutcome outcome = run_corpus(*checkpoint_, o, *acc);
    const auto file = dir_ / name;
    save_corpus(file, {"model", checkpoint_->model().config().to_json(), input_fingerprint(o.input),
                       model_fingerprint(dir_ / "model"), "cpu", o, !outcome.complete, outcome.windows,
                       outcome.documents, pieces_per_window(checkpoint_->tokenizer(), o.window), acc});
    return file;
  }
  std::vector<std::filesystem::path> shards(uint64_t count, const CorpusOptions& o,
                                            const std::string& prefix = "shard") {
    std::vector<std::filesystem::path> files;
    for (uint64_t k = 0; k < count; ++k) files.push_back(run(k, count, prefix + std::to_string(k) + ".json", o));
    return files;
  }
  std::string refusal(const std::vector<std::filesystem::path>& files) {
    try {
      merge_shards(files);
    } catch (const Error& e) {
      return e.what();
    }
    return "(merged)";
  }

  test::TempDir dir_;
  std::shared_ptr<const Checkpoint> checkpoint_;
  CorpusOptions options_;
};

void expect_same_run(const CorpusFile& merged, const CorpusFile& whole) {
  EXPECT_EQ(merged.windows, whole.windows);
  EXPECT_EQ(merged.documents, whole.documents);
  EXPECT_FALSE(merged.partial);
  auto a = merged.accumulator->tensors();
  auto b = whole.accumulator->tensors();
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].second->scalar_type() == at::kLong) {
      EXPECT_TRUE(at::equal(*a[k].second, *b[k].second)) << a[k].first;
    } else {
      const double scale = std::max(1.0, b[k].second->abs().max().item<double>());
      EXPECT_LE((*a[k].second - *b[k].second).abs().max().item<double>(), 1e-6 * scale) << a[k].first;
    }
  }
}

TEST_F(ShardMerge, ShardsTakeEveryWindowOnceAndMergeIntoTheWholeRun) {
  const CorpusFile whole = load_corpus(run(0, 1, "whole.json", options_));
  ASSERT_GT(whole.windows, 8u);
  const auto files = shards(3, options_);
  uint64_t windows = 0;
  for (const auto& f : files) windows += load_corpus(f).windows;
  EXPECT_EQ(windows, whole.windows);
  expect_same_run(merge_shards(files), whole);
  // A folder of shards, in any order, merges the same.
  std::filesystem::create_directories(dir_ / "shards");
  for (const auto& f : files) std::filesystem::copy_file(f, dir_ / "shards" / f.filename());
  expect_same_run(merge_shards(shard_files({dir_ / "shards"})), whole);
}

TEST_F(ShardMerge, AWindowLimitIsSharedOut) {
  options_.max_windows = 7;
  const CorpusFile whole = load_corpus(run(0, 1, "whole.json", options_));
  EXPECT_EQ(whole.windows, 7u);
  EXPECT_EQ(shard_share(7, 0, 4) + shard_share(7, 1, 4) + shard_share(7, 2, 4) + shard_share(7, 3, 4), 7u);
  expect_same_run(merge_shards(shards(4, options_)), whole);
}

TEST_F(ShardMerge, ShardsThatDoNotBelongTogetherAreRefusedByName) {
  const auto files = shards(3, options_);
  EXPECT_EQ(refusal({files[0], files[2]}), "shard 1 of 3 is missing: run it and merge again");
  EXPECT_EQ(refusal({files[0]}), "shards 1, 2 of 3 are missing: run them and merge again");
  std::filesystem::copy_file(files[1], dir_ / "again.json");
  EXPECT_EQ(refusal({files[0], files[1], dir_ / "again.json", files[2]}),
            "shard 1 of 3 is given twice: " + files[1].string() + " and " + (dir_ / "again.json").string());

  CorpusOptions other = options_;
  other.settings.tau = 0.5;
  const auto other_settings = run(2, 3, "tau.json", other);
  EXPECT_NE(refusal({files[0], files[1], other_settings}).find("tau.json is not a shard of the same run as"),
            std::string::npos);
  EXPECT_NE(refusal({files[0], files[1], other_settings}).find("different analysis settings"), std::string::npos);
  EXPECT_NE(refusal({files[0], run(1, 2, "of2.json", options_)}).find("different shard count"), std::string::npos);

  auto other_model = test::read_json(files[2]);
  other_model["model_fingerprint"][0]["sha256"] = std::string(64, '0');  // another checkpoint's config.json
  test::write_text(dir_ / "model.json", other_model.dump());
  EXPECT_NE(refusal({files[0], files[1], dir_ / "model.json"}).find("model.json is not a shard of the same run as"),
            std::string::npos);
  EXPECT_NE(refusal({files[0], files[1], dir_ / "model.json"}).find("different model"), std::string::npos);

  // A shard written before files kept their windows' pieces reads as N - 2 (BERT's cut, as then);
  // one whose windows held another number (a decoder's, cut before it filled every position) is refused.
  auto before = test::read_json(files[2]);
  before.erase("window_pieces");
  test::write_text(dir_ / "before.json", before.dump());
  EXPECT_EQ(refusal({files[0], files[1], dir_ / "before.json"}), "(merged)");
  before["window_pieces"] = 11;
  test::write_text(dir_ / "pieces.json", before.dump());
  EXPECT_NE(refusal({files[0], files[1], dir_ / "pieces.json"}).find("different word pieces a window holds"),
            std::string::npos);

  test::write_text(dir_ / "corpus.txt", "another corpus . it has other words !");
  EXPECT_NE(refusal({files[0], files[1], run(2, 3, "input.json", options_)})
                .find("different input (files, sizes or contents)"),
            std::string::npos);

  auto damaged = test::read_json(files[2]);
  damaged["accumulators"].erase("mask_sum");
  test::write_text(dir_ / "damaged.json", damaged.dump());
  EXPECT_NE(
      refusal({files[0], files[1], dir_ / "damaged.json"}).find("damaged.json: accumulator \"mask_sum\" is missing"),
      std::string::npos);
}

TEST_F(ShardMerge, APartialShardIsNamed) {
  const auto files = shards(2, options_);
  auto partial = test::read_json(files[1]);
  partial["partial"] = true;
  test::write_text(files[1], partial.dump());
  EXPECT_EQ(refusal(files),
            "shard 1 of 2 is partial (" + files[1].string() + "): finish with corpus --resume, then merge again");
}

TEST_F(ShardMerge, AShardThatDoesNotExistIsRefused) {
  CorpusOptions o = options_;
  o.shard_index = 3;
  o.shard_count = 3;
  CorpusAccumulator acc(2, 2, 12);
  EXPECT_THROW(run_corpus(*checkpoint_, o, acc), Error);
}

}  // namespace
}  // namespace attnscope
