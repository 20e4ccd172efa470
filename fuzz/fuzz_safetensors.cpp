// libFuzzer target: any bytes as a safetensors file. Damaged files must be refused with
// attnscope::Error; an accepted header must describe tensors that lie inside the file.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "base/error.h"
#include "model/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  try {
    for (const attnscope::TensorInfo& t : attnscope::parse_safetensors(file, "fuzz.safetensors")) {
      if (t.size != static_cast<size_t>(t.numel()) * attnscope::dtype_size(t.dtype)) std::abort();
      if (t.offset > size || t.size > size - t.offset) std::abort();
    }
  } catch (const attnscope::Error&) {
  }
  return 0;
}
