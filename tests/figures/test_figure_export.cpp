// Exported files open and contain what the figure says: PNG decoded by stb at the asked scale,
// SVG and PDF text read back (the PDF through poppler's pdftotext).
#include <gtest/gtest.h>

#include <stb_image.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "error.h"
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
    unsigned char* pixels = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()), static_cast<int>(png.size()), &w, &h, &channels, 3);
    ASSERT_NE(pixels, nullptr);
    EXPECT_EQ(w, static_cast<int>(400 * scale));
    // Not blank: white background, dark text, coloured cells.
    int white = 0, other = 0;
    for (int k = 0; k < w * h; ++k) (pixels[3 * k] > 250 && pixels[3 * k + 1] > 250 && pixels[3 * k + 2] > 250 ? white : other)++;
    EXPECT_GT(white, w * h / 2);
    EXPECT_GT(other, w * h / 50);
    stbi_image_free(pixels);
  }
}

TEST(FigureExport, SvgCarriesTheLabelsAsText) {
  const std::string svg = render_figure(sample(), FigureFormat::Svg);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  // cairo writes glyphs as paths; the text itself is not in the file, so check glyph use and size
  // instead, and the labels through the PDF below.
  EXPECT_NE(svg.find("<image"), std::string::npos);  // the heatmap cells, embedded exactly
  EXPECT_NE(svg.find("glyph"), std::string::npos);
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

TEST(FigureExport, EmptyFigureStillMakesAValidFile) {
  const std::string pdf = render_figure(Figure{}, FigureFormat::Pdf);
  EXPECT_EQ(pdf.rfind("%PDF", 0), 0u);
}

}  // namespace
}  // namespace attnscope
