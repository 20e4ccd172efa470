#pragma once
// When the GPU runs out of memory, the run falls back to the CPU with a visible notice instead of
// failing: the work is tried on the chosen device, and once more on the CPU in float32.
#include <functional>
#include <string>

#include "model/device.h"

namespace attnscope {

// Runs `attempt(device)`. If it throws c10::OutOfMemoryError and `device` is not the CPU, calls
// `notice` with a message for the user and runs `attempt` on the CPU. Returns the device that did
// the work. Other errors, and running out of memory on the CPU, propagate.
ComputeDevice run_with_cpu_fallback(const ComputeDevice& device,
                                    const std::function<void(const ComputeDevice&)>& attempt,
                                    const std::function<void(const std::string&)>& notice);

}  // namespace attnscope
