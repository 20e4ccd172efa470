#include "model/capture_plan.h"

#include <ATen/DeviceAccelerator.h>
#include <torch/version.h>

#include <algorithm>
#include <exception>

namespace attnscope {

double map_bytes(const ModelConfig& config, int64_t n, int64_t element_bytes) {
  const double cells = static_cast<double>(config.num_layers) * static_cast<double>(config.num_heads) *
                       static_cast<double>(n) * static_cast<double>(n);
  return cells * static_cast<double>(element_bytes + 4);
}

int64_t capture_memory(const c10::Device& device) {
  const int64_t machine = physical_memory();
  if (device.is_cpu()) return machine;
  int64_t own = 0;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 10)  // torch 2.10 brought it
  try {
    own = static_cast<int64_t>(at::accelerator::getMemoryInfo(device.index() < 0 ? 0 : device.index()).second);
  } catch (const std::exception&) {  // an allocator that cannot say: the machine's memory alone
  }
#endif
  if (own <= 0) return machine;
  return machine > 0 ? std::min(machine, own) : own;
}

KeptAttention attention_to_keep(const ModelConfig& config, int64_t n, const CapturePlan& plan, int64_t memory_bytes) {
  if (config.disentangled.span > 0) return KeptAttention::Maps;  // DeBERTa
  if (plan.maps_up_to > 0) return n <= plan.maps_up_to ? KeptAttention::Maps : KeptAttention::QueriesAndKeys;
  if (memory_bytes <= 0) return KeptAttention::Maps;
  return map_bytes(config, n) <= plan.memory_share * static_cast<double>(memory_bytes) ? KeptAttention::Maps
                                                                                       : KeptAttention::QueriesAndKeys;
}

}  // namespace attnscope
