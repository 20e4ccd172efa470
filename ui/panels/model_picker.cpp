#include "panels/model_picker.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdio>

namespace attnscope::ui {

void ModelPicker::open() {
  cached_ = list_cached_models(hub_options_from_environment().cache);
  open_picker_ = true;
}

void ModelPicker::offer_first_run() { open_first_run_ = true; }

void ModelPicker::download(const std::string& id) {
  open();
  id_ = id;
  download_.start(id, hub_options_from_environment());
}

void ModelPicker::draw_download_progress() {
  const DownloadJobState s = download_.state();
  if (s.running) {
    const DownloadProgress& p = s.progress;
    char overlay[160];
    std::snprintf(overlay, sizeof overlay, "%s %d/%d: %.1f of %.1f MB, %.1f MB/s", p.file.c_str(), p.file_index + 1,
                  p.files, p.done / 1e6, p.total / 1e6, p.seconds > 0 ? p.done / 1e6 / p.seconds : 0.0);
    ImGui::ProgressBar(p.total ? static_cast<float>(p.done) / static_cast<float>(p.total) : 0.0f, ImVec2(-1, 0),
                       overlay);
    if (ImGui::Button("Cancel download")) download_.cancel();
  }
  if (!s.error.empty()) ImGui::TextColored(ImVec4(1, 0.5f, 0.4f, 1), "%s", s.error.c_str());
}

std::optional<std::string> ModelPicker::draw_picker(const std::vector<std::string>& recent) {
  std::optional<std::string> picked;
  if (open_picker_) {
    ImGui::OpenPopup("Model");
    open_picker_ = false;
  }
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 36, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Model", nullptr)) return picked;
  ImGui::TextDisabled("Recent");
  for (const auto& m : recent)
    if (ImGui::Selectable(m.c_str())) picked = m;
  ImGui::Separator();
  ImGui::TextDisabled("In the Hugging Face cache (%s)", hub_options_from_environment().cache.c_str());
  if (cached_.empty()) ImGui::TextUnformatted("(no models attnscope reads there yet)");
  for (const auto& m : cached_) {  // a GGUF file is opened by its path; a folder by its id
    const std::string label = m.id + "  (" + m.model_type + ")";
    if (ImGui::Selectable(label.c_str())) picked = is_gguf_file(m.snapshot) ? m.snapshot.string() : m.id;
  }
  ImGui::Separator();
  ImGui::InputTextWithHint(
      "##folder", "checkpoint folder (config.json, tokenizer.json or vocab.txt, model.safetensors) or .gguf file",
      &folder_);
  ImGui::SameLine();
  if (ImGui::Button("Open folder") && !folder_.empty()) picked = folder_;
  ImGui::InputTextWithHint("##id", "model id, e.g. bert-base-uncased, or org/name-GGUF:Q8_0 for a GGUF file", &id_);
  ImGui::SameLine();
  ImGui::BeginDisabled(download_.state().running);
  if (ImGui::Button("Download")) download_.start(id_, hub_options_from_environment());
  ImGui::EndDisabled();
  draw_download_progress();
  if (const std::string done = download_.take_finished(); !done.empty()) picked = done;
  if (ImGui::Button("Close") || picked) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return picked;
}

std::optional<std::string> ModelPicker::draw_first_run() {
  std::optional<std::string> picked;
  if (open_first_run_) {
    ImGui::OpenPopup("Welcome to attnscope");
    open_first_run_ = false;
  }
  if (!ImGui::BeginPopupModal("Welcome to attnscope", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return picked;
  ImGui::TextUnformatted("The paper's model, bert-base-uncased, is not on this computer yet.");
  ImGui::BeginDisabled(download_.state().running);
  if (ImGui::Button("Download bert-base-uncased (440 MB)"))
    download_.start("bert-base-uncased", hub_options_from_environment());
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Use the small model already installed (MiniLM, 90 MB)")) picked = installed_;
  draw_download_progress();
  if (const std::string done = download_.take_finished(); !done.empty()) picked = done;
  if (picked) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return picked;
}

std::optional<std::string> ModelPicker::draw(const std::vector<std::string>& recent) {
  if (auto m = draw_first_run()) return m;
  return draw_picker(recent);
}

}  // namespace attnscope::ui
