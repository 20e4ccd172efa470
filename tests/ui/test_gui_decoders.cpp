// The real window on a real decoder (SmolLM2-135M-Instruct from its GGUF file): every view renders,
// the key N appends the model's most likely next token and analyses again, as a class watching the
// model write would press it (the text it writes is the one the core predicts), typing at the
// text's end continues the runs before, and the overview's role grid colours each head by its role.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gui_window.h"
#include "model/checkpoint.h"
#include "model/next_tokens.h"
#include "tokenizer/piece_text.h"

namespace attnscope {
namespace {

std::filesystem::path smollm2() {
  return test::real_model_file("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf");
}

TEST_F(Gui, EveryViewOfADecoderRendersSomething) {
  const std::string model = smollm2().string();
  if (!std::filesystem::exists(model)) return;  // real_model_file said how to fetch it
  expect_every_view_drawn("decoder", model, 4);
}

// N twice: the text grows by the two tokens the model finds most likely, each predicted after the
// one before was appended (what attnscope-cli next reports, written as the piece's text).
TEST_F(Gui, TheKeyNAppendsTheMostLikelyNextToken) {
  const auto model = smollm2();
  if (!std::filesystem::exists(model)) return;  // real_model_file said how to fetch it
  const std::string start = "The lighthouse keeper climbed the stairs and";
  shot("decoder-next", {"--model", model.string(), "--text", start, "--keys", "nn"}, false);
  const std::string out = slurp(dir_ / "out");
  const auto printed = nlohmann::json::parse(out.substr(out.find('{')));
  const auto checkpoint = Checkpoint::load(model.string(), ComputeDevice{});
  std::string expected = start;
  for (int k = 0; k < 2; ++k) {
    const TextRun run = checkpoint->run(expected, checkpoint->default_max_length());
    const std::vector<NextToken> next = next_tokens(checkpoint->model(), run.captures, 1);
    expected += written_piece(checkpoint->tokenizer().piece(next.front().id));
  }
  EXPECT_GT(expected.size(), start.size());
  EXPECT_EQ(printed["text"], expected) << out;
}

// Typed at its end, a decoder's text is written on: each run the window makes continues from the
// one before it (the earlier tokens' layers taken from it), and the views end on the text as it
// stands. The first burst comes once the text's first run is shown (TypingBenchOptions::
// after_first_run), but a burst's first run may still have nothing shown to continue from, so the
// first is not counted. Typed at its start, the first key changes the first token and nothing of
// the text is taken; each later burst follows the ones before (the cursor moves on), so it may
// share the start token and the words they typed (a word and its space, two tokens at most).
TEST_F(Gui, TypingAtTheEndOfADecodersTextContinuesItsRuns) {
  const auto model = smollm2();
  if (!std::filesystem::exists(model)) return;
  const std::string text =
      "The lighthouse keeper climbed the stairs each evening, trimmed the wick, and watched the ships pass the "
      "rocks below";  // 21 tokens
  for (const std::string place : {"end", "start"}) {
    SCOPED_TRACE(place);
    run_explorer(
        {"--model", model.string(), "--text", text, "--view", "grid", "--bench-typing", "3", "--typing-at", place},
        false);
    const auto report = nlohmann::json::parse(slurp(dir_ / "out"));
    EXPECT_EQ(report["typed_at"], place) << report;
    EXPECT_EQ(report["bursts"], 3) << report;
    EXPECT_TRUE(report["last_text_shown"].get<bool>()) << report;
    const auto continued = report["tokens_continued"].get<std::vector<double>>();
    ASSERT_GE(continued.size(), 3u) << report;  // one analysis shown a burst at least
    for (size_t k = 0; k < continued.size(); ++k)
      if (place == "start")
        EXPECT_LE(continued[k], 2 + 2 * static_cast<double>(k)) << k << "\n" << report;
      else if (k > 0)
        // Of its 21 tokens, all but the last (which the typed letters join) and the few rows a
        // continued run always makes again (kFewestBlockRows).
        EXPECT_GE(continued[k], 15) << k << "\n" << report;
  }
}

// The role grid: SmolLM2's many sink heads show in the first-token role's colour (Okabe-Ito's
// green, in no colormap of the thumbnails), and only when the grid is asked for.
TEST_F(Gui, TheRoleGridColoursEachHeadByItsRole) {
  const auto model = smollm2();
  if (!std::filesystem::exists(model)) return;
  const auto sink_cells = [](const Image& img) {
    size_t n = 0;
    for (int y = 0; y < img.h; ++y)
      for (int x = 0; x < img.w; ++x) {
        const unsigned char* p = img.at(x, y);
        n += p[0] == 0 && p[1] == 158 && p[2] == 115;
      }
    return n;
  };
  const std::vector<std::string> args = {"--model", model.string(), "--file", text_, "--view", "grid"};
  std::vector<std::string> with_roles = args;
  with_roles.push_back("--head-roles");
  EXPECT_GT(sink_cells(shot("roles", with_roles, false)), 500u);
  EXPECT_EQ(sink_cells(shot("no-roles", args, false)), 0u);
}

}  // namespace
}  // namespace attnscope
