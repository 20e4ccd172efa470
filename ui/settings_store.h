#pragma once
// The explorer's settings, kept between runs in the user's config directory
// ($XDG_CONFIG_HOME/attnscope/settings.json, else ~/.config/attnscope/settings.json), written
// atomically. A missing file gives the defaults; an unreadable one gives the defaults and a
// message, and is left alone until the user changes a setting.
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/analysis_settings.h"
#include "view_state.h"

namespace attnscope::ui {

struct Settings {
  std::string model;  // folder or model id last used
  std::vector<std::string> recent_models;
  AnalysisSettings analysis;
  ViewState view;
  int window_width = 1440, window_height = 900;
  size_t max_length = 0;  // 0: the model's default (128)
};

std::filesystem::path default_settings_path();

struct LoadedSettings {
  Settings settings;
  std::string warning;  // empty, or why the file was not used
};

LoadedSettings load_settings(const std::filesystem::path& path);
void save_settings(const std::filesystem::path& path, const Settings& settings);  // throws attnscope::Error

}  // namespace attnscope::ui
