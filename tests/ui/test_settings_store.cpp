// Settings survive a restart; a bad settings file never stops the explorer from starting.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/error.h"
#include "settings_store.h"
#include "support/paths.h"

namespace attnscope::ui {
namespace {

TEST(SettingsStore, RoundTrip) {
  const test::TempDir dir;
  Settings s;
  s.model = "/models/bert";
  s.recent_models = {"/models/bert", "bert-base-uncased"};
  s.analysis.tau = 0.4;
  s.analysis.tau_sep = 0.6;
  s.analysis.include_special = false;
  s.analysis.sentences = SentenceMode::Segments;
  s.view.view = View::Pairs;
  s.view.matrix = MatrixKind::Cosine;
  s.view.layers_matrix = MatrixKind::Rollout;
  s.view.rollout_of_norm = true;
  s.view.head_roles = true;
  s.view.colormap = ColormapId::Magma;
  s.view.scale = ValueScale::Log;
  s.view.presentation = true;
  s.window_width = 1000;
  s.window_height = 700;
  save_settings(dir / "deep" / "settings.json", s);
  const LoadedSettings back = load_settings(dir / "deep" / "settings.json");
  EXPECT_TRUE(back.warning.empty()) << back.warning;
  EXPECT_EQ(back.settings.model, s.model);
  EXPECT_EQ(back.settings.recent_models, s.recent_models);
  EXPECT_EQ(back.settings.analysis.tau, 0.4);
  EXPECT_EQ(back.settings.analysis.tau_sep, 0.6);
  EXPECT_FALSE(back.settings.analysis.include_special);
  EXPECT_EQ(back.settings.analysis.sentences, SentenceMode::Segments);
  EXPECT_EQ(back.settings.view.view, View::Pairs);
  EXPECT_EQ(back.settings.view.matrix, MatrixKind::Cosine);
  EXPECT_EQ(back.settings.view.layers_matrix, MatrixKind::Rollout);
  EXPECT_TRUE(back.settings.view.rollout_of_norm);
  EXPECT_TRUE(back.settings.view.head_roles);
  EXPECT_EQ(back.settings.view.colormap, ColormapId::Magma);
  EXPECT_EQ(back.settings.view.scale, ValueScale::Log);
  EXPECT_TRUE(back.settings.view.presentation);
  EXPECT_EQ(back.settings.window_width, 1000);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "deep")) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);  // no temporary file left behind
}

TEST(SettingsStore, MissingFileGivesTheDefaultsQuietly) {
  const test::TempDir dir;
  const LoadedSettings s = load_settings(dir / "none.json");
  EXPECT_TRUE(s.warning.empty());
  EXPECT_EQ(s.settings.analysis.tau, 0.3);
  EXPECT_EQ(s.settings.view.view, View::Grid);
}

TEST(SettingsStore, BadFilesGiveTheDefaultsAndSayWhy) {
  const test::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{not json", "settings not used"},
      {"[1, 2]", "not a JSON object"},
      {R"({"tau": "high"})", "settings not used"},
      {R"({"tau": 3})", "tau"},
      {R"({"view": "everything"})", "unknown view"},
      {R"({"colormap": "jet"})", "unknown colormap"},
      {R"({"window": [10, 10]})", "window"},
      {R"({"window": [1e30, 500]})", "window"},
      {R"({"max_length": -3})", "max_length"},
      {"", "settings not used"},
  };
  for (const auto& [content, needle] : cases) {
    test::write_text(dir / "s.json", content);
    const LoadedSettings s = load_settings(dir / "s.json");
    EXPECT_NE(s.warning.find(needle), std::string::npos) << content << " -> " << s.warning;
    EXPECT_EQ(s.settings.analysis.tau, 0.3) << content;
  }
}

TEST(SettingsStore, DefaultPathFollowsXdgConfigHome) {
  const char* old = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_CONFIG_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(default_settings_path(), std::filesystem::path("/tmp/xdg-test/attnscope/settings.json"));
  unsetenv("XDG_CONFIG_HOME");
  EXPECT_EQ(default_settings_path().filename(), "settings.json");
  EXPECT_NE(default_settings_path().string().find(".config/attnscope"), std::string::npos);
  if (old) setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
}

TEST(SettingsStore, UnwritableFolderIsAnError) {
  const test::TempDir dir;
  test::write_text(dir / "file", "x");
  EXPECT_THROW(save_settings(dir / "file" / "settings.json", Settings{}), Error);
}

}  // namespace
}  // namespace attnscope::ui
