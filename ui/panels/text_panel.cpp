#include "panels/text_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attnscope::ui {
namespace {

const char* spinner() {
  static const char* frames[] = {"|", "/", "-", "\\"};
  return frames[static_cast<int>(ImGui::GetTime() * 8) % 4];
}

}  // namespace

TextPanel::TextPanel(std::string examples_dir) : examples_dir_(std::move(examples_dir)) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(examples_dir_, ec))
    if (entry.path().extension() == ".txt") examples_.push_back(entry.path().filename().string());
  std::sort(examples_.begin(), examples_.end());
}

bool TextPanel::load_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  if (!in || !(all << in.rdbuf())) {
    message_ = path + ": cannot be read";
    return false;
  }
  text = all.str();
  message_ = "opened " + path;
  return true;
}

void TextPanel::draw_tokens(const AnalysisSnapshot& s) {
  const Encoding& e = s.encoding;
  if (e.truncated)
    ImGui::TextColored(ImVec4(1, 0.7f, 0.2f, 1), "Truncated: %zu of %zu tokens are shown (N = %zu).", e.size(), e.full_length, e.size());
  ImGui::BeginChild("tokens", ImVec2(0, ImGui::GetFontSize() * 7), true);
  const float right = ImGui::GetContentRegionAvail().x;
  float x = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    const std::string label = std::to_string(i) + " " + e.tokens[i].text;
    const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().ItemSpacing.x * 2;
    if (i > 0 && x + w < right) ImGui::SameLine();
    else x = 0;
    x += w;
    ImGui::TextColored(e.tokens[i].special ? ImVec4(0.6f, 0.8f, 1, 1) : ImVec4(1, 1, 1, 1), "%s", label.c_str());
  }
  ImGui::EndChild();
}

bool TextPanel::draw_settings(Settings& s) {
  bool changed = false;
  float tau = static_cast<float>(s.analysis.tau), tau_sep = static_cast<float>(s.analysis.tau_sep);
  if (ImGui::SliderFloat("tau", &tau, 0.01f, 1.0f, "%.2f")) changed = true;
  if (ImGui::SliderFloat("tau_sep", &tau_sep, 0.01f, 1.0f, "%.2f")) changed = true;
  s.analysis.tau = tau;
  s.analysis.tau_sep = tau_sep;
  bool special = s.analysis.include_special;
  if (ImGui::Checkbox("[CLS] and [SEP] take part", &special)) changed = true;
  s.analysis.include_special = special;
  int sentences = s.analysis.sentences == SentenceMode::Segments;
  ImGui::SameLine();
  if (ImGui::Combo("sentences", &sentences, "punctuation\0segments\0")) changed = true;
  s.analysis.sentences = sentences ? SentenceMode::Segments : SentenceMode::Punctuation;
  int cmap = static_cast<int>(s.view.colormap);
  if (ImGui::Combo("colormap", &cmap, "viridis\0magma\0diverging\0high-contrast\0")) s.view.colormap = static_cast<ColormapId>(cmap);
  int scale = static_cast<int>(s.view.scale);
  if (ImGui::Combo("scale", &scale, "linear\0log\0")) s.view.scale = static_cast<ValueScale>(scale);
  return changed;
}

TextPanelResult TextPanel::draw(std::string& text, Settings& settings, const ModelStatus& model, const AnalysisSnapshot* shown,
                                const AnalysisSnapshot* latest, bool busy) {
  TextPanelResult r;
  if (!model.error.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "Model not loaded: %s", model.error.c_str());
  else if (!model.loaded) ImGui::Text("%s loading the model %s", spinner(), settings.model.c_str());
  else ImGui::Text("%s: %d layers x %d heads on %s", model.name.c_str(), model.layers, model.heads, model.device.c_str());
  if (!model.notice.empty()) ImGui::TextColored(ImVec4(1, 0.7f, 0.2f, 1), "%s", model.notice.c_str());
  if (!examples_.empty()) {
    ImGui::SetNextItemWidth(180);
    if (ImGui::BeginCombo("##examples", "Example texts")) {
      for (const auto& name : examples_)
        if (ImGui::Selectable(name.c_str()) && load_file(examples_dir_ + "/" + name, text)) r.text_edited = true;
      ImGui::EndCombo();
    }
    ImGui::SameLine();
  }
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("Open").x - 16);
  ImGui::InputTextWithHint("##open", "path of a .txt file (or drop one on the window)", &open_path_);
  ImGui::SameLine();
  if (ImGui::Button("Open") && load_file(open_path_, text)) r.text_edited = true;
  if (ImGui::InputTextMultiline("##text", &text, ImVec2(-1, ImGui::GetFontSize() * 9))) r.text_edited = true;
  if (busy) ImGui::Text("%s analysing...", spinner());
  else if (shown) ImGui::TextDisabled("%zu tokens, model and analysis in %.0f ms", shown->encoding.size(), shown->seconds * 1000);
  if (latest && !latest->error.empty()) ImGui::TextColored(ImVec4(1, 0.6f, 0.3f, 1), "%s", latest->error.c_str());
  if (!message_.empty()) ImGui::TextDisabled("%s", message_.c_str());
  if (shown) draw_tokens(*shown);
  if (!settings.view.presentation && draw_settings(settings)) r.settings_changed = true;  // fewer panels when presenting
  return r;
}

}  // namespace attnscope::ui
