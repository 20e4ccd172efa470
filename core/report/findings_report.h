#pragma once
// The findings report: for one or more corpus runs (one per model, on one corpus), every finding
// of the paper measured and judged, written as a PDF of several pages (cairo) and as Markdown with
// its figures beside it as PNG files.
#include <filesystem>
#include <string>
#include <vector>

#include "report/findings.h"
#include "results/corpus_json.h"

namespace attnscope {

struct ReportSource {
  std::string name;              // the model as the report names it (its folder's name)
  std::filesystem::path result;  // the corpus result file the numbers come from
  std::string description;       // the run in one line: windows, corpus, settings
  std::shared_ptr<const CorpusAccumulator> corpus;
};

// A source from a corpus result file read or written by the caller; an empty name is the model's
// (model_display_name of the file's model path).
ReportSource report_source(std::string name, std::filesystem::path result, const CorpusFile& file);
// A model's name in a report: its folder's name ("models/all-mpnet-base-v2/" -> "all-mpnet-base-v2"),
// a GGUF file's name without ".gguf", or the id as given.
std::string model_display_name(const std::string& model);

struct FindingsReport {
  std::vector<ReportSource> sources;
  std::vector<RunMeasures> runs;               // one per source
  std::vector<std::vector<Measured>> results;  // [finding][run], findings as paper_findings() orders them
};

// Throws attnscope::Error when there is no run.
FindingsReport make_report(std::vector<ReportSource> sources);

// The Markdown file, with the figures written as PNG files into `figures` (a folder beside it; the
// Markdown links to them by relative path).
void write_report_markdown(const FindingsReport& report, const std::filesystem::path& markdown,
                           const std::filesystem::path& figures);
// The same as one PDF: a summary page, then a page per finding.
void write_report_pdf(const FindingsReport& report, const std::filesystem::path& pdf);

}  // namespace attnscope
