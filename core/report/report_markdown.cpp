// The findings report as Markdown, its figures as PNG files beside it.
#include <sstream>

#include "base/atomic_file.h"
#include "base/error.h"
#include "figures/figure_export.h"
#include "report/finding_figures.h"
#include "report/findings_report.h"

namespace attnscope {
namespace {

// A table cell: pipes escaped, so that "|j - i|" does not split the row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string verdict_cell(const Measured& m) {
  return cell(m.value) + ": " + (m.verdict == Verdict::Holds ? "**holds**" : verdict_name(m.verdict));
}

void write_summary(std::ostringstream& out, const FindingsReport& r) {
  out << "| finding | paper, BERT-base |";
  for (const RunMeasures& m : r.runs) out << " " << cell(m.name) << " |";
  out << "\n| --- | --- |";
  for (size_t k = 0; k < r.runs.size(); ++k) out << " --- |";
  out << "\n";
  const auto& findings = paper_findings();
  for (size_t f = 0; f < findings.size(); ++f) {
    out << "| " << f + 1 << ". " << cell(findings[f].claim) << " | " << cell(findings[f].paper_value) << " |";
    for (const Measured& m : r.results[f]) out << " " << verdict_cell(m) << " |";
    out << "\n";
  }
}

void write_finding(std::ostringstream& out, const FindingsReport& r, size_t f, const std::string& image) {
  const Finding& finding = paper_findings()[f];
  out << "\n## " << f + 1 << ". " << finding.claim << "\n\n";
  out << "The paper (BERT-base, " << finding.paper_figure << "): " << finding.paper_value << ".\n\n";
  out << "Decided by " << finding.measure << "; the finding holds when " << finding.rule << ".\n\n";
  out << "| model | value | verdict | beside it |\n| --- | --- | --- | --- |\n";
  for (size_t k = 0; k < r.runs.size(); ++k) {
    const Measured& m = r.results[f][k];
    out << "| " << cell(r.runs[k].name) << " | " << cell(m.value) << " | " << verdict_name(m.verdict) << " | "
        << cell(m.detail) << " |\n";
  }
  out << "\n![" << finding.claim << "](" << image << ")\n\n";
  out << "The paper-style figure (Fig. " << finding.corpus_figure << ") of a run: `attnscope-cli figure --fig "
      << finding.corpus_figure << " --corpus " << r.sources.front().result.string() << " --out fig"
      << finding.corpus_figure << ".png`\n";
}

}  // namespace

void write_report_markdown(const FindingsReport& r, const std::filesystem::path& markdown,
                           const std::filesystem::path& figures) {
  std::error_code ec;
  std::filesystem::create_directories(figures, ec);
  if (!std::filesystem::is_directory(figures)) throw Error(figures.string() + ": cannot create the figures' folder");
  std::ostringstream out;
  std::string names;
  for (const RunMeasures& m : r.runs) names += (names.empty() ? "" : ", ") + m.name;
  out << "# The paper's findings, checked on " << names << "\n\n";
  out << "Halevi et al., \"Self-attention vector output similarities reveal how machines pay attention\" "
         "(Physica A, 2026) state these findings for BERT-base. Each is measured here on the corpus runs below, "
         "with the number that decides it, the rule, and the paper's value where it gives one.\n\n";
  for (const ReportSource& s : r.sources) out << "- " << s.description << " (`" << s.result.string() << "`)\n";
  out << "\n";
  write_summary(out, r);
  const auto relative =
      std::filesystem::relative(figures, markdown.parent_path().empty() ? "." : markdown.parent_path());
  for (size_t f = 0; f < paper_findings().size(); ++f) {
    const std::string file = paper_findings()[f].key + ".png";
    export_figure(finding_figure(paper_findings()[f], r.runs), figures / file);
    write_finding(out, r, f, (relative / file).generic_string());
  }
  write_file_atomically(markdown, out.str());
}

}  // namespace attnscope
