#include "panels/text_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include "widgets.h"
#include "base/count_text.h"
#include "tokenizer/piece_text.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attnscope::ui {
namespace {

void coloured_wrapped(const ImVec4& colour, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

// A long text's run, a step a layer or a group of heads (a frame each, no animation): the model's
// layers, then the analysis's stages.
void draw_run_progress(const RunProgress& p) {
  char overlay[96];
  float done = static_cast<float>(p.layers_done) / static_cast<float>(p.layers);
  if (p.layers_done < p.layers) {
    std::snprintf(overlay, sizeof overlay, "model: layer %d of %d", p.layers_done, p.layers);
  } else if (p.stage.empty()) {
    std::snprintf(overlay, sizeof overlay, "model done; analysing every head");
  } else {
    const char* what = p.stage == "pairs" ? "every head's pairs" : p.stage.c_str();
    std::snprintf(overlay, sizeof overlay, "model done; %s: %.0f%%", what, 100 * p.fraction);
    done = static_cast<float>(p.fraction);
  }
  ImGui::ProgressBar(done, ImVec2(-1, 0), overlay);
}

// The line under the editor: the tokens, and what the model and the analysis took.
std::string run_line(const AnalysisSnapshot& s) {
  // Milliseconds as typing sees them; a long text's minutes in seconds ("104.1 s", not "104135 ms").
  const auto took = [](double seconds) {
    char text[32];
    if (seconds < 10)
      std::snprintf(text, sizeof text, "%d ms", static_cast<int>(seconds * 1000));
    else
      std::snprintf(text, sizeof text, "%.1f s", seconds);
    return std::string(text);
  };
  std::string model;
  if (!s.checkpoint) {
    model = "from a result file";
  } else if (s.forward_reused) {
    model = "the model's last run";  // the settings changed, not the text
  } else {
    model = "model " + took(s.forward_seconds);
    if (s.tokens_continued > 0)  // a decoder's text typed on at its end
      model += " (the first " + std::to_string(s.tokens_continued) + " tokens' layers from its last run)";
  }
  return count(s.encoding.size(), "token") + ", " + model + ", analysis " + took(s.analysis_seconds);
}

}  // namespace

TextPanel::TextPanel(std::string examples_dir) : examples_dir_(std::move(examples_dir)) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(examples_dir_, ec))
    if (entry.path().extension() == ".txt") examples_.push_back(entry.path().filename().string());
  std::sort(examples_.begin(), examples_.end());
}

bool TextPanel::load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  if (!in || !(all << in.rdbuf())) {
    message_ = path + ": cannot be read";
    return false;
  }
  set_text(all.str());
  message_ = "opened " + path;
  return true;
}

void TextPanel::draw_tokens(const AnalysisSnapshot& s) {
  const Encoding& e = s.encoding;
  if (e.truncated)
    coloured_wrapped(ImVec4(1, 0.7f, 0.2f, 1), "Truncated: " + digit_groups(e.size()) + " of " +
                                                   digit_groups(static_cast<uint64_t>(e.full_length)) +
                                                   " tokens are shown (N = " + std::to_string(e.size()) + ").");
  ImGui::BeginChild("tokens", ImVec2(0, ImGui::GetFontSize() * 7), true);
  const float right = ImGui::GetContentRegionAvail().x;
  float x = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    const std::string label = std::to_string(i) + " " + readable_piece(e.tokens[i].text);
    const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().ItemSpacing.x * 2;
    if (i > 0 && x + w < right)
      ImGui::SameLine();
    else
      x = 0;
    x += w;
    ImGui::TextColored(e.tokens[i].special ? ImVec4(0.6f, 0.8f, 1, 1) : ImVec4(1, 1, 1, 1), "%s", label.c_str());
  }
  ImGui::EndChild();
}

void TextPanel::append(std::string_view text) {
  TextBuffer& buffer = editor_.buffer();
  buffer.move_to_end(false);
  buffer.insert(text);
}

// A decoder's next tokens after the shown text, most likely first, each a button that appends it
// (N appends the first: Explorer::handle_shortcuts), so a class can watch attention as the model writes.
bool TextPanel::draw_next_tokens(const AnalysisSnapshot& s) {
  if (s.next.empty()) return false;
  ImGui::TextUnformatted("Next token (N appends the first):");
  bool appended = false;
  for (size_t k = 0; k < s.next.size(); ++k) {
    const NextPiece& t = s.next[k];
    char probability[32];
    std::snprintf(probability, sizeof probability, "%.1f%%", 100 * t.probability);
    const std::string label = t.shown + "  " + probability + "##next" + std::to_string(k);
    ImGui::BeginDisabled(t.written.empty());  // half a character: nothing whole to write
    if ((k == 0 ? ImGui::Button(label.c_str()) : flowing_button(label.c_str()))) {
      append(t.written);
      appended = true;
    }
    ImGui::EndDisabled();
  }
  return appended;
}

bool TextPanel::draw_settings(Settings& s) {
  bool changed = false;
  // Each control as wide as the panel leaves beside its label, so nothing runs past the edge.
  const auto width_for = [](const char* label) {
    ImGui::SetNextItemWidth(std::max(
        40.0f, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(label).x - ImGui::GetStyle().ItemInnerSpacing.x));
  };
  float tau = static_cast<float>(s.analysis.tau), tau_sep = static_cast<float>(s.analysis.tau_sep);
  width_for("tau_sep");
  if (ImGui::SliderFloat("tau", &tau, 0.01f, 1.0f, "%.2f")) changed = true;
  width_for("tau_sep");
  if (ImGui::SliderFloat("tau_sep", &tau_sep, 0.01f, 1.0f, "%.2f")) changed = true;
  s.analysis.tau = tau;
  s.analysis.tau_sep = tau_sep;
  bool special = s.analysis.include_special;
  if (ImGui::Checkbox("special tokens take part", &special)) changed = true;
  s.analysis.include_special = special;
  bool text_only = s.analysis.separators_text_only;
  if (ImGui::Checkbox("separators among text tokens only", &text_only)) changed = true;
  s.analysis.separators_text_only = text_only;
  bool words = s.analysis.words;
  if (ImGui::Checkbox("words, not word pieces", &words)) changed = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Every view on words: attention to a word summed over its pieces and averaged over the querying word's pieces, "
        "a word's head output the mean of its pieces' (Clark et al. 2019). The norm lens stays on pieces.");
  s.analysis.words = words;
  int sentences = s.analysis.sentences == SentenceMode::Segments;
  width_for("sentences");
  if (ImGui::Combo("sentences", &sentences, "punctuation\0segments\0")) changed = true;
  s.analysis.sentences = sentences ? SentenceMode::Segments : SentenceMode::Punctuation;
  int cmap = static_cast<int>(s.view.colormap);
  width_for("colormap");
  if (ImGui::Combo("colormap", &cmap, "viridis\0magma\0diverging\0high-contrast\0"))
    s.view.colormap = static_cast<ColormapId>(cmap);
  int scale = static_cast<int>(s.view.scale);
  width_for("colormap");
  if (ImGui::Combo("scale", &scale, "linear\0log\0clipped at 99th percentile\0"))
    s.view.scale = static_cast<ValueScale>(scale);
  return changed;
}

TextPanelResult TextPanel::draw(Settings& settings, const ModelStatus& model, const AnalysisSnapshot* shown,
                                const AnalysisSnapshot* latest, bool busy, const RunProgress& progress) {
  TextPanelResult r;
  // Wrapped: a long model id or message must not run past a narrow panel.
  if (!model.error.empty())
    coloured_wrapped(ImVec4(1, 0.4f, 0.4f, 1),
                     (model.reads_result ? "Result file not opened: " : "Model not loaded: ") + model.error);
  else if (!model.loaded && model.reads_result)
    ImGui::TextWrapped("Reading the result file, its analysis made again from its captures...");
  else if (!model.loaded)
    ImGui::TextWrapped("Loading the model %s...", settings.model.c_str());
  else if (model.result)
    ImGui::TextWrapped("%s: %d layers x %d heads, a result file shown without its model", model.name.c_str(),
                       model.layers, model.heads);
  else
    ImGui::TextWrapped("%s: %d layers x %d heads on %s", model.name.c_str(), model.layers, model.heads,
                       model.device.c_str());
  if (!model.notice.empty()) coloured_wrapped(ImVec4(1, 0.7f, 0.2f, 1), model.notice);
  if (!examples_.empty()) {
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("Example texts").x + ImGui::GetFrameHeight() * 1.6f);
    if (ImGui::BeginCombo("##examples", "Example texts")) {
      for (const auto& name : examples_)
        if (ImGui::Selectable(name.c_str()) && load_file(examples_dir_ + "/" + name)) r.text_edited = true;
      ImGui::EndCombo();
    }
  }
  ImGui::SetNextItemWidth(
      std::max(60.0f, ImGui::GetContentRegionAvail().x - button_width("Open") - ImGui::GetStyle().ItemSpacing.x));
  ImGui::InputTextWithHint("##open", "a .txt file's path", &open_path_);
  if (flowing_button("Open") && load_file(open_path_)) r.text_edited = true;
  if (editor_.draw("##text", ImGui::GetFontSize() * 9)) r.text_edited = true;
  // Said without an animation: a spinner would redraw the window while the model runs, and on a
  // machine without a GPU every frame takes CPU from the model.
  if (busy && progress.layers > 0)
    draw_run_progress(progress);
  else if (busy)
    ImGui::TextUnformatted("Analysing...");
  else if (shown)
    coloured_wrapped(ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), run_line(*shown));
  if (latest && !latest->error.empty()) coloured_wrapped(ImVec4(1, 0.6f, 0.3f, 1), latest->error);
  if (!message_.empty()) coloured_wrapped(ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), message_);
  if (shown) draw_tokens(*shown);
  if (shown && draw_next_tokens(*shown)) r.text_edited = true;
  if (!settings.view.presentation && draw_settings(settings))
    r.settings_changed = true;  // fewer panels when presenting
  return r;
}

}  // namespace attnscope::ui
