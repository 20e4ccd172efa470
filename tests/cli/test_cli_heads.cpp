// attnscope-cli heads: the table, CSV and JSON of the head roles, and its bad options. The scores
// themselves are checked against the independent reference in tests/analysis/test_head_roles.cpp
// and tests/pipeline/test_text_head_roles.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace attnscope {
namespace {

using namespace test;

TEST_F(Cli, HeadsAsTableCsvAndJson) {
  // The tiny model has 16 positions: a probe of 5 tokens repeated twice fits.
  const std::vector<std::string> base = {"heads", "--model", tiny(), "--text", "the cat the cat", "--induction-period",
                                         "5"};
  const Outcome table = run_cli(base);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("induction"), std::string::npos);
  EXPECT_NE(table.out.find("model: sink rate"), std::string::npos);
  std::vector<std::string> csv_args = base;
  csv_args.push_back("--csv");
  const Outcome csv = run_cli(csv_args);
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind(
                "layer,head,previous token,next token,first token,end token,duplicate token,induction,broad,role", 0),
            0u);
  std::vector<std::string> json_args = base;
  json_args.push_back("--json");
  const Outcome json = run_cli(json_args);
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_FALSE(j["layers"].empty());
  const auto& scores = j["layers"][0]["heads"][0]["scores"];
  EXPECT_TRUE(scores["duplicate token"].is_number());  // "the" and "cat" repeat
  EXPECT_TRUE(scores["induction"].is_number());
  EXPECT_GE(scores["broad"].get<double>(), 0.0);
  EXPECT_LE(scores["broad"].get<double>(), 1.0);
}

// analyze keeps the head roles in its result, the same as heads --json gives for the text (the tiny
// model's 16 positions do not hold the probe: induction is left out by both).
TEST_F(Cli, AnalyzeKeepsTheHeadRolesHeadsGives) {
  const std::vector<std::string> text = {"--model", tiny(), "--text", "the cat the cat", "--max-len", "16"};
  std::vector<std::string> analyze = {"analyze", "--out", "-", "--captures", "none"};
  analyze.insert(analyze.end(), text.begin(), text.end());
  std::vector<std::string> heads = {"heads", "--json", "--no-induction"};
  heads.insert(heads.end(), text.begin(), text.end());
  const Outcome a = run_cli(analyze), h = run_cli(heads);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(h.status, 0) << h.err;
  const nlohmann::json kept = nlohmann::json::parse(a.out)["head_roles"];
  EXPECT_EQ(kept, nlohmann::json::parse(h.out));
  EXPECT_TRUE(kept["layers"][0]["heads"][0]["scores"]["induction"].is_null());
  EXPECT_TRUE(kept["layers"][0]["heads"][0]["scores"]["previous token"].is_number());
}

TEST_F(Cli, HeadsRefusesWhatCannotBe) {
  const Outcome both = run_cli({"heads", "--model", tiny(), "--text", "a b", "--csv", "--json"});
  EXPECT_NE(both.status, 0);
  EXPECT_NE(both.err.find("choose one"), std::string::npos);
  const Outcome long_probe = run_cli({"heads", "--model", tiny(), "--text", "a b", "--induction-period", "50"});
  EXPECT_NE(long_probe.status, 0);
  EXPECT_NE(long_probe.err.find("does not fit"), std::string::npos) << long_probe.err;
}

}  // namespace
}  // namespace attnscope
