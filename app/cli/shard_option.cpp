#include "shard_option.h"

#include <cstdlib>

#include "base/error.h"

namespace attnscope::cli {
namespace {

uint64_t number(const std::string& text, const std::string& what) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    throw Error(what + " \"" + text + "\" is not a whole number");
  return std::stoull(text);
}

uint64_t environment_number(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value)
    throw Error(std::string("--shard auto needs ") + name + " (set by Slurm in each task of a job array)");
  return number(value, name);
}

}  // namespace

Shard parse_shard(const std::string& text) {
  Shard s;
  if (text == "auto") {
    const uint64_t id = environment_number("SLURM_ARRAY_TASK_ID"), count = environment_number("SLURM_ARRAY_TASK_COUNT");
    const char* min = std::getenv("SLURM_ARRAY_TASK_MIN");
    const uint64_t first = min && *min ? number(min, "SLURM_ARRAY_TASK_MIN") : 0;
    if (id < first)
      throw Error("SLURM_ARRAY_TASK_ID " + std::to_string(id) + " is below SLURM_ARRAY_TASK_MIN " +
                  std::to_string(first));
    s = {id - first, count};
  } else {
    const size_t slash = text.find('/');
    if (slash == std::string::npos) throw Error("--shard \"" + text + "\" is not K/N (for instance 0/4) or auto");
    s = {number(text.substr(0, slash), "the shard"), number(text.substr(slash + 1), "the shard count")};
  }
  if (s.count == 0 || s.index >= s.count)
    throw Error("shard " + std::to_string(s.index) + " of " + std::to_string(s.count) +
                " does not exist (shards are 0 .. N - 1)");
  return s;
}

}  // namespace attnscope::cli
