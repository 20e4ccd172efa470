// The real window under Xvfb (Mesa's software OpenGL), on the real MiniLM checkpoint: every view
// renders, the screenshots are not blank, the head view's heatmap is a square of the expected
// size, and focusing another head changes the pixels. Sections (each marked SECTION below):
//   1. helpers: measuring regions (running the window and reading PNGs are in gui_window.h)
//   2. every view, the head view's map, focus
//   3. long texts: maps made again, rollout, export, result files, tiles, pairs
//   4. presentation, matrices, thumbnails, the corpus view, first run and downloads
//   5. the idle window, typing and partial frames, wrapping, layout at projector sizes
//   6. lenses and pairs from another matrix, compare mode, a bad model
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include <nlohmann/json.hpp>

#include "gui_window.h"
#include "support/fake_hub.h"
#include "support/modified_checkpoint.h"
#include "support/paths.h"

namespace attnscope {
namespace {

// SECTION 1: helpers.

struct Box {
  int x0, y0, x1, y1;
  int w() const { return x1 - x0; }
  int h() const { return y1 - y0; }
};

// The longest run of coloured pixels through (x, y), horizontally and vertically: a heatmap's extent.
Box run_through(const Image& img, int x, int y) {
  Box b{x, y, x, y};
  while (b.x0 > 0 && img.saturated(b.x0 - 1, y)) --b.x0;
  while (b.x1 < img.w - 1 && img.saturated(b.x1 + 1, y)) ++b.x1;
  while (b.y0 > 0 && img.saturated(x, b.y0 - 1)) --b.y0;
  while (b.y1 < img.h - 1 && img.saturated(x, b.y1 + 1)) ++b.y1;
  return b;
}

// The heatmap of the head view: the largest coloured square found from a grid of probes in the right pane.
Box heatmap_box(const Image& img) {
  Box best{0, 0, 0, 0};
  for (int y = img.h / 5; y < img.h * 4 / 5; y += 40)
    for (int x = img.w / 3; x < img.w * 9 / 10; x += 40) {
      if (!img.saturated(x, y)) continue;
      const Box b = run_through(img, x, y);
      if (std::min(b.w(), b.h()) > std::min(best.w(), best.h())) best = b;
    }
  return best;
}

// The default corpus's texts in one file (more than 7,000 MiniLM tokens), for long texts.
std::string corpus_text() {
  std::string text;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "assets" / "corpus")) {
    std::ifstream in(entry.path());
    text += std::string(std::istreambuf_iterator<char>(in), {}) + "\n";
  }
  return text;
}

double mean_difference(const Image& a, const Image& b, const Box& box) {
  double sum = 0;
  for (int y = box.y0; y < box.y1; ++y)
    for (int x = box.x0; x < box.x1; ++x)
      for (int c = 0; c < 3; ++c) sum += std::abs(a.at(x, y)[c] - b.at(x, y)[c]);
  return sum / (3.0 * std::max(1, box.w() * box.h()));
}

// SECTION 2: every view, the head view's map, focus.

TEST_F(Gui, EveryViewRendersSomething) {
  const std::vector<std::string> views = {"grid", "head", "separators", "pairs", "stats", "layers", "lines"};
  const std::vector<Image> images = shots("every", views, {"--file", text_, "--layer", "3", "--head", "2"});
  for (size_t v = 0; v < views.size(); ++v) {
    const std::string& view = views[v];
    const Image& img = images[v];
    ASSERT_EQ(img.w, kWidth) << view;
    ASSERT_EQ(img.h, kHeight) << view;
    EXPECT_GT(distinct_colours(img), 60u) << view;
    EXPECT_GT(coloured_share(img), 0.01) << view;
    // Inside the window's padding: its background, now the frame's clear colour, looks as when it
    // was a quad (the dark style's background over the former clear colour).
    const unsigned char* background = img.at(2, img.h / 2);
    EXPECT_EQ((std::array<int, 3>{background[0], background[1], background[2]}), (std::array<int, 3>{16, 16, 16}))
        << view;
    // The window went on to the next view: its panel is not the last one's.
    if (v > 0) EXPECT_GT(mean_difference(img, images[v - 1], Box{kWidth / 3, 0, kWidth, kHeight}), 2.0) << view;
  }
}

// A model that is not BERT: ModernBERT-style (tokenizer.json with byte-level BPE, rotary
// positions, banded local attention in layers 1 and 2), every view.
TEST_F(Gui, EveryViewOfAModernBertCheckpointRendersSomething) {
  expect_every_view_drawn("modern", (test::golden_dir() / "checkpoints" / "modernbert").string(), 1);
}

TEST_F(Gui, HeadViewShowsASquareHeatmapOfTheExpectedSize) {
  const Image img = shot("head", {"--file", text_, "--view", "head", "--layer", "3", "--head", "2"});
  const Box b = heatmap_box(img);
  // The right pane is 70% of 1280 pixels; after token labels, colorbar and margins the map is
  // between 600 and 850 pixels wide, and square.
  EXPECT_GT(b.w(), 600) << b.x0 << "," << b.y0 << " " << b.w() << "x" << b.h();
  EXPECT_LT(b.w(), 850);
  EXPECT_NEAR(b.h(), b.w(), b.w() * 0.03);
  EXPECT_GT(b.x0, kWidth * 0.3);  // in the right pane
}

TEST_F(Gui, FocusingAnotherHeadChangesTheHeatmap) {
  const Image a = shot("h2", {"--file", text_, "--view", "head", "--layer", "3", "--head", "2"});
  const Image b = shot("h3", {"--file", text_, "--view", "head", "--layer", "3", "--head", "3"});
  const Image again = shot("h2-again", {"--file", text_, "--view", "head", "--layer", "3", "--head", "2"});
  const Box box = heatmap_box(a);
  EXPECT_GT(mean_difference(a, b, box), 2.0);
  EXPECT_LT(mean_difference(a, again, box), 0.01);  // the same head renders the same pixels
}

// SECTION 3: long texts.

// A long text (past --maps-up-to it keeps queries and keys, not maps; MiniLM at 512 tokens): every
// view renders, and the overview's thumbnails and the views of maps (head, separators, layers),
// made again from the queries and keys as tiles, show the pixels they show with every map kept.
TEST_F(Gui, ALongTextShowsWhatItsMapsShow) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  for (const char* view : {"grid", "head", "separators", "pairs", "stats", "layers", "lines"}) {
    const std::vector<std::string> args = {"--file", file,      "--max-len", "512",    "--view",
                                           view,     "--layer", "3",         "--head", "2"};
    std::vector<std::string> long_args = args;
    long_args.insert(long_args.end(), {"--maps-up-to", "100"});
    const Image long_text = shot(std::string("long-") + view, long_args);
    EXPECT_GT(distinct_colours(long_text), 60u) << view;
    EXPECT_GT(coloured_share(long_text), 0.01) << view;
    if (std::string(view) == "pairs" || std::string(view) == "stats" || std::string(view) == "lines") continue;
    const Image maps = shot(std::string("maps-") + view, args);
    const Box box =
        std::string(view) == "head" ? heatmap_box(maps) : Box{kWidth / 3, kHeight / 8, kWidth - 10, kHeight / 2};
    // Fig. 5's block averages of a long text are summed in another order (to float rounding).
    EXPECT_LT(mean_difference(long_text, maps, box), std::string(view) == "separators" ? 0.2 : 0.01) << view;
  }
  // The norm-based lens: attention made again, weighed by the kept value vectors.
  const std::vector<std::string> norm = {"--file", file, "--max-len", "512", "--view", "grid", "--matrix", "norm"};
  std::vector<std::string> long_norm = norm;
  long_norm.insert(long_norm.end(), {"--maps-up-to", "100"});
  EXPECT_LT(mean_difference(shot("long-norm", long_norm), shot("maps-norm", norm),
                            Box{kWidth / 3, kHeight / 8, kWidth - 10, kHeight / 2}),
            0.01);
  // Rollout, chosen once the long text is shown (M after the norm-based lens): made off the UI
  // thread from the maps made again, layer by layer, and shown as the kept maps show it.
  const std::vector<std::string> rollout = {"--file", file,   "--max-len", "512",
                                            "--view", "grid", "--matrix",  "rollout"};
  const std::vector<std::string> long_rollout = {"--file",   file,   "--max-len", "512", "--view",       "grid",
                                                 "--matrix", "norm", "--keys",    "m",   "--maps-up-to", "100"};
  EXPECT_LT(mean_difference(shot("long-rollout", long_rollout), shot("maps-rollout", rollout),
                            Box{kWidth / 3, kHeight / 8, kWidth - 10, kHeight / 2}),
            0.01);
}

// A map's frame is drawn outside it: on a long text a token is less than a pixel, and the first
// and last tokens (the [CLS] column, a decoder's sink) are a map's edge pixels. MiniLM's layer 1,
// head 0 at 512 tokens has one separator, [CLS]: Fig. 5's mask is 1 in row 0 and column 0 alone,
// and its first row and column of pixels must show it (under the frame they were the frame's grey).
TEST_F(Gui, AMapsFrameLeavesItsEdgeTokensInSight) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  const Image img = shot("mask-edges", {"--file", file, "--max-len", "512", "--maps-up-to", "100", "--view",
                                        "separators", "--layer", "1", "--head", "0"});
  const auto is = [&](int x, int y, std::array<int, 3> rgb) {
    if (x < 0 || y < 0 || x >= img.w || y >= img.h) return false;
    const unsigned char* p = img.at(x, y);
    return std::abs(p[0] - rgb[0]) + std::abs(p[1] - rgb[1]) + std::abs(p[2] - rgb[2]) < 30;
  };
  constexpr std::array<int, 3> kMarked{253, 231, 37}, kUnmarked{68, 1, 84};  // viridis at 1 and 0
  // The mask is the lower left map: the widest run of unmarked pixels in the lower half, left of the middle.
  Box mask{0, 0, 0, 0};
  for (int y = kHeight / 2; y < kHeight - 10; y += 10)
    for (int x = kWidth / 3; x < kWidth * 2 / 3; x += 10) {
      if (!is(x, y, kUnmarked)) continue;
      Box b{x, y, x, y};
      while (is(b.x0 - 1, y, kUnmarked)) --b.x0;
      while (is(b.x1 + 1, y, kUnmarked)) ++b.x1;
      while (is(x, b.y0 - 1, kUnmarked)) --b.y0;
      while (is(x, b.y1 + 1, kUnmarked)) ++b.y1;
      if (b.w() > mask.w()) mask = b;
    }
  ASSERT_GT(mask.w(), 150) << "no mask found";
  // Between the frame and the first unmarked pixel: the edge token's pixel (the next may blend
  // token 0 with token 1).
  const auto marked_before = [&](int x, int y, int dx, int dy) {
    for (int k = 1; k <= 3; ++k)
      if (is(x - k * dx, y - k * dy, kMarked)) return true;
    return false;
  };
  int marked_column = 0, marked_row = 0;
  for (int y = mask.y0; y <= mask.y1; ++y) marked_column += marked_before(mask.x0, y, 1, 0);
  for (int x = mask.x0; x <= mask.x1; ++x) marked_row += marked_before(x, mask.y0, 0, 1);
  EXPECT_GT(marked_column, mask.h() * 9 / 10) << mask.x0 << "," << mask.y0 << " " << mask.w() << "x" << mask.h();
  EXPECT_GT(marked_row, mask.w() * 9 / 10);
}

// A long text's rollout in the Head view, and each layer's in the Layers view (chosen there, a
// setting): made off the UI thread (a progress bar meanwhile, the screenshot waits for it), then
// drawn from their tiles as the kept maps' rollouts are drawn.
TEST_F(Gui, TheHeadAndLayersViewsDrawALongTextsRollout) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  const std::vector<std::string> args = {"--file", file,      "--max-len", "512",      "--view",
                                         "head",   "--layer", "3",         "--matrix", "rollout"};
  std::vector<std::string> long_args = args;
  long_args.insert(long_args.end(), {"--maps-up-to", "100"});
  const Image long_text = shot("long-head-rollout", long_args), maps = shot("maps-head-rollout", args);
  EXPECT_GT(distinct_colours(long_text), 60u);
  EXPECT_LT(mean_difference(long_text, maps, heatmap_box(maps)), 0.01);
  const auto layers_shot = [&](const std::string& name, std::vector<std::string> a) {
    test::write_text(dir_ / "settings.json",
                     R"({"format": "attnscope.settings", "version": 1, "layers_matrix": "rollout"})");
    a.at(5) = "layers";
    return shot(name, a);
  };
  const Image long_layers = layers_shot("long-layers-rollout", long_args),
              maps_layers = layers_shot("maps-layers-rollout", args);
  EXPECT_GT(distinct_colours(long_layers), 60u);
  EXPECT_GT(mean_difference(long_layers, long_text, Box{kWidth / 3, kHeight / 8, kWidth - 10, kHeight / 2}), 3.0);
  EXPECT_LT(mean_difference(long_layers, maps_layers, Box{kWidth / 3, kHeight / 8, kWidth - 10, kHeight / 2}), 0.01);
}

// The overview's Export... of a long text: its figure is made off the UI thread (the screenshot
// waits for it), then the export dialog opens on it as it does on a short text's.
TEST_F(Gui, ALongTextsOverviewIsExportedFromOffTheUiThread) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  const std::vector<std::string> args = {"--file", file,   "--max-len", "512",
                                         "--view", "grid", "--matrix",  "similarity"};
  std::vector<std::string> long_args = args;
  long_args.insert(long_args.end(), {"--maps-up-to", "100"});
  const Image overview = shot("long-overview", long_args);
  // Export... is the last button of the overview's row of controls: the rightmost pixel of a
  // button's colour below the tabs.
  int x = -1, y = -1;
  for (int row = 40; row < 100 && x < 0; ++row)
    for (int col = kWidth - 1; col > kWidth * 3 / 10 && x < 0; --col)
      if (const unsigned char* p = overview.at(col, row); p[0] == 36 && p[1] == 70 && p[2] == 110)
        x = col - 8, y = row + 6;
  ASSERT_GE(x, 0) << "no button in the overview's controls";
  const std::vector<std::string> click = {"--click", std::to_string(x), std::to_string(y)};
  std::vector<std::string> long_click = long_args, maps_click = args;
  long_click.insert(long_click.end(), click.begin(), click.end());
  maps_click.insert(maps_click.end(), click.begin(), click.end());
  const Image exported = shot("long-export", long_click), maps_exported = shot("maps-export", maps_click);
  // Inside the dialog: the window behind it is dimmed in a few frames, not always as far.
  const Box dialog{kWidth * 33 / 100, kHeight * 44 / 100, kWidth * 62 / 100, kHeight * 55 / 100};
  EXPECT_GT(mean_difference(exported, overview, dialog), 20.0) << "no dialog after a click at " << x << ", " << y;
  // The dialog's background lets the window's dimming through a little.
  EXPECT_LT(mean_difference(exported, maps_exported, dialog), 4.0);
}

// A result file of `analyze` shown without its model (--result): a long text's (MiniLM at 512
// tokens, queries and keys kept) maps are made again from the file as the model makes them: the
// head view and the overview show the pixels the model shows with every map kept; a file that
// keeps no head outputs is refused in one line.
TEST_F(Gui, AResultFileIsShownWithoutItsModel) {
  const std::string file = (dir_ / "long.txt").string(), result = (dir_ / "long.safetensors").string();
  std::ofstream(file) << corpus_text();
  const std::string analyze = quote(test::cli_path().string()) + " analyze --model " +
                              quote(test::minilm_dir().string()) + " --file " + quote(file) + " --max-len 512";
  ASSERT_EQ(std::system((analyze + " --maps-up-to 100 --out " + quote(result) + " > /dev/null").c_str()), 0);
  for (const char* view : {"head", "grid"}) {
    const std::vector<std::string> shown = {"--view", view, "--layer", "3", "--head", "2"};
    std::vector<std::string> from_file = shown, with_model = shown;
    from_file.insert(from_file.end(), {"--result", result});
    with_model.insert(with_model.end(), {"--file", file, "--max-len", "512"});
    const Image a = shot(std::string("result-") + view, from_file, false);
    EXPECT_NE(slurp(dir_ / "log").find("opened the result file long.safetensors"), std::string::npos)
        << slurp(dir_ / "log");
    const Image b = shot(std::string("model-") + view, with_model);
    const Box box =
        std::string(view) == "head" ? heatmap_box(b) : Box{kWidth / 3, kHeight / 8, kWidth - 10, kHeight / 2};
    EXPECT_LT(mean_difference(a, b, box), 0.01) << view;
  }
  const std::string attention_only = (dir_ / "attention.safetensors").string();
  ASSERT_EQ(std::system((analyze + " --captures attention --out " + quote(attention_only) + " > /dev/null").c_str()),
            0);
  const std::string refused = quote(ATTNSCOPE_GUI) + " --settings " + quote((dir_ / "settings.json").string()) +
                              " --result " + quote(attention_only) + " --screenshot " +
                              quote((dir_ / "refused.png").string()) + " 2> " + quote((dir_ / "log").string());
  EXPECT_NE(std::system(("xvfb-run -a " + refused).c_str()), 0);
  EXPECT_EQ(slurp(dir_ / "log"), "attnscope: error: " + attention_only +
                                     ": keeps no head outputs (captures \"attention\"), which every view of S needs: "
                                     "write it with --captures all, or open the text with its model\n");
}

// A long text's map zoomed in is drawn from its finer tiles (a top level of 64 cells pooling 8 x 8
// tokens, the screen's cells about 9 pixels: level 0's tiles, made over a few frames): the same
// cells as the whole map kept and zoomed as far; only the cells' edges may fall a pixel apart.
TEST_F(Gui, ALongTextsMapZoomedInShowsItsCellsFromTiles) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  const std::vector<std::string> args = {"--file",  file, "--max-len", "512", "--view", "head",
                                         "--layer", "3",  "--head",    "2",   "--zoom", "8"};
  std::vector<std::string> tiled = args;
  tiled.insert(tiled.end(), {"--maps-up-to", "100", "--map-top-cells", "64"});
  const Image maps = shot("zoomed-maps", args), tiles = shot("zoomed-tiles", tiled);
  const Box visible{kWidth / 2, kHeight / 3, kWidth - 40, kHeight - 40};
  EXPECT_GT(distinct_colours(tiles), 60u);
  EXPECT_LT(mean_difference(tiles, maps, visible), 1.0);
}

// A long text's head changed and its matrix switched from the keyboard (> the next head, M the next
// matrix): each map is made off the UI thread and shown as a window opened on that head and matrix
// shows it; --keys says how long each key took to be answered.
TEST_F(Gui, KeysSwitchALongTextsHeadAndSayHowLongEachTook) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  const std::vector<std::string> args = {"--file", file,     "--max-len", "512",     "--maps-up-to",
                                         "100",    "--view", "head",      "--layer", "3"};
  std::vector<std::string> keyed = args;
  keyed.insert(keyed.end(), {"--head", "2", "--keys", ">m"});
  const Image switched = shot("keys-switched", keyed);
  const std::string out = slurp(dir_ / "out");
  const auto printed = nlohmann::json::parse(out.substr(out.find('{')));
  ASSERT_EQ(printed["key_seconds"].size(), 2u) << out;
  for (const auto& seconds : printed["key_seconds"]) {
    EXPECT_GT(seconds.get<double>(), 0.0);
    EXPECT_LT(seconds.get<double>(), 60.0);
  }
  std::vector<std::string> opened = args;
  opened.insert(opened.end(), {"--head", "3", "--matrix", "similarity"});
  const Image direct = shot("keys-direct", opened);
  EXPECT_GT(distinct_colours(switched), 60u);
  EXPECT_LT(mean_difference(switched, direct, heatmap_box(direct)), 0.01);
}

// A long text's pairs from attention are outlined on its attention map zoomed in, from the mask its
// analysis kept or, with no mask kept (--pair-masks 0), once their mask is made off the UI thread
// from the head's whole map (the screenshot waits for it): black frames around cells, which no
// viridis colour is and the same map without outlines (pairs from S) lacks, the same either way.
TEST_F(Gui, ALongTextsMapZoomedInOutlinesItsPairsFromALens) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  const std::vector<std::string> args = {"--file",  file, "--max-len",    "512", "--view",          "head",
                                         "--layer", "3",  "--head",       "2",   "--matrix",        "attention",
                                         "--zoom",  "8",  "--maps-up-to", "100", "--map-top-cells", "64"};
  const auto black = [](const Image& shot) {
    int64_t count = 0;
    for (int y = kHeight / 3; y < kHeight - 40; ++y)
      for (int x = kWidth / 2; x < kWidth - 40; ++x)
        if (const unsigned char* p = shot.at(x, y); p[0] + p[1] + p[2] < 40) ++count;
    return count;
  };
  const Image plain = shot("outlines-none", args);
  test::write_text(dir_ / "settings.json",
                   R"({"format": "attnscope.settings", "version": 1, "pairs_from": "attention"})");
  const Image outlined = shot("outlines-attention", args);
  std::vector<std::string> none_kept = args;
  none_kept.insert(none_kept.end(), {"--pair-masks", "0"});
  const Image made = shot("outlines-attention-made", none_kept);
  EXPECT_EQ(black(plain), 0);
  EXPECT_GT(black(outlined), 1000);
  EXPECT_EQ(black(made), black(outlined));
}

// A long text's Statistics view fills in as its scan for pairs goes: pairs from attention, each
// head's map made whole again and scanned one head at a time, hand on the statistics of the heads
// scanned so far; the screenshot taken on the first of them (--screenshot-mid-scan) shows the
// bars of those heads (the first layer's first ones) and none yet of the last layer's, where the
// view once every head is scanned shows every head's.
TEST_F(Gui, ALongTextsStatisticsFillInAsItsScanGoes) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  test::write_text(dir_ / "settings.json",
                   R"({"format": "attnscope.settings", "version": 1, "pairs_from": "attention"})");
  const auto args = [&](const char* layer, bool mid_scan) {
    std::vector<std::string> a = {"--file", file,     "--max-len", "512",     "--maps-up-to",
                                  "100",    "--view", "stats",     "--layer", layer};
    if (mid_scan) a.push_back("--screenshot-mid-scan");
    return a;
  };
  const Image first = shot("stats-first-mid-scan", args("0", true)),
              last = shot("stats-last-mid-scan", args("5", true)), done = shot("stats-last", args("5", false));
  const auto coloured = [](const Image& img) {  // the bars of the view's figure, in its half of the window
    int64_t n = 0;
    for (int y = 100; y < kHeight; ++y)
      for (int x = kWidth / 3; x < kWidth; ++x) n += img.saturated(x, y);
    return n;
  };
  EXPECT_GT(coloured(first), coloured(last) + 3000);  // beyond the controls both have: bars
  EXPECT_GT(coloured(done), 10000);
  EXPECT_LT(coloured(last) * 10, coloured(done) * 3);
}

// A click on a pair in the Pairs view's table scrolls a long text's figure to the pair's tokens:
// sorted by i from the end, the first pair lies at the end of a text zoomed 3x, out of sight; the
// click moves the figure, a click on the table's header alone does not.
TEST_F(Gui, ClickingAPairFindsItsTokensInALongText) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  const std::vector<std::string> args = {"--file",  file, "--max-len", "512", "--maps-up-to", "100", "--view",  "pairs",
                                         "--layer", "4",  "--head",    "1",   "--zoom",       "3",   "--click", "544",
                                         "95"};  // the header of column i: from the end
  std::vector<std::string> clicked = args;
  clicked.insert(clicked.end(), {"--click", "435", "113"});  // the first row
  const Image sorted = shot("pairs-sorted", args), found = shot("pairs-found", clicked);
  const Box figure{780, 130, kWidth - 20, kHeight - 20};
  EXPECT_GT(mean_difference(sorted, found, figure), 5.0);
}

// A head with more pairs than its table lists (--pair-table-rows), sorted by value, lists the
// strongest of every pair: found beside the window, the same rows whether the table lists 1,000
// or 10,000 of the head's 20,878 (the first 1,000 in the text, sorted, begin with other rows).
TEST_F(Gui, ALongTextsHeadSortedByValueListsItsStrongestPairs) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  const auto sorted = [&](const std::string& rows) {
    return shot("strongest-of-" + rows,
                {"--file", file, "--max-len", "512", "--maps-up-to", "100", "--view", "pairs", "--layer", "4", "--head",
                 "1", "--pair-table-rows", rows, "--click", "697", "138"});  // the header of the value's column
  };
  const Image few = sorted("1000"), more = sorted("10000");
  const Box rows{403, 152, 740, kHeight - 20};
  EXPECT_EQ(mean_difference(few, more, rows), 0.0);
  EXPECT_GT(mean_difference(few, more, Box{403, 60, 740, 110}), 0.0) << "the lines above the table name their rows";
}

// SECTION 4: presentation, matrices, thumbnails, the corpus view, first run and downloads.

TEST_F(Gui, PresentationModeChangesTheLook) {
  const Image normal = shot("normal", {"--file", text_, "--view", "head", "--layer", "2", "--head", "5"});
  const Image presenting =
      shot("presenting", {"--file", text_, "--view", "head", "--layer", "2", "--head", "5", "--presentation"});
  EXPECT_GT(mean_difference(normal, presenting, Box{0, 0, kWidth, kHeight}), 10.0);
  EXPECT_GT(distinct_colours(presenting), 60u);
}

TEST_F(Gui, MatrixChoiceChangesTheGrid) {
  const Image attention = shot("grid-a", {"--file", text_, "--view", "grid", "--matrix", "attention"});
  const Image similarity = shot("grid-s", {"--file", text_, "--view", "grid", "--matrix", "similarity"});
  const Box right{kWidth / 3, kHeight / 8, kWidth - 10, kHeight / 2};
  EXPECT_GT(mean_difference(attention, similarity, right), 5.0);
}

// Runs of pixels that are not plain greys (the UI's background, outlines and text are; a
// thumbnail's averaged colours, unlike its saturated ones, not always) along a line (a row when
// `horizontal`, else a column), at least `min_run` long: the thumbnails the line crosses, in order.
std::vector<Box> thumbnail_runs(const Image& img, bool horizontal, int at, int from, int min_run) {
  const auto grey = [&](int i) {
    const unsigned char* p = horizontal ? img.at(i, at) : img.at(at, i);
    return p[0] == p[1] && p[1] == p[2];
  };
  std::vector<Box> runs;
  const int end = horizontal ? img.w : img.h;
  for (int k = from; k < end;) {
    int stop = k;
    while (stop < end && !grey(stop)) ++stop;
    if (stop - k >= min_run) runs.push_back(horizontal ? Box{k, at, stop, at + 1} : Box{at, k, at + 1, stop});
    k = stop + 1;
  }
  return runs;
}

// A click on a thumbnail of the overview opens that head in the head view: the same pixels as the
// head view asked for on the command line, other pixels than its neighbour's. (The click is given
// to ImGui as a mouse's press and release, --click; X's own input path is bench/typing_x11.py's.)
TEST_F(Gui, ClickingAThumbnailOpensItsHead) {
  const Image grid = shot("grid", {"--file", text_, "--view", "grid"});
  // The first row of the right pane crossing 13 squares of one width (MiniLM's 12 heads and their
  // sum; the focused one's outline is 4 pixels wider) is layer 0's; the tabs are of many widths.
  const auto thumbnails = [](const std::vector<Box>& runs) {
    if (runs.size() != 13) return false;
    const auto [narrow, wide] =
        std::minmax_element(runs.begin(), runs.end(), [](const Box& a, const Box& b) { return a.w() < b.w(); });
    return wide->w() - narrow->w() <= 5;
  };
  std::vector<Box> columns;
  for (int y = 0; y < grid.h && !thumbnails(columns); ++y) columns = thumbnail_runs(grid, true, y, kWidth * 3 / 10, 20);
  ASSERT_TRUE(thumbnails(columns));
  const int x = (columns[5].x0 + columns[5].x1) / 2;  // head 5
  const std::vector<Box> rows = thumbnail_runs(grid, false, x, columns[5].y0, 20);
  ASSERT_GE(rows.size(), 6u);                   // MiniLM's 6 layers
  const int y = (rows[2].y0 + rows[2].y1) / 2;  // layer 2
  const Image clicked =
      shot("clicked", {"--file", text_, "--view", "grid", "--click", std::to_string(x), std::to_string(y)});
  const Image asked = shot("asked", {"--file", text_, "--view", "head", "--layer", "2", "--head", "5"});
  const Image neighbour = shot("neighbour", {"--file", text_, "--view", "head", "--layer", "2", "--head", "6"});
  const Box right_pane{kWidth * 3 / 10, 0, kWidth, kHeight};  // the left one says how long the run took
  EXPECT_LT(mean_difference(clicked, asked, right_pane), 0.01) << "clicked at " << x << ", " << y;
  EXPECT_GT(mean_difference(clicked, neighbour, heatmap_box(asked)), 2.0);
}

// A saved run, and the same run made of two shards merged, each open in the corpus view, then the
// two compared side by side.
TEST_F(Gui, CorpusViewShowsASavedRunAndAMergedOne) {
  const auto corpus_in = dir_ / "corpus.txt";
  std::string text;
  for (int k = 0; k < 40; ++k) text += "The lighthouse keeper climbed the stairs. The lamp was lit at dusk. ";
  test::write_text(corpus_in, text);
  const auto cli = [&](const std::string& args) {
    const std::string command = quote(test::cli_path().string()) + " " + args + " > /dev/null 2>&1";
    return std::system(command.c_str());
  };
  const std::string run = "corpus --model " + quote(test::minilm_dir().string()) + " --input " +
                          quote(corpus_in.string()) + " --max-windows 3";
  const auto result = dir_ / "corpus.json";
  ASSERT_EQ(cli(run + " --out " + quote(result.string())), 0);
  const Image img = shot("corpus", {"--view", "corpus", "--corpus-result", result.string(), "--text", "A short text."});
  EXPECT_GT(coloured_share(img), 0.05);
  std::filesystem::create_directories(dir_ / "shards");
  for (const char* k : {"0", "1"})
    ASSERT_EQ(cli(run + " --shard " + k + "/2 --out " + quote((dir_ / "shards" / (std::string(k) + ".json")).string())),
              0);
  const auto merged = dir_ / "merged.json";
  ASSERT_EQ(cli("merge " + quote(merged.string()) + " " + quote((dir_ / "shards").string())), 0);
  // By the command line's name for a corpus result (figure --corpus) this time.
  const Image merged_img = shot("merged", {"--view", "corpus", "--corpus", merged.string(), "--text", "A short text."});
  EXPECT_GT(coloured_share(merged_img), 0.05);
  EXPECT_LT(mean_difference(img, merged_img, Box{0, 0, img.w, img.h}), 1.0);  // the same run, the same picture
  // The run beside the merged one: A, B and B - A (three maps where one run showed two).
  const Image both = shot("compared", {"--view", "corpus", "--corpus-result", result.string(), "--corpus-result-b",
                                       merged.string(), "--text", "A short text."});
  EXPECT_GT(mean_difference(img, both, Box{0, kHeight / 3, img.w, img.h}), 3.0);
  EXPECT_EQ(slurp(dir_ / "log").find("layout:"), std::string::npos) << slurp(dir_ / "log");

  // The findings report from the corpus view: its button (right of Export..., in the row above the
  // figure at this window size) writes report.pdf and report.md into the working folder.
  const auto here = std::filesystem::current_path();
  std::filesystem::current_path(dir_.path());
  shot("report",
       {"--view", "corpus", "--corpus-result", result.string(), "--text", "A short text.", "--click", "764", "256"});
  std::filesystem::current_path(here);
  EXPECT_EQ(slurp(dir_ / "report.pdf").substr(0, 5), "%PDF-") << "no report: did the button move?";
  EXPECT_NE(slurp(dir_ / "report.md").find("| finding | paper, BERT-base | all-MiniLM-L6-v2 |"), std::string::npos);
}

TEST_F(Gui, FirstRunWithoutTheDefaultModelOffersTheChoice) {
  setenv("HF_HUB_CACHE", (dir_ / "empty-hub").c_str(), 1);
  const Image welcome = shot("welcome", {"--file", text_, "--view", "grid"}, false);
  const Image plain = shot("plain", {"--file", text_, "--view", "grid"});
  unsetenv("HF_HUB_CACHE");
  // The same analysis (the installed model) behind a dialog: the middle of the window differs.
  EXPECT_GT(mean_difference(welcome, plain, Box{kWidth / 4, kHeight * 2 / 5, kWidth * 3 / 4, kHeight * 3 / 5}), 5.0);
}

TEST_F(Gui, DownloadsAModelFromTheWindowAndOpensIt) {
  test::FakeHub hub;
  setenv("HF_ENDPOINT", hub.endpoint().c_str(), 1);
  setenv("HF_HUB_CACHE", (dir_ / "hub").c_str(), 1);
  const Image img =
      shot("downloaded", {"--download", "test-org/model", "--text", "The cat sat on the mat.", "--view", "grid"});
  unsetenv("HF_ENDPOINT");
  unsetenv("HF_HUB_CACHE");
  EXPECT_TRUE(std::filesystem::exists(dir_ / "hub" / "models--test-org--model" / "refs" / "main"));
  EXPECT_NE(hub.requests().find("model.safetensors"), std::string::npos);
  EXPECT_GT(coloured_share(img), 0.05);  // the downloaded model's overview is drawn
  EXPECT_NE(slurp(dir_ / "log").find("attnscope: opened test-org/model (6 layers x 12 heads"), std::string::npos)
      << slurp(dir_ / "log");
}

// SECTION 5: the idle window, typing and partial frames, wrapping, layout.

// Nothing changes: the window waits for events and draws no frame, and uses next to no CPU.
TEST_F(Gui, AnIdleWindowDrawsNoFrames) {
  run_explorer({"--file", text_, "--view", "grid", "--idle-check", "3"});
  const auto report = nlohmann::json::parse(slurp(dir_ / "out"));
  EXPECT_EQ(report["frames_drawn"], 0) << report;
  EXPECT_LT(report["cpu_share_of_one_core"].get<double>(), 0.02) << report;
}

// Keys typed faster than the model runs: the stale runs are abandoned, and every burst ends with
// the views showing the analysis of the text as it stands after its last key.
TEST_F(Gui, AnEditDuringARunEndsWithTheViewsOfTheLastText) {
  run_explorer(
      {"--file", text_, "--view", "grid", "--max-len", "256", "--bench-typing", "3", "--typing-interval", "5"});
  const auto report = nlohmann::json::parse(slurp(dir_ / "out"));
  EXPECT_EQ(report["bursts"], 3) << report;
  EXPECT_GE(report["abandoned_runs"].get<int>(), 1) << report;
  EXPECT_TRUE(report["last_text_shown"].get<bool>()) << report;
  // The report names what drew the window (Mesa's software renderer under Xvfb).
  EXPECT_FALSE(report["gl_renderer"].get<std::string>().empty()) << report;
}

// A key typed during a run redraws the editor's side alone over the frame before (the back buffer
// keeps it under Xvfb's software GL, which the window finds out when it opens); each such frame,
// drawn whole right after, must be the same pixel for pixel, in every view. --full-frames draws
// none. (Without the frames that let a new analysis settle, a scroll bar that appears one frame
// late made 2,000 pixels differ in each: the check sees such things.)
TEST_F(Gui, AKeysFrameRedrawsTheEditorsSideAloneAndLooksAsIfWhole) {
  // Keys 5 ms apart come faster than any run ends, so no new analysis is shown between them; the
  // first burst during the text's first run (--typing-at-once), so that some keys surely come
  // while a run is under way (after it, a frame of the Lines view, 40 ms under CI's load, took as
  // long as MiniLM's run, and CI once saw no key's frame drawn alone).
  const std::string longer = (test::source_dir() / "assets/examples/lighthouse.txt").string();
  for (const char* view : {"grid", "head", "pairs", "lines"}) {
    SCOPED_TRACE(view);
    run_explorer({"--file", longer, "--view", view, "--bench-typing", "2", "--typing-interval", "5", "--quick-run-ms",
                  "0", "--check-partial-frames", "--typing-at-once"});
    const auto report = nlohmann::json::parse(slurp(dir_ / "out"));
    EXPECT_GE(report["partial_frames"].get<int>(), 1) << report;
    EXPECT_EQ(report["partial_frame_mismatched_pixels"], 0) << report;
    EXPECT_TRUE(report["last_text_shown"].get<bool>()) << report;
  }
  run_explorer({"--file", longer, "--view", "grid", "--bench-typing", "2", "--typing-interval", "5", "--quick-run-ms",
                "0", "--full-frames"});
  const auto whole = nlohmann::json::parse(slurp(dir_ / "out"));
  EXPECT_EQ(whole["partial_frames"], 0) << whole;
  EXPECT_EQ(whole["whole_frames"], whole["frames"]) << whole;
}

// With a run expected to be quick, the frame of an edit waits for its analysis: the first frame
// presented after a burst's last key shows both. Otherwise the edit shows at once, its analysis a
// frame or more later. (A limit no run reaches here stands for "quick", so that a slow or busy
// machine tests the same thing. Keys 1 s apart let every held run finish before the next key: a
// key that comes first ends the hold, and the answer of the run it made stale is then drawn as a
// frame of its own; under AddressSanitizer on a slow phase of this machine a run took 320 ms.)
TEST_F(Gui, AQuickRunShowsTheEditAndItsAnalysisInOneFrame) {
  run_explorer({"--file", text_, "--view", "grid", "--bench-typing", "1", "--typing-interval", "1000", "--quick-run-ms",
                "600000"});
  const auto held = nlohmann::json::parse(slurp(dir_ / "out"));
  EXPECT_EQ(held["frames_to_show_max"], 1) << held;
  EXPECT_TRUE(held["last_text_shown"].get<bool>()) << held;
  run_explorer(
      {"--file", text_, "--view", "grid", "--bench-typing", "2", "--typing-interval", "300", "--quick-run-ms", "0"});
  const auto at_once = nlohmann::json::parse(slurp(dir_ / "out"));
  EXPECT_GE(at_once["frames_to_show_min"].get<int>(), 2) << at_once;
}

// Rows of the left pane's editor that hold text (bright pixels).
int text_rows(const Image& img, int x0, int x1, int y0, int y1) {
  int rows = 0;
  bool in_text = false;
  for (int y = y0; y < y1; ++y) {
    bool bright = false;
    for (int x = x0; x < x1 && !bright; ++x)
      bright = img.at(x, y)[0] > 200 && img.at(x, y)[1] > 200 && img.at(x, y)[2] > 200;
    rows += bright && !in_text;
    in_text = bright;
  }
  return rows;
}

TEST_F(Gui, AParagraphWrapsInTheEditor) {
  const Image one = shot("one-line", {"--text", "The lamp was lit.", "--view", "grid"});
  const Image paragraph = shot("paragraph", {"--file", text_, "--view", "grid"});
  // The editor sits below the example and file controls of the left pane (30% of the width).
  const int x1 = kWidth * 3 / 10 - 20;
  EXPECT_EQ(text_rows(one, 20, x1, 85, 215), 1);
  EXPECT_GE(text_rows(paragraph, 20, x1, 85, 215), 5);  // a paragraph reads as lines, not one long line
}

// At a projector's 1280 x 800 and at 1920 x 1080, in normal and presentation mode, every view
// draws with no tab label shortened and no pane whose content is cut (ImGui's own bookkeeping,
// which the explorer prints in screenshot mode).
// Each size and mode in one window, its views shown in turn (the log names the view of a finding).
TEST_F(Gui, NothingIsCutAtProjectorSizes) {
  const std::vector<std::string> views = {"grid", "head", "separators", "pairs", "stats", "layers", "lines", "corpus"};
  for (const auto& [w, h] : {std::pair{1280, 800}, std::pair{1920, 1080}})
    for (bool presentation : {false, true}) {
      std::vector<std::string> args = {"--file", text_, "--layer", "5", "--head", "3"};
      if (presentation) args.push_back("--presentation");
      const std::string name = (presentation ? "presentation-" : "normal-") + std::to_string(w);
      const std::vector<Image> images = shots(name, views, args, true, w, h);
      for (size_t v = 0; v < views.size(); ++v) EXPECT_EQ(images[v].w, w) << views[v];
      const std::string log = slurp(dir_ / "log");
      EXPECT_EQ(log.find("layout:"), std::string::npos)
          << w << "x" << h << (presentation ? " presentation" : "") << "\n"
          << log;
    }
}

// A window too short for the overview's rows: its scroll bar comes, and the last column of
// thumbnails must still fit beside it (it was cut by 6 pixels).
TEST_F(Gui, TheOverviewLeavesRoomForItsScrollBar) {
  const Image img = shot("grid-short", {"--file", text_, "--view", "grid"}, true, 1280, 450);
  EXPECT_EQ(img.h, 450);
  const std::string log = slurp(dir_ / "log");
  EXPECT_EQ(log.find("layout:"), std::string::npos) << log;
}

// SECTION 6: lenses, pairs from another matrix, compare mode, a bad model.

// Every lens in the overview and the head view: norm-based attention and rollout draw maps of
// their own (not the attention grid's pixels).
TEST_F(Gui, EveryLensRendersInTheOverviewAndTheHeadView) {
  const Image attention = shot("grid-attention", {"--file", text_, "--view", "grid", "--matrix", "attention"});
  for (const char* lens : {"norm", "rollout"}) {
    const Image grid = shot(std::string("grid-") + lens, {"--file", text_, "--view", "grid", "--matrix", lens});
    EXPECT_GT(coloured_share(grid), 0.05) << lens;
    EXPECT_GT(mean_difference(grid, attention, Box{kWidth / 3, kHeight / 8, kWidth, kHeight * 3 / 4}), 3.0) << lens;
    const Image head = shot(std::string("head-") + lens,
                            {"--file", text_, "--view", "head", "--matrix", lens, "--layer", "4", "--head", "2"});
    EXPECT_GT(coloured_share(head), 0.05) << lens;
  }
  // The overview's rollout through the norm-based maps (a setting kept with the matrix) is a grid of its own.
  const Image rollout = shot("grid-rollout-again", {"--file", text_, "--view", "grid", "--matrix", "rollout"});
  test::write_text(dir_ / "settings.json",
                   R"({"format": "attnscope.settings", "version": 1, "rollout_of_norm": true})");
  const Image of_norm = shot("grid-rollout-of-norm", {"--file", text_, "--view", "grid", "--matrix", "rollout"});
  EXPECT_GT(coloured_share(of_norm), 0.05);
  EXPECT_GT(mean_difference(of_norm, rollout, Box{kWidth / 3, kHeight / 8, kWidth, kHeight * 3 / 4}), 1.0);
}

// The Pairs view lists the pairs of the matrix chosen in "pairs from" (a setting): attention's are
// not S's, so the table and the coloured tokens change.
TEST_F(Gui, PairsFromAnotherMatrixChangeThePairsView) {
  const std::vector<std::string> args = {"--file", text_, "--view", "pairs", "--layer", "2", "--head", "1"};
  const Image of_s = shot("pairs-similarity", args);
  test::write_text(dir_ / "settings.json",
                   R"({"format": "attnscope.settings", "version": 1, "pairs_from": "attention"})");
  const Image of_attention = shot("pairs-attention", args);
  EXPECT_GT(mean_difference(of_s, of_attention, Box{0, kHeight / 8, kWidth, kHeight}), 1.0);
}

// A long text's pairs from a lens (each head's map made whole again; attention's masks not kept,
// the shown head's made again off the UI thread): the Pairs view shows them as it shows S's, other
// pairs, with the map beside and the table filled with their values; rollout's map and values
// from the rollout after the layer, made beside the window.
TEST_F(Gui, ALongTextsPairsFromALensFillThePairsView) {
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  const std::vector<std::string> args = {"--file", file,    "--max-len", "512", "--maps-up-to", "100",
                                         "--view", "pairs", "--layer",   "2",   "--head",       "1"};
  const Image of_s = shot("long-pairs-similarity", args);
  for (const char* lens : {"attention", "rollout"}) {
    test::write_text(dir_ / "settings.json",
                     std::string(R"({"format": "attnscope.settings", "version": 1, "pairs_from": ")") + lens + "\"}");
    const Image of_lens = shot(std::string("long-pairs-") + lens, args);
    EXPECT_GT(distinct_colours(of_lens), 60u) << lens;
    EXPECT_GT(coloured_share(of_lens), 0.01) << lens;
    EXPECT_GT(mean_difference(of_s, of_lens, Box{0, kHeight / 8, kWidth, kHeight}), 1.0) << lens;
    // The table's last column, M_hat: the values in bright text, row after row (not a dim "-").
    EXPECT_GE(text_rows(of_lens, kWidth * 54 / 100, kWidth * 57 / 100, kHeight * 12 / 100, kHeight * 95 / 100), 20)
        << lens;
    // The map below the text, at the bottom right (rollout's made off the UI thread first, the
    // screenshot waiting for it): coloured, not a line saying it is not drawn.
    int64_t coloured = 0, all = 0;
    for (int y = kHeight * 88 / 100; y < kHeight * 98 / 100; ++y)
      for (int x = kWidth * 65 / 100; x < kWidth * 88 / 100; ++x, ++all) coloured += of_lens.saturated(x, y);
    EXPECT_GT(static_cast<double>(coloured) / static_cast<double>(all), 0.5) << lens;
  }
}

// A lens the run cannot show (the norm lens on words, which keep no value vectors) is a line in
// the view, not a crash; and the norm lens on pieces, chosen after the first analysis, is shown
// once the text has run again with the lenses' captures (they are captured only when needed).
TEST_F(Gui, ALensWithoutItsCapturesSaysSo) {
  test::write_text(dir_ / "settings.json", R"({"format": "attnscope.settings", "version": 1, "words": true})");
  const Image words = shot("norm-words", {"--file", text_, "--view", "grid", "--matrix", "norm"});
  test::write_text(dir_ / "settings.json", R"({"format": "attnscope.settings", "version": 1, "words": false})");
  const Image pieces = shot("norm-pieces", {"--file", text_, "--view", "grid", "--matrix", "norm"});
  EXPECT_GT(coloured_share(pieces), coloured_share(words) + 0.05)
      << "words: a line saying why, no thumbnails; pieces: the thumbnails";
}

// Compare mode: MiniLM beside a copy with noise in its weights. Side by side shows A, B and B - A;
// the what-changed grid of MiniLM against itself is one colour (nothing changed), against the
// noisy copy it is not; at projector size in presentation mode nothing is cut.
TEST_F(Gui, CompareModeShowsAModelBesideAPerturbedCopy) {
  test::write_modified_checkpoint(test::minilm_dir(), dir_ / "noisy", test::add_noise(0.05, 5));
  const std::vector<std::string> base = {"--file", text_, "--view", "compare", "--layer", "3", "--head", "2"};
  const auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), base.begin(), base.end());
    return extra;
  };
  const Image side =
      shot("compare-side", with({"--compare-model", (dir_ / "noisy").string(), "--compare-shown", "side"}));
  EXPECT_GT(coloured_share(side), 0.08) << "A, B and B - A should fill the view";
  const Image changed =
      shot("compare-changed", with({"--compare-model", (dir_ / "noisy").string(), "--compare-shown", "changed"}));
  const Image unchanged =
      shot("compare-same", with({"--compare-model", test::minilm_dir().string(), "--compare-shown", "changed"}));
  const Box grid{kWidth / 3, kHeight / 4, kWidth, kHeight * 3 / 4};
  EXPECT_GT(mean_difference(changed, unchanged, grid), 3.0)
      << "the grid of a model against itself should differ from one against a noisy copy";
  for (bool presentation : {false, true}) {
    std::vector<std::string> args =
        with({"--compare-text", "The keeper climbed the stairs.", "--compare-shown", "stats"});
    if (presentation) args.push_back("--presentation");
    const Image img = shot("compare-text", args, true, 1280, 800);
    EXPECT_GT(coloured_share(img), 0.02);
    const std::string log = slurp(dir_ / "log");
    EXPECT_EQ(log.find("layout:"), std::string::npos) << (presentation ? "presentation\n" : "\n") << log;
  }
}

// Compare mode on a long text (MiniLM at 512 tokens past --maps-up-to, against a noisy copy): A, B
// and B - A made again from the queries and keys show the pixels they show with every map kept.
TEST_F(Gui, CompareModeOnALongTextShowsWhatItsMapsShow) {
  test::write_modified_checkpoint(test::minilm_dir(), dir_ / "noisy", test::add_noise(0.05, 5));
  const std::string file = (dir_ / "long.txt").string();
  std::ofstream(file) << corpus_text();
  const std::vector<std::string> args = {"--file",          file,      "--max-len",       "512",
                                         "--view",          "compare", "--layer",         "3",
                                         "--head",          "2",       "--compare-model", (dir_ / "noisy").string(),
                                         "--compare-shown", "side"};
  std::vector<std::string> long_args = args;
  long_args.insert(long_args.end(), {"--maps-up-to", "100"});
  const Image long_text = shot("compare-long", long_args), maps = shot("compare-maps", args);
  EXPECT_GT(coloured_share(long_text), 0.08) << "A, B and B - A should fill the view";
  EXPECT_LT(mean_difference(long_text, maps, Box{kWidth / 3, kHeight / 8, kWidth - 10, kHeight - 10}), 0.01);
}

TEST_F(Gui, BadModelEndsWithOneClearLine) {
  const auto png = dir_ / "never.png";
  const std::string command = "xvfb-run -a " + quote(ATTNSCOPE_GUI) + " --model " +
                              quote((dir_ / "no-model").string()) + " --settings " + quote((dir_ / "s.json").string()) +
                              " --screenshot " + quote(png.string()) + " > " + quote((dir_ / "log").string()) +
                              " 2>&1 < /dev/null";
  const int raw = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 1);
  EXPECT_NE(slurp(dir_ / "log").find("attnscope: error:"), std::string::npos) << slurp(dir_ / "log");
  EXPECT_FALSE(std::filesystem::exists(png));
}

}  // namespace
}  // namespace attnscope
