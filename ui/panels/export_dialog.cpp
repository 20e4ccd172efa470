#include "panels/export_dialog.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <filesystem>

#include "base/error_message.h"
#include "figures/figure_export.h"

namespace attnscope::ui {
namespace {
const char* kExtensions[] = {".png", ".svg", ".pdf"};
}

void ExportDialog::open(const Figure& figure, const std::string& name) {
  figure_ = figure;
  path_ = name + kExtensions[format_];
  message_.clear();
  open_requested_ = true;
}

void ExportDialog::draw() {
  if (open_requested_) {
    ImGui::OpenPopup("Export figure");
    open_requested_ = false;
  }
  if (!ImGui::BeginPopupModal("Export figure", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted(figure_.title.c_str());
  int format = format_;
  ImGui::RadioButton("PNG", &format, 0);
  ImGui::SameLine();
  ImGui::RadioButton("SVG", &format, 1);
  ImGui::SameLine();
  ImGui::RadioButton("PDF", &format, 2);
  if (format != format_) {
    path_ = std::filesystem::path(path_).replace_extension(kExtensions[format]).string();
    format_ = format;
  }
  if (format_ == 0) ImGui::SliderFloat("scale", &scale_, 1.0f, 4.0f, "%.0fx");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30);
  ImGui::InputText("file", &path_);
  if (ImGui::Button("Save")) {
    try {
      ExportOptions o;
      o.png_scale = static_cast<int>(scale_ + 0.5f);
      export_figure(figure_, path_, o);
      message_ = "saved " + std::filesystem::absolute(path_).string();
    } catch (const std::exception& e) {
      message_ = "not saved: " + error_message(e);
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Close")) ImGui::CloseCurrentPopup();
  if (!message_.empty()) ImGui::TextWrapped("%s", message_.c_str());
  ImGui::EndPopup();
}

}  // namespace attnscope::ui
