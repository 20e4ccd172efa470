#pragma once
// The real window under Xvfb for the GUI tests: the explorer run with arguments to a screenshot,
// the PNG read back, and the measures every GUI test reads (coloured share, distinct colours).
#include <gtest/gtest.h>

#include <stb_image.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "support/paths.h"

namespace attnscope {

inline constexpr int kWidth = 1280, kHeight = 1100;

struct Image {
  int w = 0, h = 0;
  std::vector<unsigned char> rgb;
  const unsigned char* at(int x, int y) const { return &rgb[3 * (static_cast<size_t>(y) * w + x)]; }
  // Coloured, as colormap cells are; text, UI greys and the white figure background are not.
  bool saturated(int x, int y) const {
    const unsigned char* p = at(x, y);
    return std::max({p[0], p[1], p[2]}) - std::min({p[0], p[1], p[2]}) > 40;
  }
};

inline std::string quote(const std::string& s) { return "'" + s + "'"; }

// Share of pixels that are not the window's background or plain UI greys.
inline double coloured_share(const Image& img) {
  size_t n = 0;
  for (int y = 0; y < img.h; ++y)
    for (int x = 0; x < img.w; ++x) n += img.saturated(x, y);
  return static_cast<double>(n) / (static_cast<double>(img.w) * img.h);
}

inline size_t distinct_colours(const Image& img) {
  std::vector<bool> seen(1 << 18, false);
  size_t n = 0;
  for (size_t k = 0; k + 2 < img.rgb.size(); k += 3) {
    const size_t key = (img.rgb[k] >> 2) << 12 | (img.rgb[k + 1] >> 2) << 6 | (img.rgb[k + 2] >> 2);
    if (!seen[key]) n += (seen[key] = true);
  }
  return n;
}

class Gui : public ::testing::Test {
 protected:
  // Runs the explorer to a screenshot; returns the decoded image.
  Image shot(const std::string& name, const std::vector<std::string>& args, bool with_model = true, int width = kWidth,
             int height = kHeight) {
    const auto png = dir_ / (name + ".png");
    std::vector<std::string> all = {"--width",      std::to_string(width), "--height", std::to_string(height),
                                    "--screenshot", png.string()};
    all.insert(all.end(), args.begin(), args.end());
    run_explorer(all, with_model);
    return read_png(png);
  }

  static Image read_png(const std::filesystem::path& png) {
    Image img;
    int channels = 0;
    unsigned char* data = stbi_load(png.c_str(), &img.w, &img.h, &channels, 3);
    if (!data) {
      ADD_FAILURE() << "no screenshot at " << png;
      return img;
    }
    img.rgb.assign(data, data + static_cast<size_t>(img.w) * img.h * 3);
    stbi_image_free(data);
    return img;
  }

  // Several views of one window and one analysis (--then-views): a screenshot of each, in order.
  std::vector<Image> shots(const std::string& name, const std::vector<std::string>& views,
                           const std::vector<std::string>& args, bool with_model = true, int width = kWidth,
                           int height = kHeight) {
    std::vector<std::string> all = {"--view", views.front()};
    if (views.size() > 1) {
      std::string then;
      for (size_t v = 1; v < views.size(); ++v) then += (v > 1 ? "," : "") + views[v];
      all.insert(all.end(), {"--then-views", then});
    }
    all.insert(all.end(), args.begin(), args.end());
    std::vector<Image> images = {shot(name, all, with_model, width, height)};
    for (size_t v = 1; v < views.size(); ++v) images.push_back(read_png(dir_ / (name + "-" + views[v] + ".png")));
    return images;
  }

  // Every figure view of `model` (a folder or file, layer 1 or more) on the classroom text, in one
  // window: each picture drawn (colours, not a blank pane), nothing cut.
  void expect_every_view_drawn(const std::string& name, const std::string& model, int layer) {
    const std::vector<std::string> views = {"grid", "head", "separators", "pairs", "stats", "layers", "lines"};
    const std::vector<Image> images =
        shots(name, views, {"--model", model, "--file", text_, "--layer", std::to_string(layer), "--head", "2"}, false);
    for (size_t v = 0; v < views.size(); ++v) {
      ASSERT_EQ(images[v].w, kWidth) << views[v];
      EXPECT_GT(distinct_colours(images[v]), 60u) << views[v];
      EXPECT_GT(coloured_share(images[v]), 0.01) << views[v];
    }
    EXPECT_EQ(slurp(dir_ / "log").find("attnscope: layout:"), std::string::npos) << slurp(dir_ / "log");
  }

  // The explorer under Xvfb with these arguments; what it printed is in dir_ / "log", its standard
  // output alone in dir_ / "out".
  void run_explorer(const std::vector<std::string>& args, bool with_model = true) {
    std::string command = "xvfb-run -a -s '-screen 0 2000x1200x24' " + quote(ATTNSCOPE_GUI) +
                          (with_model ? " --model " + quote(test::minilm_dir().string()) : std::string()) +
                          " --settings " + quote((dir_ / "settings.json").string());
    for (const auto& a : args) command += " " + quote(a);
    command += " > " + quote((dir_ / "out").string()) + " 2> " + quote((dir_ / "log").string()) + " < /dev/null";
    const int raw = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << command << "\n" << slurp(dir_ / "log");
  }

  static std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), {}};
  }

  test::TempDir dir_;
  const std::string text_ = (test::source_dir() / "assets/examples/classroom.txt").string();
};

}  // namespace attnscope
