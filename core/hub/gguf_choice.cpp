#include "hub/gguf_choice.h"

#include <algorithm>
#include <regex>

#include "base/error.h"

namespace attnscope {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_part(const std::string& file) {
  static const std::regex part(R"(-\d{5}-of-\d{5}\.gguf$)");
  return std::regex_search(file, part);
}

bool is_projector(const std::string& file) {
  const std::string name = file.substr(file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1);
  return name.rfind("mmproj", 0) == 0;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string listed(const std::vector<std::string>& files) {
  std::string out;
  for (const std::string& f : files) out += (out.empty() ? "" : ", ") + f;
  return out;
}

// The repository's whole GGUF files whose name is `tag` or holds it (any case).
std::vector<std::string> matching(const std::vector<std::string>& files, const std::string& tag) {
  if (std::find(files.begin(), files.end(), tag) != files.end()) return {tag};
  std::vector<std::string> out;
  for (const std::string& f : files)
    if (upper(f).find(upper(tag)) != std::string::npos) out.push_back(f);
  return out;
}

}  // namespace

bool has_gguf_files(const std::vector<std::string>& repo) {
  return std::any_of(repo.begin(), repo.end(), [](const std::string& f) { return ends_with(f, ".gguf"); });
}

std::string chosen_gguf_file(const std::string& id, const std::vector<std::string>& repo, const std::string& tag) {
  std::vector<std::string> models, parts;
  for (const std::string& f : repo)
    if (ends_with(f, ".gguf") && !is_projector(f)) (is_part(f) ? parts : models).push_back(f);
  const std::string join = "attnscope opens whole files (join the parts with llama.cpp's llama-gguf-split --merge)";
  if (!tag.empty()) {
    const std::vector<std::string> found = matching(models, tag);
    if (found.size() == 1) return found.front();
    if (found.empty() && !matching(parts, tag).empty())
      throw Error(id + ":" + tag + " is a GGUF file split in parts; " + join);
    if (found.empty()) throw Error(id + " has no GGUF file named for " + tag + " (it holds " + listed(models) + ")");
    throw Error(id + ":" + tag + " matches " + std::to_string(found.size()) + " files (" + listed(found) +
                "): name one, as in " + id + ":" + found.front());
  }
  if (models.empty()) throw Error(id + " holds GGUF files in parts only (" + listed(parts) + "); " + join);
  if (models.size() == 1) return models.front();
  const std::vector<std::string> q4km = matching(models, "Q4_K_M");
  if (q4km.size() == 1) return q4km.front();
  throw Error(id + " holds " + std::to_string(models.size()) + " GGUF files (" + listed(models) +
              "): choose one with a tag after the id, as in " + id + ":" + models.front());
}

}  // namespace attnscope
