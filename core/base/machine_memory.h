#pragma once
// How much memory this machine has: what decides whether a text keeps its maps
// (model/capture_plan.h) and what a refusal for want of memory states (error_message.h).
#include <cstdint>

namespace attnscope {

// The machine's physical memory in bytes (0 when it cannot be read).
int64_t physical_memory();

}  // namespace attnscope
