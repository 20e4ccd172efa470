#pragma once
// A float32 host tensor in memory mapped for it alone and unmapped when it is freed. A long text's
// whole n x n maps (a head's map made again for its pairs, a rollout's two buffers: 268 MB each at
// 8,192 tokens) are made one after another; from the heap, which the explorer asks to keep freed
// memory for reuse (keep_freed_memory_for_reuse), they left freed maps resident between the
// other allocations, up to three at a time beside the one in use.
#include <ATen/core/Tensor.h>

namespace attnscope {

at::Tensor mapped_empty(at::IntArrayRef sizes);

}  // namespace attnscope
