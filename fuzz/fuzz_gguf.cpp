// libFuzzer target: any bytes as a GGUF file. Damaged files must be refused with attnscope::Error;
// an accepted file must describe tensors that lie inside it, and every tensor of a type that
// converts must dequantise (its size is the type's blocks) without reading past its bytes.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "base/error.h"
#include "model/gguf_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  try {
    const attnscope::GgufContents g = attnscope::parse_gguf(file, "fuzz.gguf");
    for (const attnscope::GgufTensor& t : g.tensors) {
      if (t.offset > size || t.size > size - t.offset) std::abort();
      if (!t.type->converts || t.numel() > (1 << 20)) continue;
      std::vector<float> out(static_cast<size_t>(t.numel()));
      attnscope::dequantize(*t.type, file.subspan(t.offset, t.size), out);
    }
  } catch (const attnscope::Error&) {
  }
  return 0;
}
