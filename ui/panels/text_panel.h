#pragma once
// Text in: the editor (type, paste, drop a .txt file, open a file, examples), the token strip
// with indices and the truncation notice, the model and device in use, and the analysis settings.
#include <string>
#include <vector>

#include "analysis_worker.h"
#include "settings_store.h"
#include "text_editor.h"

namespace attnscope::ui {

struct TextPanelResult {
  bool text_edited = false;       // rerun (every edit does: the newest request wins)
  bool settings_changed = false;  // rerun
};

class TextPanel {
 public:
  explicit TextPanel(std::string examples_dir);
  // `busy`: a run is under way (said in words, not animated: see text_panel.cpp).
  TextPanelResult draw(Settings& settings, const ModelStatus& model, const AnalysisSnapshot* shown,
                       const AnalysisSnapshot* latest, bool busy);
  // Reads a UTF-8 text file into the editor (one undo step); false with a message on failure.
  bool load_file(const std::string& path);
  const std::string& text() const { return editor_.text(); }
  void set_text(std::string text) { editor_.buffer().set_text(std::move(text)); }
  TextEditor& editor() { return editor_; }
  const TextEditor& editor() const { return editor_; }

 private:
  void draw_tokens(const AnalysisSnapshot& shown);
  bool draw_settings(Settings& settings);
  TextEditor editor_;
  std::string examples_dir_, open_path_, message_;
  std::vector<std::string> examples_;
};

}  // namespace attnscope::ui
