#include "settings_store.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_number.h"
#include "base/atomic_file.h"

namespace attnscope::ui {
namespace {

using nlohmann::json;

json to_json(const Settings& s) {
  return json{{"format", "attnscope.settings"},
              {"version", 1},
              {"model", s.model},
              {"recent_models", s.recent_models},
              {"tau", s.analysis.tau},
              {"tau_sep", s.analysis.tau_sep},
              {"include_special", s.analysis.include_special},
              {"words", s.analysis.words},
              {"separators_from", static_cast<int>(s.analysis.separators_from)},
              {"pairs_from", pair_input_name(s.analysis.pairs_from)},
              {"sentences", s.analysis.sentences == SentenceMode::Segments ? "segments" : "punct"},
              {"view", view_name(s.view.view)},
              {"matrix", matrix_name(s.view.matrix)},
              {"layers_matrix", matrix_name(s.view.layers_matrix)},
              {"rollout_of_norm", s.view.rollout_of_norm},
              {"head_roles", s.view.head_roles},
              {"colormap", colormap(s.view.colormap).name},
              {"scale", value_scale_name(s.view.scale)},
              {"presentation", s.view.presentation},
              {"window", {s.window_width, s.window_height}},
              {"max_length", s.max_length}};
}

// Each field is optional; a field of the wrong type or value is an error naming it.
Settings from_json(const json& j) {
  Settings s;
  if (!j.is_object()) throw Error("not a JSON object");
  const auto field = [&j](const char* name) -> const json* { return j.contains(name) ? &j.at(name) : nullptr; };
  if (auto* v = field("model")) s.model = v->get<std::string>();
  if (auto* v = field("recent_models")) s.recent_models = v->get<std::vector<std::string>>();
  if (auto* v = field("tau")) s.analysis.tau = v->get<double>();
  if (auto* v = field("tau_sep")) s.analysis.tau_sep = v->get<double>();
  if (!(s.analysis.tau > 0 && s.analysis.tau <= 1) || !(s.analysis.tau_sep > 0 && s.analysis.tau_sep <= 1))
    throw Error("tau and tau_sep must be in (0, 1]");
  if (auto* v = field("include_special")) s.analysis.include_special = v->get<bool>();
  if (auto* v = field("words")) s.analysis.words = v->get<bool>();
  if (auto* v = field("separators_from"))
    s.analysis.separators_from = static_cast<SeparatorInput>(std::clamp(v->get<int>(), 0, 2));
  if (auto* v = field("pairs_from")) {
    const std::optional<PairInput> from = pair_input_by_name(v->get<std::string>());
    if (!from) throw Error("pairs_from: expected similarity, cosine, attention, norm or rollout");
    s.analysis.pairs_from = *from;
  }
  if (auto* v = field("sentences"))
    s.analysis.sentences = v->get<std::string>() == "segments" ? SentenceMode::Segments : SentenceMode::Punctuation;
  if (auto* v = field("view")) s.view.view = view_by_name(v->get<std::string>());
  if (auto* v = field("matrix")) s.view.matrix = matrix_by_name(v->get<std::string>());
  if (auto* v = field("layers_matrix")) s.view.layers_matrix = matrix_by_name(v->get<std::string>());
  if (auto* v = field("rollout_of_norm")) s.view.rollout_of_norm = v->get<bool>();
  if (auto* v = field("head_roles")) s.view.head_roles = v->get<bool>();
  if (auto* v = field("colormap")) s.view.colormap = colormap_by_name(v->get<std::string>());
  if (auto* v = field("scale")) s.view.scale = value_scale_by_name(v->get<std::string>());
  if (auto* v = field("presentation")) s.view.presentation = v->get<bool>();
  if (auto* v = field("window")) {
    if (!v->is_array() || v->size() != 2) throw Error("window: expected [width, height]");
    const std::vector<int> size = {json_integer<int>((*v)[0], "window"), json_integer<int>((*v)[1], "window")};
    if (size[0] < 200 || size[1] < 150 || size[0] > 16384 || size[1] > 16384)
      throw Error("window: expected [width, height]");
    s.window_width = size[0];
    s.window_height = size[1];
  }
  if (auto* v = field("max_length")) s.max_length = json_integer<size_t>(*v, "max_length");
  return s;
}

}  // namespace

std::filesystem::path default_settings_path() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "attnscope" / "settings.json";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && *home ? home : ".") / ".config" / "attnscope" / "settings.json";
}

LoadedSettings load_settings(const std::filesystem::path& path) {
  LoadedSettings out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  try {
    out.settings = from_json(json::parse(in));
  } catch (const std::exception& e) {
    out.settings = Settings{};
    out.warning = path.string() + ": settings not used (" + e.what() + "); the defaults apply";
  }
  return out;
}

void save_settings(const std::filesystem::path& path, const Settings& settings) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw Error(path.parent_path().string() + ": cannot create the settings folder: " + ec.message());
  write_file_atomically(path, to_json(settings).dump(2) + "\n");
}

}  // namespace attnscope::ui
