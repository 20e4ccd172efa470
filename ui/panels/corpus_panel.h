#pragma once
// Corpus runs from the window: pick a file or folder, the number of windows, run with progress,
// rate, time left and cancel; or open a saved result; then its figures (2, 3, 6, 7, 8, 10, 11, 13),
// alone or beside a second saved result (B): distributions side by side, maps with B - A; and the
// paper's findings checked on the run (and B) as a report.
#include <functional>
#include <memory>
#include <string>

#include "corpus_job.h"
#include "figure_canvas.h"
#include "panels/panel_context.h"

namespace attnscope::ui {

class CorpusPanel {
 public:
  // `checkpoint` may be null while the model loads.
  // `controls` draws the layer and head choice (the explorer's, shared with the other views).
  PanelActions draw(const PanelContext& context, std::shared_ptr<const Checkpoint> checkpoint,
                    const std::function<void(ViewState&)>& controls);
  void open(const std::string& saved_result);    // also used by --corpus-result
  void open_b(const std::string& saved_result);  // compare with this one (--corpus-result-b)
  bool has_result() const {
    return job_.state().result != nullptr && (!comparing_ || job_b_.state().result != nullptr);
  }
  bool busy() const { return job_.state().running || job_b_.state().running; }

 private:
  void draw_run_controls(const std::shared_ptr<const Checkpoint>& checkpoint, const CorpusJobState& s);
  void draw_compare_controls();
  Figure build(const CorpusAccumulator& a, const FigureOptions& o) const;
  // The findings report of the run shown (and of B beside it when comparing), as a PDF and Markdown.
  void draw_report_controls();
  void write_report();
  CorpusJob job_, job_b_;
  std::string saved_b_ = "corpus-result-b.json";
  bool comparing_ = false;
  std::string input_ = "assets/examples", output_ = "corpus-result.json", saved_ = "corpus-result.json";
  int windows_ = 200, batch_ = 8, figure_ = 0;
  FigureCanvas canvas_;
  std::string key_, error_;
  std::string report_ = "report.pdf", report_message_;
  const CorpusAccumulator *shown_ = nullptr, *shown_b_ = nullptr;
};

}  // namespace attnscope::ui
