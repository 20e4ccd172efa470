#include "model/mapped_tensor.h"

#include <ATen/ATen.h>
#include <sys/mman.h>

#include <string>

#include "base/byte_size.h"
#include "base/error.h"

namespace attnscope {

at::Tensor mapped_empty(at::IntArrayRef sizes) {
  int64_t count = 1;
  for (const int64_t s : sizes) count *= s;
  const auto bytes = static_cast<size_t>(count) * sizeof(float);
  if (bytes == 0) return at::empty(sizes, at::kFloat);
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED)
    throw Error("out of memory: a map of " + byte_size(static_cast<double>(bytes)) +
                " could not be made; a shorter text (--max-len) needs less");
  return at::from_blob(
      memory, sizes, [bytes](void* p) { munmap(p, bytes); }, at::TensorOptions().dtype(at::kFloat));
}

}  // namespace attnscope
