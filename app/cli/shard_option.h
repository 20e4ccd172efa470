#pragma once
// --shard K/N, or --shard auto: the task of a Slurm job array (SLURM_ARRAY_TASK_ID less
// SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT tasks).
#include <cstdint>
#include <string>

namespace attnscope::cli {

struct Shard {
  uint64_t index = 0, count = 1;
};

// Throws attnscope::Error with one line saying what is wrong.
Shard parse_shard(const std::string& text);

}  // namespace attnscope::cli
