#include "model/device_fallback.h"

#include <c10/util/Exception.h>

namespace attnscope {

ComputeDevice run_with_cpu_fallback(const ComputeDevice& device,
                                    const std::function<void(const ComputeDevice&)>& attempt,
                                    const std::function<void(const std::string&)>& notice) {
  try {
    attempt(device);
    return device;
  } catch (const c10::OutOfMemoryError&) {
    if (device.device.is_cpu()) throw;
  }
  const ComputeDevice cpu;  // float32 on the CPU
  if (notice) notice(device.describe() + " ran out of memory; running on the CPU (" + cpu.describe() + ") instead");
  attempt(cpu);
  return cpu;
}

}  // namespace attnscope
