#include "panels/corpus_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include "base/error.h"
#include "base/error_message.h"
#include "figures/compare_corpus_figures.h"
#include "figures/corpus_figures.h"
#include "panels/figure_panel.h"

namespace attnscope::ui {
namespace {

const char* kFigures[] = {"2", "3", "6", "7", "8", "10", "11", "13"};

std::string duration(double seconds) {
  char buf[32];
  const int s = static_cast<int>(seconds + 0.5);
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%dh%02dm", s / 3600, (s / 60) % 60);
  else
    std::snprintf(buf, sizeof buf, "%dm%02ds", s / 60, s % 60);
  return buf;
}

void draw_progress(const CorpusJobState& s) {
  const CorpusProgress& p = s.progress;
  const double f = p.fraction();
  const double rate = p.seconds > 0 ? p.windows / p.seconds : 0;
  const double left = f > 0 ? p.seconds * (1 - f) / f : 0;
  char overlay[160];
  std::snprintf(overlay, sizeof overlay, "%llu windows, %.1f / s, %s left", static_cast<unsigned long long>(p.windows),
                rate, f > 0 ? duration(left).c_str() : "?");
  ImGui::ProgressBar(static_cast<float>(f), ImVec2(-1, 0), overlay);
}

}  // namespace

void CorpusPanel::open(const std::string& saved) {
  saved_ = saved;
  job_.start_open(saved);
}

void CorpusPanel::open_b(const std::string& saved) {
  saved_b_ = saved;
  comparing_ = true;
  job_b_.start_open(saved);
}

void CorpusPanel::draw_compare_controls() {
  const CorpusJobState b = job_b_.state();
  ImGui::SetNextItemWidth(260);
  ImGui::InputText("##saved b", &saved_b_);
  ImGui::SameLine();
  ImGui::BeginDisabled(b.running);
  if (ImGui::Button("Compare with (B)")) open_b(saved_b_);
  ImGui::EndDisabled();
  if (!comparing_) return;
  ImGui::SameLine();
  if (ImGui::Button("Stop comparing")) comparing_ = false;
  if (!b.message.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("B: %s", b.message.c_str());
    ImGui::PopTextWrapPos();
  }
}

// The figure of the run alone, or of the run (A) beside B.
Figure CorpusPanel::build(const CorpusAccumulator& a, const FigureOptions& o) const {
  const auto b = job_b_.state().result;
  if (!comparing_ || !b) return corpus_figure(kFigures[figure_], a, o);
  return compare_corpus_figure(kFigures[figure_], {a, *b, "A", "B"}, o);
}

void CorpusPanel::draw_run_controls(const std::shared_ptr<const Checkpoint>& checkpoint, const CorpusJobState& s) {
  ImGui::InputText("text file, folder or .jsonl", &input_);
  ImGui::SetNextItemWidth(160);
  ImGui::InputInt("windows (0: all)", &windows_);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(120);
  ImGui::InputInt("batch", &batch_);
  windows_ = std::max(0, windows_);
  batch_ = std::clamp(batch_, 1, 256);
  ImGui::InputText("save result to", &output_);
  ImGui::BeginDisabled(s.running || !checkpoint);
  if (ImGui::Button("Run")) {
    CorpusOptions o;
    o.input = input_;
    o.window = checkpoint->default_max_length();
    o.batch = static_cast<size_t>(batch_);
    o.max_windows = static_cast<uint64_t>(windows_);
    job_.start_run(checkpoint, o, output_);
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!s.running);
  if (ImGui::Button("Cancel")) job_.cancel();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::TextDisabled("|");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(260);
  ImGui::InputText("##saved", &saved_);
  ImGui::SameLine();
  ImGui::BeginDisabled(s.running);
  if (ImGui::Button("Open saved result")) open(saved_);
  ImGui::EndDisabled();
}

void CorpusPanel::write_report() {
  std::vector<ReportSource> sources{job_.state().report};
  if (comparing_ && job_b_.state().result) sources.push_back(job_b_.state().report);
  const std::filesystem::path pdf(report_);
  if (pdf.extension() != ".pdf") throw Error(report_ + ": the report is a PDF: give a name ending in .pdf");
  const FindingsReport report = make_report(std::move(sources));
  write_report_pdf(report, pdf);
  const auto markdown = std::filesystem::path(pdf).replace_extension(".md");
  write_report_markdown(report, markdown, pdf.parent_path() / (pdf.stem().string() + "-figures"));
  int holding = 0;
  for (const auto& row : report.results)
    for (const Measured& m : row) holding += m.verdict == Verdict::Holds;
  report_message_ = "wrote " + report_ + " and " + markdown.string() + ": " + std::to_string(holding) + " of " +
                    std::to_string(report.results.size() * report.runs.size()) + " findings hold";
}

void CorpusPanel::draw_report_controls() {
  ImGui::TextDisabled("|");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(220);
  ImGui::InputText("##report", &report_);
  ImGui::SameLine();
  if (ImGui::Button("Findings report")) {
    try {
      write_report();
    } catch (const std::exception& e) {
      report_message_ = "error: " + error_message(e);
    }
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The paper's findings checked on this run (and B when comparing): a PDF, and Markdown beside it");
  if (!report_message_.empty()) ImGui::TextWrapped("%s", report_message_.c_str());
}

PanelActions CorpusPanel::draw(const PanelContext& c, std::shared_ptr<const Checkpoint> checkpoint,
                               const std::function<void(ViewState&)>& controls) {
  PanelActions actions;
  const CorpusJobState s = job_.state();
  draw_run_controls(checkpoint, s);
  if (s.running) draw_progress(s);
  if (!s.message.empty()) ImGui::TextWrapped("%s", s.message.c_str());
  if (!s.result) return actions;
  draw_compare_controls();
  ViewState state = c.state;
  controls(state);
  if (state.layer != c.state.layer || state.head != c.state.head) actions.state = state;
  ImGui::TextUnformatted("figure");
  for (int k = 0; k < static_cast<int>(std::size(kFigures)); ++k) {
    ImGui::SameLine();
    ImGui::RadioButton(kFigures[k], &figure_, k);
  }
  FigureOptions o = figure_options(c.state);
  o.head = std::max(0, o.head);
  const std::string key = std::string(kFigures[figure_]) + figure_key(0, o) + (comparing_ ? "|b" : "");
  const auto b = job_b_.state().result;
  if (key != key_ || shown_ != s.result.get() || shown_b_ != b.get()) {
    key_ = key;
    shown_ = s.result.get();
    shown_b_ = b.get();
    error_.clear();
    try {
      canvas_.set(build(*s.result, o));
    } catch (const std::exception& e) {
      canvas_.set({});
      error_ = error_message(e);
    }
  }
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
  if (ImGui::Button("Export...")) actions.export_figure = &canvas_.figure();
  ImGui::SameLine();
  draw_report_controls();
  ImGui::BeginChild("corpus figure", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  canvas_.draw(c.renderer, std::max(200.0f, ImGui::GetContentRegionAvail().x), c.figure_font);
  ImGui::EndChild();
  return actions;
}

}  // namespace attnscope::ui
