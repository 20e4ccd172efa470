// The findings report as a PDF of A4 pages: a summary page, then a page per finding with its
// numbers and its figure.
#include <cairo-pdf.h>
#include <cairo.h>

#include <memory>

#include "base/atomic_file.h"
#include "figures/cairo_painter.h"
#include "figures/figure_export.h"
#include "figures/figure_layout.h"
#include "report/finding_figures.h"
#include "report/findings_report.h"

namespace attnscope {
namespace {

constexpr double kPageWidth = 595.28, kPageHeight = 841.89, kMargin = 48;
constexpr Rgb kInk{0.1f, 0.1f, 0.1f}, kGrey{0.45f, 0.45f, 0.45f}, kRule{0.75f, 0.75f, 0.75f};

Rgb verdict_color(Verdict v) {
  if (v == Verdict::Holds) return {0.1f, 0.5f, 0.2f};
  if (v == Verdict::DoesNotHold) return {0.75f, 0.12f, 0.1f};
  return kGrey;
}

// The text in lines no wider than `width`: at spaces, and a word wider than the line (a model's
// name) cut between characters.
std::vector<std::string> wrap_cell(const std::string& text, double width, double size, const TextMeasure& measure) {
  std::vector<std::string> lines;
  for (const std::string& line : wrap_words(text, width, size, measure)) {
    std::string rest = line;
    while (measure(rest, size) > width && rest.size() > 1) {
      size_t cut = rest.size() - 1;
      while (cut > 1 && (measure(rest.substr(0, cut), size) > width || (rest[cut] & 0xC0) == 0x80)) --cut;
      lines.push_back(rest.substr(0, cut));
      rest.erase(0, cut);
    }
    lines.push_back(rest);
  }
  return lines;
}

struct TableCell {
  std::string text;
  Rgb color = kInk;
};

// Writes down a page: wrapped paragraphs and ruled tables, from the top margin on.
class PageWriter {
 public:
  explicit PageWriter(cairo_t* cr) : cr_(cr), painter_(cr), measure_(measure_with(painter_)) {}

  double y() const { return y_; }
  void skip(double points) { y_ += points; }
  void next_page() {
    cairo_show_page(cr_);
    y_ = kMargin;
  }

  void paragraph(const std::string& text, double size, Rgb color = kInk, double width = kPageWidth - 2 * kMargin) {
    for (const std::string& line : wrap_words(text, width, size, measure_)) {
      painter_.text(line, kMargin, y_ + size * 0.6, size, Align::Left, false, color);
      y_ += size * 1.35;
    }
    y_ += size * 0.5;
  }

  // Columns share the text width in the given proportions; each row is as tall as its longest cell.
  void table(const std::vector<std::vector<TableCell>>& rows, const std::vector<double>& weights, double size) {
    double total = 0;
    for (double w : weights) total += w;
    std::vector<double> widths;
    for (double w : weights) widths.push_back((kPageWidth - 2 * kMargin) * w / total);
    for (size_t r = 0; r < rows.size(); ++r) {
      std::vector<std::vector<std::string>> lines;
      size_t tallest = 1;
      for (size_t c = 0; c < rows[r].size(); ++c) {
        lines.push_back(wrap_cell(rows[r][c].text, widths[c] - 6, size, measure_));
        tallest = std::max(tallest, lines.back().size());
      }
      double x = kMargin;
      for (size_t c = 0; c < rows[r].size(); ++c) {
        for (size_t k = 0; k < lines[c].size(); ++k)
          painter_.text(lines[c][k], x + 2, y_ + 3 + size * (0.6 + 1.3 * static_cast<double>(k)), size, Align::Left,
                        false, rows[r][c].color);
        x += widths[c];
      }
      y_ += 6 + size * 1.3 * static_cast<double>(tallest);
      painter_.line(kMargin, y_, kPageWidth - kMargin, y_, r == 0 ? kInk : kRule, 1, r == 0 ? 0.8 : 0.4);
    }
    y_ += size;
  }

  void figure(const Figure& f) {
    y_ += paint_figure_in_box(cr_, f, kMargin, y_, kPageWidth - 2 * kMargin, kPageHeight - kMargin - y_);
  }

 private:
  cairo_t* cr_;
  CairoPainter painter_;
  TextMeasure measure_;
  double y_ = kMargin;
};

void summary_page(PageWriter& page, const FindingsReport& r) {
  std::string names;
  for (const RunMeasures& m : r.runs) names += (names.empty() ? "" : ", ") + m.name;
  page.paragraph("The paper's findings, checked on " + names, 17);
  page.paragraph(
      "Halevi et al., \"Self-attention vector output similarities reveal how machines pay attention\" (Physica A, "
      "2026) state these findings for BERT-base. Each is measured on the corpus runs below, with the number that "
      "decides it and the rule; the pages after this one show each finding's numbers and figure.",
      9.5);
  for (const ReportSource& s : r.sources)
    page.paragraph(s.description + (s.result.empty() ? "" : " (" + s.result.string() + ")"), 8.5, kGrey);
  page.skip(6);
  std::vector<std::vector<TableCell>> rows{{{"finding"}, {"paper, BERT-base"}}};
  for (const RunMeasures& m : r.runs) rows[0].push_back({m.name});
  const auto& findings = paper_findings();
  for (size_t f = 0; f < findings.size(); ++f) {
    std::vector<TableCell> row{{std::to_string(f + 1) + ". " + findings[f].claim}, {findings[f].paper_value, kGrey}};
    for (const Measured& m : r.results[f])
      row.push_back({m.value + ": " + verdict_name(m.verdict), verdict_color(m.verdict)});
    rows.push_back(std::move(row));
  }
  std::vector<double> weights{3.2, 1.8};
  weights.resize(2 + r.runs.size(), 1.6);
  page.table(rows, weights, r.runs.size() > 2 ? 7 : 8);
}

void finding_page(PageWriter& page, const FindingsReport& r, size_t f) {
  const Finding& finding = paper_findings()[f];
  page.paragraph(std::to_string(f + 1) + ". " + finding.claim, 14);
  page.paragraph("The paper (BERT-base, " + finding.paper_figure + "): " + finding.paper_value + ".", 9.5, kGrey);
  page.paragraph("Decided by " + finding.measure + "; the finding holds when " + finding.rule + ".", 9.5);
  std::vector<std::vector<TableCell>> rows{{{"model"}, {"value"}, {"verdict"}, {"beside it"}}};
  for (size_t k = 0; k < r.runs.size(); ++k) {
    const Measured& m = r.results[f][k];
    rows.push_back(
        {{r.runs[k].name}, {m.value}, {verdict_name(m.verdict), verdict_color(m.verdict)}, {m.detail, kGrey}});
  }
  page.table(rows, {1.6, 1.4, 1.0, 3.0}, 8.5);
  page.figure(finding_figure(finding, r.runs));
  page.skip(10);
  page.paragraph(
      "The paper-style figure of a run (its result file is named on the first page): attnscope-cli figure --fig " +
          finding.corpus_figure + " --corpus RESULT.json --out fig" + finding.corpus_figure + ".png",
      8, kGrey);
}

}  // namespace

void write_report_pdf(const FindingsReport& r, const std::filesystem::path& pdf) {
  std::string bytes;
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
      cairo_pdf_surface_create_for_stream(append_to_string, &bytes, kPageWidth, kPageHeight), cairo_surface_destroy);
  check_cairo(cairo_surface_status(surface.get()), "create the PDF");
  cairo_t* cr = cairo_create(surface.get());
  {
    PageWriter page(cr);
    summary_page(page, r);
    for (size_t f = 0; f < paper_findings().size(); ++f) {
      page.next_page();
      finding_page(page, r, f);
    }
    cairo_show_page(cr);
  }
  const cairo_status_t drawn = cairo_status(cr);
  cairo_destroy(cr);
  check_cairo(drawn, "draw the report");
  cairo_surface_finish(surface.get());
  check_cairo(cairo_surface_status(surface.get()), "finish the PDF");
  write_file_atomically(pdf, bytes);
}

}  // namespace attnscope
