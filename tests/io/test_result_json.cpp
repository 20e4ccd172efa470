// The result file of `analyze`: written, read back equal, and refused with a message when damaged.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>

#include "error.h"
#include "io/result_json.h"
#include "support/paths.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

class ResultJson : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_tiny_bert(dir_.path() / "model", {});
    checkpoint_ = Checkpoint::load(dir_.path() / "model", select_device("cpu"));
    file_ = {(dir_.path() / "model").string(), checkpoint_->model().config().to_json(), "cpu float32", "The cat sat.", 16,
             checkpoint_->run("The cat sat.", 16)};
  }
  test::TempDir dir_;
  std::shared_ptr<const Checkpoint> checkpoint_;
  TextRunFile file_;
};

TEST_F(ResultJson, RoundTripsExactlyInBothEncodings) {
  for (auto encoding : {MatrixEncoding::Base64, MatrixEncoding::Decimal}) {
    save_text_run(dir_ / "r.json", file_, encoding);
    const TextRunFile back = load_text_run(dir_ / "r.json");
    EXPECT_EQ(back.text, file_.text);
    EXPECT_EQ(back.run.encoding.ids(), file_.run.encoding.ids());
    EXPECT_EQ(back.run.encoding.tokens[1].end, file_.run.encoding.tokens[1].end);
    EXPECT_TRUE(at::equal(back.run.captures.attention, file_.run.captures.attention));
    EXPECT_TRUE(at::equal(back.run.captures.head_outputs, file_.run.captures.head_outputs));
    EXPECT_EQ(back.run.captures.num_layers, 2);
  }
}

TEST_F(ResultJson, DecimalEntriesBeyondFloatAreRefused) {
  nlohmann::json j = text_run_to_json(file_, MatrixEncoding::Decimal);
  j["layers"][0]["heads"][0]["attention"]["data"][0][0] = 1e300;
  try {
    text_run_from_json(j, "r.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out of float range"), std::string::npos) << e.what();
  }
}

TEST_F(ResultJson, DamagedFilesNameWhatIsWrong) {
  const nlohmann::json good = text_run_to_json(file_, MatrixEncoding::Base64);
  const auto error = [&](const std::function<void(nlohmann::json&)>& damage) {
    nlohmann::json j = good;
    damage(j);
    try {
      text_run_from_json(j, "r.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error([](auto& j) { j["format"] = "other"; }).find("not an attnscope result"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["format"] = nlohmann::json::array(); }).find("not an attnscope result"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["version"] = 9; }).find("version 9"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j.erase("tokens"); }).find("missing \"tokens\""), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["tokens"][1]["id"] = "x"; }).find("tokens[1]: \"id\" must be an integer"), std::string::npos);
  // Numbers that do not fit their field are refused, not converted (undefined behaviour in nlohmann).
  EXPECT_NE(error([](auto& j) { j["max_length"] = 1e30; }).find("\"max_length\" must be an integer"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["tokens"][1]["begin"] = -4; }).find("\"begin\" is out of range"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["layers"].erase(1); }).find("2 layers"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["layers"][0]["heads"][1]["attention"]["rows"] = 3; }).find("layers[0].heads[1].attention"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["layers"][1]["heads"][0]["output"]["data"] = "AAAA"; }).find("bytes, expected"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["layers"][1]["heads"][0]["output"]["data"] = "A?AA"; }).find("invalid character"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["layers"][1]["heads"][0]["output"]["encoding"] = "hex"; }).find("unknown matrix encoding"), std::string::npos);
  EXPECT_NE(error([](auto& j) { j["model"]["config"]["num_attention_heads"] = 0; }).find("model.config"), std::string::npos);
}

TEST_F(ResultJson, FilesThatAreMissingOrNotJson) {
  EXPECT_THROW(load_text_run(dir_ / "absent.json"), Error);
  test::write_text(dir_ / "bad.json", "{\"format\": ");
  EXPECT_THROW(load_text_run(dir_ / "bad.json"), Error);
  test::write_text(dir_ / "empty.json", "");
  EXPECT_THROW(load_text_run(dir_ / "empty.json"), Error);
}

}  // namespace
}  // namespace attnscope
