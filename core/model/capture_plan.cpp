#include "model/capture_plan.h"

#include <unistd.h>

namespace attnscope {

double map_bytes(const ModelConfig& config, int64_t n, int64_t element_bytes) {
  const double cells = static_cast<double>(config.num_layers) * static_cast<double>(config.num_heads) *
                       static_cast<double>(n) * static_cast<double>(n);
  return cells * static_cast<double>(element_bytes + 4);
}

int64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : 0;
}

KeptAttention attention_to_keep(const ModelConfig& config, int64_t n, const CapturePlan& plan, int64_t memory_bytes) {
  if (config.disentangled.span > 0) return KeptAttention::Maps;  // DeBERTa
  if (plan.maps_up_to > 0) return n <= plan.maps_up_to ? KeptAttention::Maps : KeptAttention::QueriesAndKeys;
  if (memory_bytes <= 0) return KeptAttention::Maps;
  return map_bytes(config, n) <= plan.memory_share * static_cast<double>(memory_bytes) ? KeptAttention::Maps
                                                                                       : KeptAttention::QueriesAndKeys;
}

}  // namespace attnscope
