#include "model/model_locator.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "model/config.h"
#include "model/gguf_file.h"
#include "model/gguf_model.h"

namespace attnscope {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool looks_like_id(const std::string& s) {
  if (s.empty() || s.front() == '.' || s.front() == '/' || s.find("//") != std::string::npos) return false;
  if (std::count(s.begin(), s.end(), '/') > 1) return false;
  return s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == std::string::npos;
}

// "org/name" is cached as "models--org--name".
std::string cache_folder_name(const std::string& id) {
  std::string out = "models--";
  for (char c : id) {
    if (c == '/')
      out += "--";
    else
      out += c;
  }
  return out;
}

// The snapshot a cached repository points at: refs/main, or its only snapshot.
std::filesystem::path snapshot_of(const std::filesystem::path& repo) {
  std::ifstream ref(repo / "refs" / "main");
  std::string revision;
  if (ref && std::getline(ref, revision) && !revision.empty() &&
      std::filesystem::is_directory(repo / "snapshots" / revision))
    return repo / "snapshots" / revision;
  std::vector<std::filesystem::path> snapshots;
  if (std::filesystem::is_directory(repo / "snapshots"))
    for (const auto& e : std::filesystem::directory_iterator(repo / "snapshots"))
      if (e.is_directory()) snapshots.push_back(e.path());
  if (snapshots.size() == 1) return snapshots.front();
  if (snapshots.empty()) return {};
  std::string names;
  for (const auto& s : snapshots) {
    if (!names.empty()) names += ", ";
    names += s.filename().string();
  }
  throw Error(repo.string() + ": several snapshots (" + names +
              ") and no refs/main; give the snapshot folder itself as --model");
}

}  // namespace

std::filesystem::path hub_cache_dir() {
  if (const std::string hub = env("HF_HUB_CACHE"); !hub.empty()) return hub;
  if (const std::string home = env("HF_HOME"); !home.empty()) return std::filesystem::path(home) / "hub";
  const std::string xdg = env("XDG_CACHE_HOME");
  const std::filesystem::path cache =
      !xdg.empty() ? std::filesystem::path(xdg) : std::filesystem::path(env("HOME")) / ".cache";
  return cache / "huggingface" / "hub";
}

std::vector<std::string> cached_repo_names(const std::string& id) {
  std::vector<std::string> names{id};
  if (id.find('/') == std::string::npos) {
    if (id.starts_with("bert-")) names.push_back("google-bert/" + id);
    if (id.starts_with("distilbert-")) names.push_back("distilbert/" + id);
  } else if (id.starts_with("google-bert/") || id.starts_with("distilbert/")) {
    names.push_back(id.substr(id.find('/') + 1));
  }
  return names;
}

bool is_gguf_file(const std::filesystem::path& path) {
  return path.extension() == ".gguf" && std::filesystem::is_regular_file(path);
}

namespace {

// What a folder holds: a checkpoint (config.json), else its one GGUF file (a download of a GGUF
// repository's snapshot too), else the folder itself, for the loader to say what it lacks.
std::filesystem::path model_in_folder(const std::filesystem::path& folder) {
  if (std::filesystem::exists(folder / "config.json")) return folder;
  std::vector<std::filesystem::path> ggufs;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
    if (is_gguf_file(entry.path())) ggufs.push_back(entry.path());
  if (ggufs.size() > 1) {
    std::sort(ggufs.begin(), ggufs.end());
    std::string names;
    for (const auto& file : ggufs) names += (names.empty() ? "" : ", ") + file.filename().string();
    throw Error(folder.string() + ": holds " + std::to_string(ggufs.size()) + " GGUF files (" + names +
                ") and no config.json: give the file to open");
  }
  return ggufs.empty() ? folder : ggufs.front();
}

}  // namespace

std::filesystem::path locate_model(const std::string& model) {
  if (is_gguf_file(model)) return model;
  if (std::filesystem::is_directory(model)) return model_in_folder(model);
  if (!looks_like_id(model))
    throw Error(model +
                ": not a folder (expected a model's folder, a .gguf file or a model id such as bert-base-uncased)");
  const auto cache = hub_cache_dir();
  for (const std::string& name : cached_repo_names(model)) {
    const auto snapshot = snapshot_of(cache / cache_folder_name(name));
    if (!snapshot.empty()) return model_in_folder(snapshot);
  }
  const char* offline = std::getenv("HF_HUB_OFFLINE");
  const bool is_offline = offline && *offline && std::string(offline) != "0" && std::string(offline) != "false";
  throw Error(model + ": not a folder, and not in the Hugging Face cache at " + cache.string() +
              " (set HF_HOME or HF_HUB_CACHE if your models are elsewhere, or give the checkpoint folder; " +
              (is_offline ? std::string("HF_HUB_OFFLINE is set, so it cannot be downloaded now)")
                          : "attnscope-cli download " + model + " fetches it)"));
}

namespace {

// A snapshot's model: its config.json when it has one (an architecture attnscope reads, else
// nothing), else each GGUF file whose architecture attnscope reads, named repo/file.
void add_cached_snapshot(const std::string& id, const std::filesystem::path& snapshot, std::vector<CachedModel>& out) {
  if (std::ifstream in(snapshot / "config.json"); in) {
    const nlohmann::json config = nlohmann::json::parse(in);
    ModelConfig::from_json(config, "config.json");  // throws for an architecture attnscope does not read
    out.push_back({id, snapshot, config.value("model_type", "bert")});
    return;
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(snapshot, ec)) {
    if (!is_gguf_file(entry.path())) continue;
    try {
      const ModelConfig config = gguf_model_config(GgufFile(entry.path()));
      out.push_back({id + "/" + entry.path().filename().string(), entry.path(), config.model_type});
    } catch (const std::exception&) {
      continue;  // another architecture, or a damaged file: not offered
    }
  }
}

}  // namespace

std::vector<CachedModel> list_cached_models(const std::filesystem::path& cache) {
  std::vector<CachedModel> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cache, ec)) {
    const std::string folder = entry.path().filename().string();
    if (!folder.starts_with("models--")) continue;
    try {
      const std::filesystem::path snapshot = snapshot_of(entry.path());
      if (snapshot.empty()) continue;
      std::string id = folder.substr(8);
      // Made anew: through id.replace(sep, 2, "/") GCC 12 warns falsely (-Wstringop-overflow, -Warray-bounds).
      if (const auto sep = id.find("--"); sep != std::string::npos)
        id = id.substr(0, sep).append("/").append(id, sep + 2);
      add_cached_snapshot(id, snapshot, out);
    } catch (const std::exception&) {
      continue;  // damaged or foreign entries are not offered
    }
  }
  std::sort(out.begin(), out.end(), [](const CachedModel& a, const CachedModel& b) { return a.id < b.id; });
  return out;
}

}  // namespace attnscope
