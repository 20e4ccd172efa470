// core/ is layered (core/README.md): a folder includes only itself and the folders listed before
// it in the README's table. This test reads that table and every include of core/, so the order
// written for people and the order checked are the same text.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "support/paths.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

// The folders in the order of the README's table rows "| `name/` | ... |", bottom layer first.
std::vector<std::string> layers_from_readme(const fs::path& readme) {
  std::ifstream in(readme);
  const std::regex row(R"(^\|\s*`([a-z_]+)/`\s*\|)");
  std::vector<std::string> layers;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) layers.push_back(m[1]);
  }
  return layers;
}

struct Include {
  std::string file;  // relative to core/
  int line = 0;
  std::string folder;
  std::string text;
};

// Every `#include "folder/..."` of the files under core/folder.
std::vector<Include> includes_of(const fs::path& core, const std::string& folder) {
  const std::regex include(R"(^\s*#\s*include\s*"([a-z_]+)/)");
  std::vector<Include> found;
  for (const auto& entry : fs::recursive_directory_iterator(core / folder)) {
    const auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
    std::ifstream in(entry.path());
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      std::smatch m;
      if (std::regex_search(line, m, include))
        found.push_back({fs::relative(entry.path(), core).string(), number, m[1], line});
    }
  }
  return found;
}

int rank_of(const std::vector<std::string>& layers, const std::string& folder) {
  const auto it = std::find(layers.begin(), layers.end(), folder);
  return it == layers.end() ? -1 : static_cast<int>(it - layers.begin());
}

TEST(CoreLayers, TheReadmeListsEveryFolderOfCoreOnce) {
  const fs::path core = test::source_dir() / "core";
  const auto layers = layers_from_readme(core / "README.md");
  ASSERT_GE(layers.size(), 5u) << "core/README.md has no table of layers";
  for (const auto& entry : fs::directory_iterator(core)) {
    if (!entry.is_directory()) continue;
    const std::string folder = entry.path().filename().string();
    EXPECT_EQ(std::count(layers.begin(), layers.end(), folder), 1)
        << "core/" << folder << "/ must be listed exactly once in core/README.md's table of layers";
  }
  for (const auto& folder : layers) EXPECT_TRUE(fs::is_directory(core / folder)) << "core/README.md lists " << folder;
}

TEST(CoreLayers, NoIncludeRunsUpward) {
  const fs::path core = test::source_dir() / "core";
  const auto layers = layers_from_readme(core / "README.md");
  for (const auto& folder : layers) {
    for (const auto& inc : includes_of(core, folder)) {
      const int to = rank_of(layers, inc.folder);
      if (to < 0) continue;  // not a folder of core/ (a system or third-party path)
      EXPECT_LE(to, rank_of(layers, folder)) << "core/" << inc.file << ":" << inc.line << " includes " << inc.folder
                                             << "/, a layer above " << folder << "/ (core/README.md): " << inc.text;
    }
  }
}

// The check itself: an include that runs upward in a scratch tree is found and named.
TEST(CoreLayers, AnUpwardIncludeIsFound) {
  test::TempDir dir;
  fs::create_directories(dir.path() / "low");
  fs::create_directories(dir.path() / "high");
  test::write_text(dir / "low/a.h", "#pragma once\n#include \"high/b.h\"\n");
  test::write_text(dir / "high/b.h", "#pragma once\n#include \"low/a.h\"\n");
  const std::vector<std::string> layers{"low", "high"};
  const auto low = includes_of(dir.path(), "low");
  ASSERT_EQ(low.size(), 1u);
  EXPECT_EQ(low[0].file, "low/a.h");
  EXPECT_EQ(low[0].line, 2);
  EXPECT_GT(rank_of(layers, low[0].folder), rank_of(layers, "low"));
  const auto high = includes_of(dir.path(), "high");
  ASSERT_EQ(high.size(), 1u);
  EXPECT_LT(rank_of(layers, high[0].folder), rank_of(layers, "high"));
}

}  // namespace
}  // namespace attnscope
