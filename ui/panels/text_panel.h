#pragma once
// Text in: the editor (type, paste, drop a .txt file, open a file, examples), the token strip
// with indices and the truncation notice, a decoder's most likely next tokens (each appended with
// a click), the model and device in use, and the analysis settings.
#include <string>
#include <string_view>
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
  // `busy`: a run is under way (said in words, not animated: see text_panel.cpp); `progress`: how
  // far a long text's has come.
  TextPanelResult draw(Settings& settings, const ModelStatus& model, const AnalysisSnapshot* shown,
                       const AnalysisSnapshot* latest, bool busy, const RunProgress& progress = {});
  // Reads a UTF-8 text file into the editor (one undo step); false with a message on failure.
  bool load_file(const std::string& path);
  void set_message(std::string message) { message_ = std::move(message); }  // the line under the editor
  const std::string& text() const { return editor_.text(); }
  void set_text(std::string text) { editor_.buffer().set_text(std::move(text)); }
  // Writes `text` at the end (one undo step), as the model would continue it.
  void append(std::string_view text);
  TextEditor& editor() { return editor_; }
  const TextEditor& editor() const { return editor_; }

 private:
  void draw_tokens(const AnalysisSnapshot& shown);
  bool draw_next_tokens(const AnalysisSnapshot& shown);  // true: one was appended
  bool draw_settings(Settings& settings);
  TextEditor editor_;
  std::string examples_dir_, open_path_, message_;
  std::vector<std::string> examples_;
};

}  // namespace attnscope::ui
