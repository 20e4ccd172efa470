// Exported files open and contain what the figure says: PNG decoded by stb at the asked scale,
// SVG and PDF text read back (the PDF through poppler's pdftotext).
#include <gtest/gtest.h>

#include <stb_image.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "figures/figure_export.h"
#include "support/paths.h"

namespace attnscope {
namespace {

Figure sample() {
  Figure f;
  f.title = "Sample figure";
  f.caption = "made by the test";
  f.columns = 2;
  HeatmapPanel h;
  h.title = "heatmap";
  h.rows = h.cols = 3;
  h.values = {0, 1, 2, 3, 4, 5, 6, 7, std::nanf("")};
  h.row_labels = h.col_labels = {"alpha", "lighthouse", "omega"};
  h.color_scale = {0, 7, ValueScale::Linear, false};
  h.colorbar_label = "value";
  h.outlined = {{0, 1}};
  f.panels.push_back(h);
  BarPanel b{"bars", "head", "share", {"h0", "h1"}, {{"repeat", {0.5, std::nan("")}, palette_color(0), false}}, 1, 1.0};
  f.panels.push_back(b);
  return f;
}

std::string run(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(FigureExport, PngIsRenderedAtTheAskedScale) {
  const Figure f = sample();
  ExportOptions o;
  o.width = 400;
  for (double scale : {1.0, 3.0}) {
    o.png_scale = scale;
    const std::string png = render_figure(f, FigureFormat::Png, o);
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()),
                                                  static_cast<int>(png.size()), &w, &h, &channels, 3);
    ASSERT_NE(pixels, nullptr);
    EXPECT_EQ(w, static_cast<int>(400 * scale));
    // Not blank: white background, dark text, coloured cells.
    int white = 0, other = 0;
    for (int k = 0; k < w * h; ++k)
      (pixels[3 * k] > 250 && pixels[3 * k + 1] > 250 && pixels[3 * k + 2] > 250 ? white : other)++;
    EXPECT_GT(white, w * h / 2);
    EXPECT_GT(other, w * h / 50);
    stbi_image_free(pixels);
  }
}

// A map of more cells than the PNG has pixels: each single column still shows (pooled, not
// sampled), and no pair is outlined on cells too small for it (it would blacken the map).
TEST(FigureExport, APngOfAMapOfMoreCellsThanPixelsKeepsItsColumnsAndSkipsOutlines) {
  const auto render = [](bool outlined) {
    Figure f;
    HeatmapPanel h;
    h.rows = h.cols = 601;
    h.values.assign(601 * 601, 0.0f);
    for (int i = 0; i < 601; ++i) h.values[static_cast<size_t>(i) * 601 + 301] = 1.0f;
    h.color_scale = {0, 1, ValueScale::Linear, false};
    if (outlined)
      for (int i = 0; i < 601; i += 2)
        for (int j = 0; j < 601; j += 2) h.outlined.emplace_back(i, j);
    f.panels.push_back(h);
    ExportOptions o;
    o.width = 400;
    const std::string png = render_figure(f, FigureFormat::Png, o);
    int w = 0, h_px = 0, channels = 0;
    unsigned char* pixels = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()),
                                                  static_cast<int>(png.size()), &w, &h_px, &channels, 3);
    EXPECT_NE(pixels, nullptr);
    int yellow = 0, dark = 0;  // viridis' top, and near black
    for (int k = 0; pixels && k < w * h_px; ++k) {
      const unsigned char* c = pixels + 3 * k;
      yellow += c[0] > 200 && c[1] > 200 && c[2] < 100;
      dark += c[0] < 40 && c[1] < 40 && c[2] < 40;
    }
    stbi_image_free(pixels);
    return std::pair{yellow, dark};
  };
  const auto [yellow, dark] = render(false);
  EXPECT_GT(yellow, 150);  // the column, down the map's 300-odd pixels
  EXPECT_EQ(render(true), std::make_pair(yellow, dark));
}

TEST(FigureExport, SvgCarriesTheLabelsAsText) {
  const std::string svg = render_figure(sample(), FigureFormat::Svg);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find(">Sample figure</text>"), std::string::npos);
  EXPECT_NE(svg.find(">lighthouse</text>"), std::string::npos);
  EXPECT_NE(svg.find("rotate(-90)"), std::string::npos);                             // column labels read upwards
  EXPECT_NE(svg.find("data:image/png;base64,"), std::string::npos);                  // the cells, embedded exactly
  EXPECT_NE(svg.find("<path fill=\"none\" stroke=\"#000000\""), std::string::npos);  // the outlined cell
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

// A map's frame is drawn outside its cells, so that its first and last rows and columns stay in
// sight when a token is a fraction of a point (a long text; the [CLS] or sink column is the first).
TEST(FigureExport, AMapsFrameLiesOutsideItsCells) {
  const std::string svg = render_figure(sample(), FigureFormat::Svg);
  const auto number = [&](size_t from, const std::string& name) {
    const size_t at = svg.find(name + "=\"", from);
    EXPECT_NE(at, std::string::npos) << name;
    return std::stod(svg.substr(at + name.size() + 2));
  };
  const size_t image = svg.find("<image "), frame = svg.find("<rect ", image);
  ASSERT_NE(image, std::string::npos);
  ASSERT_NE(frame, std::string::npos);
  ASSERT_NE(svg.substr(frame, 200).find("fill=\"none\""), std::string::npos);  // the heatmap's frame, next
  const double x = number(image, "x"), y = number(image, "y"), w = number(image, "width"), h = number(image, "height");
  const double half = number(frame, "stroke-width") / 2;
  EXPECT_GT(half, 0);
  EXPECT_LE(number(frame, "x") + half, x);
  EXPECT_LE(number(frame, "y") + half, y);
  EXPECT_GE(number(frame, "x") + number(frame, "width") - half, x + w);
  EXPECT_GE(number(frame, "y") + number(frame, "height") - half, y + h);
}

TEST(FigureExport, SvgEscapesMarkupInLabels) {
  Figure f = sample();
  f.title = "a < b & \"c\"";
  const std::string svg = render_figure(f, FigureFormat::Svg);
  EXPECT_NE(svg.find(">a &lt; b &amp; &quot;c&quot;</text>"), std::string::npos);
  EXPECT_EQ(svg.find("a < b"), std::string::npos);
}

// A long text's pair table shows its first rows and counts the rest as people read counts.
TEST(FigureExport, APairTablesRestIsCountedInDigitGroups) {
  Figure f;
  TokenTextPanel p;
  p.tokens = {"a", "b"};
  p.color_index = {0, 0};
  p.table_header = {"token i", "token j", "i", "j", "S_hat"};
  p.table.assign(kTableRowsShown, {"a", "b", "0", "1", "1.000"});
  p.table_rows = 271387;
  f.panels.push_back(p);
  EXPECT_NE(render_figure(f, FigureFormat::Svg).find(">... and 271,347 more pairs</text>"), std::string::npos);
  std::get<TokenTextPanel>(f.panels[0]).table_rows = kTableRowsShown + 1;
  EXPECT_NE(render_figure(f, FigureFormat::Svg).find(">... and 1 more pair</text>"), std::string::npos);
}

TEST(FigureExport, PdfTextHasTitleAndTokenLabels) {
  const test::TempDir dir;
  export_figure(sample(), dir / "f.pdf");
  const std::string text = run("pdftotext -layout '" + (dir / "f.pdf").string() + "' -");
  EXPECT_NE(text.find("Sample figure"), std::string::npos) << text;
  EXPECT_NE(text.find("lighthouse"), std::string::npos) << text;
  EXPECT_NE(text.find("n/a"), std::string::npos) << text;  // the undefined bar
}

TEST(FigureExport, FormatFromTheExtensionAndBadOptions) {
  EXPECT_EQ(figure_format("a/b.PNG"), FigureFormat::Png);
  EXPECT_EQ(figure_format("x.svg"), FigureFormat::Svg);
  EXPECT_EQ(figure_format("x.pdf"), FigureFormat::Pdf);
  EXPECT_THROW(figure_format("x.jpg"), Error);
  EXPECT_THROW(figure_format("noext"), Error);
  ExportOptions o;
  o.png_scale = 5;
  EXPECT_THROW(render_figure(sample(), FigureFormat::Png, o), Error);
  const test::TempDir dir;
  EXPECT_THROW(export_figure(sample(), dir / "missing-folder" / "f.png"), Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "missing-folder"));
}

// cairo draws no image past 32,767 pixels a side (a Lines figure of a 2,048-token text is taller):
// one line with the size, and what fits, before any pixel is allocated.
TEST(FigureExport, APngTooLargeForCairoIsRefusedSayingWhatFits) {
  ExportOptions o;
  o.width = 20000;
  o.png_scale = 2;
  try {
    render_figure(sample(), FigureFormat::Png, o);
    FAIL() << "a PNG 40,000 pixels wide was made";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_EQ(text.rfind("the PNG would be 40000 x ", 0), 0u) << text;
    EXPECT_NE(text.find("more than the 32767 a side cairo draws: write it as SVG or PDF, or as a PNG of at most 1.6 "
                        "pixels a point"),
              std::string::npos)
        << text;
  }
  EXPECT_EQ(render_figure(sample(), FigureFormat::Svg, o).rfind("<?xml", 0), 0u);  // the same figure as SVG
}

TEST(FigureExport, EmptyFigureStillMakesAValidFile) {
  const std::string pdf = render_figure(Figure{}, FigureFormat::Pdf);
  EXPECT_EQ(pdf.rfind("%PDF", 0), 0u);
}

}  // namespace
}  // namespace attnscope
