// The result file of `analyze` (version 2, both containers): written, read back equal, its pairs
// the analysis's; version 1 files still read; damaged files refused with a message.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>

#include "base/error.h"
#include "pipeline/text_head_roles.h"
#include "results/head_roles_json.h"
#include "results/text_run_file.h"
#include "support/minilm.h"
#include "tiny_text_run.h"
#include "support/paths.h"
#include "support/tiny_bert.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

class TextRunFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_.run = checkpoint_->run(file_.text, 16);
    analysis_ = analyze_text(file_.run.encoding, file_.run.captures, {});
  }

  TextRunFile round_trip(const ResultWriteOptions& o, const std::string& name = "r") {
    const auto path = dir_ / (name + (o.container == ResultContainer::Json ? ".json" : ".safetensors"));
    save_text_run(path, file_, &analysis_, o);
    return load_text_run(path);
  }

  void expect_pairs_as_analysed(const TextRunFile& back, float tolerance) {
    ASSERT_TRUE(back.analysis);
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 2; ++h) {
        const auto want = head_pairs(analysis_, l, h), got = stored_pairs(back, l, h);
        ASSERT_EQ(got.size(), want.size());
        for (size_t k = 0; k < got.size(); ++k) {
          EXPECT_EQ(got[k].i, want[k].i);
          EXPECT_EQ(got[k].j, want[k].j);
          EXPECT_NEAR(got[k].value, want[k].value, tolerance);
        }
      }
  }

  test::TinyTextRun tiny_;
  const test::TempDir& dir_ = tiny_.dir;
  std::shared_ptr<const Checkpoint>& checkpoint_ = tiny_.checkpoint;
  TextRunFile& file_ = tiny_.file;
  TextAnalysis analysis_;
};

TEST_F(TextRunFileTest, EveryContainerAndEncodingRoundTripsExactly) {
  for (auto container : {ResultContainer::Binary, ResultContainer::Json})
    for (bool decimal : {false, true}) {
      if (container == ResultContainer::Binary && decimal) continue;
      const TextRunFile back = round_trip({container, CaptureSet::All, decimal});
      EXPECT_EQ(back.version, 2);
      EXPECT_EQ(back.text, file_.text);
      EXPECT_EQ(back.run.encoding.ids(), file_.run.encoding.ids());
      EXPECT_EQ(back.run.encoding.tokens[2].end, file_.run.encoding.tokens[2].end);
      EXPECT_TRUE(at::equal(back.run.captures.attention, file_.run.captures.attention));
      EXPECT_TRUE(at::equal(back.run.captures.head_outputs, file_.run.captures.head_outputs));
      EXPECT_EQ(back.run.captures.num_layers, 2);
      EXPECT_FALSE(back.analysis->pair_values.defined());  // they follow from the head outputs
      for (size_t k = 0; k < analysis_.heads.size(); ++k)
        EXPECT_EQ(back.analysis->pairs[k].bits(), analysis_.heads[k].pairs.bits());
      EXPECT_EQ(back.analysis->summary["layers"][1]["heads"][0]["stats"]["count"], analysis_.head(1, 0).stats.count);
      expect_pairs_as_analysed(back, 1e-6f);
    }
}

TEST_F(TextRunFileTest, FewerCapturesKeepThePairValues) {
  const TextRunFile attention = round_trip({ResultContainer::Binary, CaptureSet::Attention, false}, "a");
  EXPECT_EQ(attention.captures, CaptureSet::Attention);
  EXPECT_TRUE(at::equal(attention.run.captures.attention, file_.run.captures.attention));
  EXPECT_FALSE(attention.run.captures.head_outputs.defined());
  expect_pairs_as_analysed(attention, 0.0f);
  const TextRunFile none = round_trip({ResultContainer::Json, CaptureSet::None, false}, "n");
  EXPECT_FALSE(none.run.captures.attention.defined());
  EXPECT_EQ(none.run.captures.length, static_cast<int64_t>(file_.run.encoding.size()));
  expect_pairs_as_analysed(none, 0.0f);
}

// Pairs of another matrix than S keep their values even beside the head outputs (from which only
// S's would follow).
TEST_F(TextRunFileTest, PairsOfAnotherMatrixKeepTheirValues) {
  AnalysisSettings s;
  s.pairs_from = PairInput::Attention;
  analysis_ = analyze_text(file_.run.encoding, file_.run.captures, s);
  const TextRunFile back = round_trip({ResultContainer::Binary, CaptureSet::All, false}, "m");
  EXPECT_TRUE(back.analysis->pair_values.defined());
  EXPECT_EQ(back.analysis->summary["settings"]["pairs_from"], "attention");
  expect_pairs_as_analysed(back, 0.0f);
}

// A long text's captures (queries and keys, no maps) round-trip in both containers, with what
// makes its maps again; a capture set the run did not keep is refused, and so is a result over
// its limit, before anything is written, in one line saying what it would need.
TEST_F(TextRunFileTest, ALongTextsQueriesAndKeysRoundTrip) {
  // A short run without the lenses has no queries and keys to write.
  EXPECT_THROW(save_text_run(dir_ / "s.safetensors", file_, &analysis_, {.captures = CaptureSet::QueriesAndKeys}),
               Error);
  file_.run = checkpoint_->run(file_.text, 16, {.kept = KeptAttention::QueriesAndKeys});
  analysis_ = analyze_text(file_.run.encoding, file_.run.captures, {});
  const TextCaptures& c = file_.run.captures;
  ASSERT_FALSE(c.attention.defined());
  for (auto container : {ResultContainer::Binary, ResultContainer::Json}) {
    const TextRunFile back = round_trip({container, CaptureSet::QueriesAndKeys, false}, "q");
    EXPECT_EQ(back.captures, CaptureSet::QueriesAndKeys);
    EXPECT_FALSE(back.run.captures.attention.defined());
    for (const auto& [got, want] : {std::pair{back.run.captures.queries, c.queries},
                                    {back.run.captures.keys, c.keys},
                                    {back.run.captures.column_sums, c.column_sums},
                                    {back.run.captures.head_outputs, c.head_outputs}})
      EXPECT_TRUE(at::equal(got, want));
    EXPECT_FALSE(back.analysis->pair_values.defined());  // they follow from the head outputs
    expect_pairs_as_analysed(back, 1e-6f);
    // Read without its masks: counted where they lie, the same counts; its pairs then refused.
    const auto path = dir_ / (container == ResultContainer::Json ? "q.json" : "q.safetensors");
    const TextRunFile counted = load_text_run(path, {.long_pair_mask_bytes = 0});
    for (size_t k = 0; k < analysis_.heads.size(); ++k) {
      EXPECT_EQ(counted.analysis->pairs[k].tokens(), 0) << "head " << k;
      EXPECT_EQ(counted.analysis->pair_counts[k], analysis_.heads[k].pair_count) << "head " << k;
      EXPECT_EQ(back.analysis->pair_counts[k], analysis_.heads[k].pair_count) << "head " << k;
    }
    EXPECT_THROW(stored_pairs(counted, 1, 0), Error);
    // Read with the first head's alone (its bytes): that head's pairs listed, the next one's refused.
    const TextRunFile first = load_text_run(path, {.long_pair_mask_bytes = back.analysis->pairs[0].stored_bytes()});
    EXPECT_EQ(first.analysis->pairs[0].bits(), back.analysis->pairs[0].bits());
    EXPECT_EQ(first.analysis->pairs[1].tokens(), 0);
    EXPECT_EQ(stored_pairs(first, 0, 0).size(), stored_pairs(back, 0, 0).size());
    EXPECT_THROW(stored_pairs(first, 0, 1), Error);
  }
  const auto how =
      text_run_to_json(file_, &analysis_, {ResultContainer::Json, CaptureSet::QueriesAndKeys})["attention"];
  EXPECT_EQ(how["scale"], 0.5);  // 1 / sqrt(d), d = 4
  EXPECT_EQ(how["causal"], false);
  EXPECT_TRUE(how["local_layers"].empty());
  EXPECT_THROW(save_text_run(dir_ / "a.safetensors", file_, &analysis_, {.captures = CaptureSet::Attention}), Error);
  try {
    save_text_run(dir_ / "big.safetensors", file_, &analysis_,
                  {.captures = CaptureSet::QueriesAndKeys, .limit_bytes = 100});
    ADD_FAILURE() << "a result over its limit was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("B, more than its limit of 100 B"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "big.safetensors"));
}

// What a run will write, reckoned before its forward from the model's shape and the text's length,
// is what it writes but the pairs' values (4 bytes a pair, where written): a result of exactly that
// size is written and one byte less refused, and the same limit refuses it before the run. After
// the run and before anything is made for the file, check_text_run_size says what save_text_run
// will.
void expect_planned_size_written(const TextRunFile& file, const TextAnalysis& analysis, const PlannedResult& plan,
                                 CaptureSet captures, const std::filesystem::path& path) {
  SCOPED_TRACE(std::string(capture_set_name(captures)) + (plan.maps_kept ? ", maps kept" : ", a long text") +
               (plan.lenses ? ", lenses" : ""));
  const double planned = planned_result_bytes(plan, captures);
  double values = 0;
  if (captures == CaptureSet::Attention || captures == CaptureSet::None)
    for (const HeadAnalysis& h : analysis.heads) values += 4.0 * static_cast<double>(h.pair_count);
  ResultWriteOptions o{.captures = captures, .limit_bytes = planned + values};
  EXPECT_NO_THROW(check_planned_result(plan, o));
  EXPECT_NO_THROW(check_text_run_size(file, &analysis, o));
  EXPECT_NO_THROW(save_text_run(path, file, &analysis, o));
  o.limit_bytes -= 1;
  EXPECT_THROW(check_text_run_size(file, &analysis, o), Error);
  EXPECT_THROW(save_text_run(path, file, &analysis, o), Error);
  o.limit_bytes = planned - 1;
  try {
    check_planned_result(plan, o);
    ADD_FAILURE() << "a planned result over its limit passed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("would take at least"), std::string::npos) << e.what();
  }
}

TEST_F(TextRunFileTest, WhatARunWillWriteIsKnownBeforeItsForward) {
  const ModelConfig& config = checkpoint_->model().config();
  const auto tokens = static_cast<int64_t>(file_.run.encoding.size());
  for (const CaptureSet set : {CaptureSet::All, CaptureSet::Attention, CaptureSet::None})
    expect_planned_size_written(file_, analysis_, {&config, tokens, true, false, true}, set, dir_ / "p.safetensors");
  file_.run = checkpoint_->run(file_.text, 16, {.lenses = true});
  analysis_ = analyze_text(file_.run.encoding, file_.run.captures, {});
  for (const CaptureSet set : {CaptureSet::All, CaptureSet::Attention, CaptureSet::QueriesAndKeys})
    expect_planned_size_written(file_, analysis_, {&config, tokens, true, true, true}, set, dir_ / "l.safetensors");
  file_.run = checkpoint_->run(file_.text, 16, {.kept = KeptAttention::QueriesAndKeys});
  analysis_ = analyze_text(file_.run.encoding, file_.run.captures, {});
  const PlannedResult long_text{&config, tokens, false, false, true};
  for (const CaptureSet set : {CaptureSet::QueriesAndKeys, CaptureSet::None})
    expect_planned_size_written(file_, analysis_, long_text, set, dir_ / "q.safetensors");
  EXPECT_EQ(written_captures(CaptureSet::All, false), CaptureSet::QueriesAndKeys);
  EXPECT_EQ(written_captures(CaptureSet::All, true), CaptureSet::All);
  // A capture set the run will not keep is refused before it, as after.
  EXPECT_THROW(check_planned_result(long_text, {.captures = CaptureSet::Attention}), Error);
  EXPECT_THROW(check_planned_result({&config, tokens, true, false, true}, {.captures = CaptureSet::QueriesAndKeys}),
               Error);
}

// A decoder with grouped queries keeps one key per key head: reckoned so.
TEST(TextRunFilePlan, ADecodersKeysAreOnePerKeyHead) {
  const auto ids = test::golden("decoder_head_roles.json")["mistral"]["ids"].get<std::vector<int64_t>>();
  const auto model = Transformer::load(test::golden_dir() / "decoders" / "mistral", test::test_device());
  ASSERT_LT(model->config().kv_heads(), model->config().num_heads);
  test::TempDir dir;
  TextRunFile file;
  file.model_config = model->config().to_json();
  for (const int64_t id : ids) file.run.encoding.tokens.push_back({.id = static_cast<int32_t>(id), .text = "t"});
  file.run.encoding.full_length = ids.size();
  const auto tokens = static_cast<int64_t>(ids.size());
  file.run.captures = text_captures(model->forward({ids}, {.kept = KeptAttention::QueriesAndKeys}), 0, true);
  const TextAnalysis analysis = analyze_text(file.run.encoding, file.run.captures, {});
  expect_planned_size_written(file, analysis, {&model->config(), tokens, false, false, true},
                              CaptureSet::QueriesAndKeys, dir.path() / "q.safetensors");
  file.run.captures = text_captures(model->forward({ids}, {.lenses = true}), 0, true);
  const TextAnalysis with_maps = analyze_text(file.run.encoding, file.run.captures, {});
  expect_planned_size_written(file, with_maps, {&model->config(), tokens, true, true, true}, CaptureSet::All,
                              dir.path() / "a.safetensors");
}

TEST_F(TextRunFileTest, TheBinaryFileIsTheRawCapturesAndADocument) {
  save_text_run(dir_ / "r.safetensors", file_, &analysis_, {});
  const SafetensorsFile f(dir_ / "r.safetensors");
  EXPECT_EQ(f.metadata().at("format"), "attnscope.text-run");
  EXPECT_EQ(f.metadata().at("version"), "2");
  const int64_t raw = file_.run.captures.attention.nbytes() + file_.run.captures.head_outputs.nbytes();
  const int64_t masks = f.find("pair_mask")->size;
  const auto size = static_cast<int64_t>(std::filesystem::file_size(dir_ / "r.safetensors"));
  // No encoding overhead: the header (with the document) is all that comes on top.
  EXPECT_LE(size, raw + masks + static_cast<int64_t>(f.metadata().at("document").size()) + 2048);
  EXPECT_EQ(f.find("attention")->shape, (std::vector<int64_t>{2, 2, static_cast<int64_t>(file_.run.encoding.size()),
                                                              static_cast<int64_t>(file_.run.encoding.size())}));
}

TEST(TextRunFileV1, OldFilesStillLoadWithTheirCaptures) {
  const Checkpoint& minilm = test::minilm_checkpoint();
  for (const char* name : {"base64.json", "decimal.json"}) {
    const TextRunFile old = load_text_run(test::golden_dir() / "result_v1" / name);
    EXPECT_EQ(old.version, 1);
    EXPECT_FALSE(old.analysis);
    const TextRun fresh = minilm.run(old.text, old.max_length);
    EXPECT_EQ(old.run.encoding.ids(), fresh.encoding.ids()) << name;
    EXPECT_TRUE(at::allclose(old.run.captures.attention, fresh.captures.attention, 1e-5, 1e-6)) << name;
    EXPECT_TRUE(at::allclose(old.run.captures.head_outputs, fresh.captures.head_outputs, 1e-4, 1e-5)) << name;
  }
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TextRunFileV1, DamagedFilesNameWhatIsWrong) {
  const nlohmann::json good = test::read_json(test::golden_dir() / "result_v1" / "base64.json");
  const auto error = [&](const std::function<void(nlohmann::json&)>& damage) {
    nlohmann::json j = good;
    damage(j);
    const std::string text = j.dump();
    return error_of([&] { text_run_from_bytes(std::as_bytes(std::span(text)), "r.json"); });
  };
  EXPECT_NE(error([](auto&) {}).find("(no error)"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["format"] = "other"; }).find("not an attnscope result"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["format"] = nlohmann::json::array(); }).find("not an attnscope result"),
            std::string::npos);
  EXPECT_NE(error([](auto& j) { j["version"] = 9; }).find("version 9"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j.erase("tokens"); }).find("missing \"tokens\""), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["tokens"][1]["id"] = "x"; }).find("tokens[1]: \"id\" must be an integer"),
            std::string::npos);
  // Numbers that do not fit their field are refused, not converted (undefined behaviour in nlohmann).
  EXPECT_NE(error([](auto& j) { j["max_length"] = 1e30; }).find("\"max_length\" must be an integer"),
            std::string::npos);
  EXPECT_NE(error([](auto& j) { j["tokens"][1]["begin"] = -4; }).find("\"begin\" is out of range"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["layers"].erase(1); }).find("6 layers"), std::string::npos);
  EXPECT_NE(
      error([](auto& j) { j["layers"][0]["heads"][1]["attention"]["rows"] = 3; }).find("layers[0].heads[1].attention"),
      std::string::npos);
  EXPECT_NE(error([](auto& j) { j["layers"][1]["heads"][0]["output"]["data"] = "AAAA"; }).find("bytes, expected"),
            std::string::npos);
  EXPECT_NE(error([](auto& j) { j["layers"][1]["heads"][0]["output"]["data"] = "A?AA"; }).find("invalid character"),
            std::string::npos);
  EXPECT_NE(
      error([](auto& j) { j["layers"][1]["heads"][0]["output"]["encoding"] = "hex"; }).find("unknown matrix encoding"),
      std::string::npos);
  EXPECT_NE(error([](auto& j) {
              j["layers"][0]["heads"][0]["attention"]["data"] = 1e300;
            }).find("layers[0].heads[0].attention"),
            std::string::npos);
  EXPECT_NE(error([](auto& j) { j["model"]["config"]["num_attention_heads"] = 0; }).find("model.config"),
            std::string::npos);
}

// The head roles a file keeps come back as written, their scores equal to the ones computed (null
// where undefined), in both containers.
TEST_F(TextRunFileTest, HeadRolesRoundTrip) {
  const HeadRoleScores scores = text_head_roles(*checkpoint_, file_.run, {.induction = false});
  file_.head_roles = head_roles_to_json(scores, {}, 50);
  for (auto container : {ResultContainer::Binary, ResultContainer::Json}) {
    const TextRunFile back = round_trip({container, CaptureSet::None}, "roles");
    ASSERT_FALSE(back.head_roles.is_null());
    const HeadRoleScores read = head_roles_from_json(back.head_roles, 2, 2, "r");
    for (const HeadRole role : kHeadRoles)
      for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h) EXPECT_EQ(read.score(role, l, h), scores.score(role, l, h));
  }
  file_.head_roles = nullptr;
  EXPECT_TRUE(round_trip({}, "no-roles").head_roles.is_null());
}

TEST_F(TextRunFileTest, DamagedVersion2FilesNameWhatIsWrong) {
  const nlohmann::json good = text_run_to_json(file_, &analysis_, {ResultContainer::Json, CaptureSet::All, true});
  const auto error = [&](const std::function<void(nlohmann::json&)>& damage) {
    nlohmann::json j = good;
    damage(j);
    const std::string text = j.dump();
    return error_of([&] { text_run_from_bytes(std::as_bytes(std::span(text)), "r.json"); });
  };
  EXPECT_EQ(error([](auto&) {}), "(no error)");
  EXPECT_NE(error([](auto& j) { j["version"] = 3; }).find("version 3 is not supported"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["captures"] = "some"; }).find("unknown captures"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["tensors"].erase("head_outputs"); }).find("\"head_outputs\" is missing"),
            std::string::npos);
  EXPECT_NE(error([](auto& j) { j["tensors"]["attention"]["shape"][2] = 3; }).find("tensors.attention: shape"),
            std::string::npos);
  EXPECT_NE(error([](auto& j) { j["tensors"]["attention"]["data"][0] = 1e300; }).find("out of float range"),
            std::string::npos);
  EXPECT_NE(error([](auto& j) { j["tensors"]["pair_mask"]["dtype"] = "float32"; }).find("expected a uint8 tensor"),
            std::string::npos);
  EXPECT_NE(error([](auto& j) { j["analysis"]["layers"].erase(0); }).find("must list 2 layers"), std::string::npos);
  EXPECT_NE(error([](auto& j) {
              j["analysis"]["layers"][0]["heads"][1]["scale"] = "big";
            }).find("\"scale\" must be a number"),
            std::string::npos);
  EXPECT_NE(error([](auto& j) {
              j["head_roles"] = {{"layers", nlohmann::json::array()}};
            }).find("must list 2 layers"),
            std::string::npos);
  EXPECT_NE(error([](auto& j) {
              j["head_roles"] = {{"layers",
                                  {{{"heads", {{{"scores", {{"broad", "x"}}}}, {{"scores", {}}}}}},
                                   {{"heads", {{{"scores", {}}}, {{"scores", {}}}}}}}}};
            }).find("a score must be a number"),
            std::string::npos);

  // The binary container: a cut file, another safetensors file, a wrong tensor.
  save_text_run(dir_ / "r.safetensors", file_, &analysis_, {});
  std::ifstream in(dir_ / "r.safetensors", std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  const auto binary_error = [&](const std::string& b) {
    return error_of([&] { text_run_from_bytes(std::as_bytes(std::span(b)), "r.safetensors"); });
  };
  EXPECT_EQ(binary_error(bytes), "(no error)");
  EXPECT_NE(binary_error(bytes.substr(0, bytes.size() - 10)).find("outside the"), std::string::npos);
  EXPECT_NE(binary_error(bytes.substr(0, 5)).find("too short"), std::string::npos);
  EXPECT_NE(error_of([&] { load_text_run(dir_ / "model" / "model.safetensors"); }).find("not an attnscope result"),
            std::string::npos);
  std::string renamed = bytes;
  renamed.replace(renamed.find("\"head_outputs\""), 14, "\"head_outputz\"");
  EXPECT_NE(binary_error(renamed).find("\"head_outputs\" is missing"), std::string::npos);
  EXPECT_NE(error_of([&] { load_text_run(dir_ / "absent.safetensors"); }).find("no such file"), std::string::npos);
  test::write_text(dir_ / "empty", "");
  EXPECT_NE(error_of([&] { load_text_run(dir_ / "empty"); }).find("empty"), std::string::npos);
}

}  // namespace
}  // namespace attnscope
