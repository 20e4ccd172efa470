// attnscope-cli next: a decoder's most likely next tokens, opened from its GGUF file, as a table and
// JSON (the same as transformers' for that text: tests/model/test_gguf_decoders.cpp), a long text's
// the same without its maps; an encoder is refused in one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "support/paths.h"

namespace attnscope {
namespace {

using namespace test;

TEST_F(Cli, NextTokensOfADecoderAsTableAndJson) {
  const nlohmann::json golden = read_json(golden_dir() / "gguf" / "smollm2_decoder.json");
  const auto model = real_model_file(golden["file"].get<std::string>());
  if (!std::filesystem::exists(model)) return;
  const std::vector<std::string> base = {"next", "--model", model.string(), "--text", golden["text"], "--top", "3"};
  const Outcome table = run_cli(base);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("after 19 tokens, the 3 most likely next"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("   1      0.3032      909  He\n"), std::string::npos) << table.out;
  std::vector<std::string> json_args = base;
  json_args.push_back("--json");
  const Outcome json = run_cli(json_args);
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["next"].size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(j["next"][k]["id"], golden["next_tokens"]["ids"][k]) << k;
  EXPECT_EQ(j["next"][0]["piece"], "ĠHe");
  // A text past --maps-up-to keeps its queries and keys, not its maps (SmolLM2's at 8,192 tokens
  // would take 72 GB): its forward runs block by block of rows, and the same probabilities come out.
  std::vector<std::string> long_args = json_args;
  long_args.insert(long_args.end(), {"--maps-up-to", "4"});
  const Outcome long_text = run_cli(long_args);
  ASSERT_EQ(long_text.status, 0) << long_text.err;
  EXPECT_EQ(long_text.out, json.out);
}

// tokenize on a GGUF file reads the file's own vocabulary (the weights are not needed): the ids
// transformers gives for the golden text, with each piece's bytes in the text.
TEST_F(Cli, TokenizeADecodersGgufFile) {
  const nlohmann::json golden = read_json(golden_dir() / "gguf" / "smollm2_decoder.json");
  const auto model = real_model_file(golden["file"].get<std::string>());
  if (!std::filesystem::exists(model)) return;
  const std::string text = golden["text"];
  for (const auto& given : {model, model.parent_path()}) {  // the file, or the folder holding it
    const Outcome o = run_cli({"tokenize", "--model", given.string(), "--text", text, "--json"});
    ASSERT_EQ(o.status, 0) << o.err;
    const nlohmann::json j = nlohmann::json::parse(o.out);
    std::vector<int64_t> ids;
    for (const auto& t : j["tokens"]) ids.push_back(t["id"]);
    EXPECT_EQ(ids, golden["ids"].get<std::vector<int64_t>>()) << given;
    EXPECT_EQ(j["tokens"][0]["begin"], 0);
    EXPECT_EQ(j["tokens"][0]["end"], std::string_view("Across").size());
  }
}

TEST_F(Cli, NextRefusesAnEncoder) {
  const Outcome encoder = run_cli({"next", "--model", tiny(), "--text", "a b"});
  EXPECT_NE(encoder.status, 0);
  EXPECT_NE(encoder.err.find("only decoders"), std::string::npos) << encoder.err;
}

}  // namespace
}  // namespace attnscope
