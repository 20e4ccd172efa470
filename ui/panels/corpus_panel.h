#pragma once
// Corpus runs from the window: pick a file or folder, the number of windows, run with progress,
// rate, time left and cancel; or open a saved result; then its figures (2, 3, 6, 7, 8, 10, 11, 13).
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
  void open(const std::string& saved_result);  // also used by --corpus-result
  bool has_result() const { return job_.state().result != nullptr; }
  bool busy() const { return job_.state().running; }

 private:
  void draw_run_controls(const std::shared_ptr<const Checkpoint>& checkpoint, const CorpusJobState& s);
  CorpusJob job_;
  std::string input_ = "assets/examples", output_ = "corpus-result.json", saved_ = "corpus-result.json";
  int windows_ = 200, batch_ = 8, figure_ = 0;
  FigureCanvas canvas_;
  std::string key_, error_;
  const CorpusAccumulator* shown_ = nullptr;
};

}  // namespace attnscope::ui
