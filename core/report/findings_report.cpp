#include "report/findings_report.h"

#include "base/error.h"

namespace attnscope {

FindingsReport make_report(std::vector<ReportSource> sources) {
  if (sources.empty()) throw Error("a report needs at least one corpus run");
  FindingsReport r;
  for (const ReportSource& s : sources) {
    if (!s.corpus) throw Error(s.name + ": the report's source has no corpus run");
    r.runs.push_back(measure_run(*s.corpus, s.name));
  }
  for (const Finding& f : paper_findings()) {
    std::vector<Measured> row;
    for (const RunMeasures& m : r.runs) row.push_back(f.evaluate(m));
    r.results.push_back(std::move(row));
  }
  r.sources = std::move(sources);
  return r;
}

std::string model_display_name(const std::string& model) {
  const std::filesystem::path p = std::filesystem::path(model).lexically_normal();
  const std::filesystem::path last = (p.has_filename() ? p : p.parent_path()).filename();
  const std::string name = last.extension() == ".gguf" ? last.stem().string() : last.string();
  return name.empty() ? model : name;
}

ReportSource report_source(std::string name, std::filesystem::path result, const CorpusFile& f) {
  if (name.empty()) name = model_display_name(f.model_path);
  char text[512];
  std::snprintf(text, sizeof text, "%s: %llu windows of %zu tokens from %llu documents in %s; tau %.3g, tau_sep %.3g%s",
                name.c_str(), static_cast<unsigned long long>(f.windows), f.options.window,
                static_cast<unsigned long long>(f.documents), f.options.input.filename().c_str(),
                f.options.settings.tau, f.options.settings.tau_sep, f.partial ? " (a partial run)" : "");
  return {std::move(name), std::move(result), text, f.accumulator};
}

}  // namespace attnscope
