// attnscope-cli report: the paper's findings checked on one or more models, from corpus runs made
// here (or reused when already made with the same model, corpus and settings) or given as files.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "base/error.h"
#include "commands.h"
#include "corpus/allocator_tuning.h"
#include "corpus_runner.h"
#include "progress_line.h"
#include "report/findings_report.h"
#include "results/corpus_csv.h"

namespace attnscope::cli {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::vector<std::string> models, results;
  RunOptions run;  // --max-len, --device, --precision, --threads for every model
  AnalysisOptions analysis;
  std::string input = ATTNSCOPE_CORPUS_DIR;
  size_t batch = 8;
  uint64_t max_windows = 0;
  std::string out = "report.pdf", runs;
};

// The saved run in `path` when it can be read; a file that cannot is run again, not fatal.
std::optional<CorpusFile> saved_run(const std::string& path) {
  if (!fs::exists(path)) return std::nullopt;
  try {
    return load_corpus_shown(path);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s cannot be reused (%s); running it again\n", path.c_str(), e.what());
    return std::nullopt;
  }
}

// The corpus run of one model, saved as runs/<name>.json: reused when that file is the same run
// and complete, continued when it is the same run stopped early, made anew otherwise.
ReportSource model_run(const ReportOptions& o, const std::string& model, const std::string& name) {
  CorpusCommandOptions c;
  c.model = o.run;
  c.model.model = model;
  c.analysis = o.analysis;
  c.input = o.input;
  c.batch = o.batch;
  c.max_windows = o.max_windows;
  c.out = (fs::path(o.runs) / (name + ".json")).string();
  ComputeDevice device;
  const auto checkpoint = load_checkpoint(c.model, device);
  CorpusFile file = new_corpus_file(c, *checkpoint, device);
  if (const auto saved = saved_run(c.out);
      saved && same_corpus_run(*saved, file) && saved->options.max_windows == file.options.max_windows) {
    if (!saved->partial) {
      std::fprintf(stderr, "%s: reusing the corpus run in %s (%s)\n", name.c_str(), c.out.c_str(),
                   count(saved->windows, "window").c_str());
      return report_source(name, c.out, *saved);
    }
    std::fprintf(stderr, "%s: continuing the partial run in %s\n", name.c_str(), c.out.c_str());
    file.accumulator = saved->accumulator;
    file.windows = saved->windows;
  }
  std::fprintf(stderr, "%s: corpus run into %s\n", name.c_str(), c.out.c_str());
  run_and_save_corpus(c, *checkpoint, file);
  write_corpus_csv_shown(default_csv_folder(c.out).string(), *file.accumulator);
  if (file.partial) throw Error("stopped: the partial run is saved in " + c.out + "; run the report again to continue");
  return report_source(name, c.out, file);
}

// The models' names in the report and their runs' files: a name given twice (two folders both
// called "model") gets "-2", "-3", ... so that neither run overwrites the other.
std::vector<std::string> distinct_names(const std::vector<std::string>& models) {
  std::vector<std::string> names;
  for (const std::string& m : models) {
    std::string name = model_display_name(m);
    for (int k = 2; std::find(names.begin(), names.end(), name) != names.end(); ++k)
      name = model_display_name(m) + "-" + std::to_string(k);
    names.push_back(name);
  }
  return names;
}

int run_report(ReportOptions o) {
  if (o.models.empty() && o.results.empty()) throw Error("give --model (one or more) or --corpus RESULT.json");
  const fs::path out(o.out);
  if (out.extension() != ".pdf") throw Error(o.out + ": the report is a PDF: give a name ending in .pdf");
  if (o.runs.empty()) o.runs = (out.parent_path() / (out.stem().string() + "-runs")).string();
  if (!o.models.empty()) {
    std::error_code ec;
    fs::create_directories(o.runs, ec);
    if (!fs::is_directory(o.runs)) throw Error(o.runs + ": cannot create the folder for the corpus runs");
    keep_freed_memory_for_reuse();
  }
  std::vector<ReportSource> sources;
  for (const std::string& r : o.results) {
    const CorpusFile file = load_corpus_shown(r);
    sources.push_back(report_source("", r, file));
  }
  const std::vector<std::string> names = distinct_names(o.models);
  for (size_t k = 0; k < o.models.size(); ++k) sources.push_back(model_run(o, o.models[k], names[k]));
  const fs::path markdown = fs::path(o.out).replace_extension(".md"),
                 figures = out.parent_path() / (out.stem().string() + "-figures");
  const FindingsReport report = [&] {
    StageProgress progress;  // every finding's figure drawn twice: seconds; ended before the findings are printed
    progress.begin("writing " + o.out);
    FindingsReport made = make_report(std::move(sources));
    write_report_pdf(made, out);
    write_report_markdown(made, markdown, figures);
    return made;
  }();
  for (size_t f = 0; f < paper_findings().size(); ++f) {
    std::printf("%2zu. %s\n", f + 1, paper_findings()[f].claim.c_str());
    for (size_t k = 0; k < report.runs.size(); ++k)
      std::printf("    %-28s %-34s %s\n", report.runs[k].name.c_str(), report.results[f][k].value.c_str(),
                  verdict_name(report.results[f][k].verdict));
  }
  std::printf("report in %s and %s (figures in %s/)\n", o.out.c_str(), markdown.string().c_str(),
              figures.string().c_str());
  return 0;
}

}  // namespace

Action add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand(
      "report",
      "Check the paper's findings (Halevi et al. 2026) on one or more models: runs each model over a corpus (the "
      "default corpus shipped in assets/corpus unless --input is given), measures every finding, and writes a PDF and "
      "the same as Markdown with its figures. A corpus run already made with the same model, corpus and settings is "
      "reused");
  cmd->add_option("--model", o->models, "Checkpoint folder, GGUF file or model id; repeat to put models side by side");
  cmd->add_option("--corpus", o->results, "A corpus result already made (attnscope-cli corpus); may be repeated");
  cmd->add_option("--input", o->input, "The corpus: a text file, a JSON Lines file or a folder of them")
      ->capture_default_str();
  cmd->add_option("--max-len", o->run.max_length, "Tokens per window, the special ones included (default 128)")
      ->check(CLI::Range(3, 1 << 20));
  cmd->add_option("--device", o->run.device, "auto (CUDA when present), cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--precision", o->run.precision, "float32, or float16 / bfloat16 on CUDA")->capture_default_str();
  cmd->add_option("--threads", o->run.threads, "CPU threads for libtorch")->check(CLI::Range(1, 1024));
  cmd->add_option("--batch", o->batch, "Windows per forward pass")->capture_default_str()->check(CLI::Range(1, 4096));
  cmd->add_option("--max-windows", o->max_windows, "Stop each corpus run after this many windows (default: all)");
  cmd->add_option("--tau", o->analysis.settings.tau, "High-similarity threshold on S / max S")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 1.0));
  cmd->add_option("--tau-sep", o->analysis.settings.tau_sep, "Separator threshold")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 1.0));
  cmd->add_option("--out", o->out, "The PDF; the Markdown and its figures go beside it")->capture_default_str();
  cmd->add_option("--runs", o->runs, "Folder of the corpus runs (default: the PDF's name with -runs)");
  return [o] { return run_report(*o); };
}

}  // namespace attnscope::cli
