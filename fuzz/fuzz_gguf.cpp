// libFuzzer target: any bytes as a GGUF file. Damaged files must be refused with attnscope::Error;
// an accepted file must describe tensors that lie inside it, and every tensor of a type that
// converts must dequantise (its size is the type's blocks) without reading past its bytes, and a
// Q8_0 matrix kept in its blocks (model/q8_rows.h) must give the dequantisation's rows to the bit.
#include <ATen/ATen.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "base/error.h"
#include "model/gguf_file.h"
#include "model/q8_rows.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  try {
    const attnscope::GgufContents g = attnscope::parse_gguf(file, "fuzz.gguf");
    for (const attnscope::GgufTensor& t : g.tensors) {
      if (t.offset > size || t.size > size - t.offset) std::abort();
      if (!t.type->converts || t.numel() > (1 << 20)) continue;
      std::vector<float> out(static_cast<size_t>(t.numel()));
      attnscope::dequantize(*t.type, file.subspan(t.offset, t.size), out);
      if (t.type->name != "Q8_0" || t.dims.size() != 2) continue;
      const attnscope::Q8Rows rows(file.subspan(t.offset, t.size), t.shape()[0], t.shape()[1]);
      const at::Tensor all = rows.rows_of(at::arange(rows.rows()));
      if (std::memcmp(all.data_ptr<float>(), out.data(), out.size() * sizeof(float)) != 0) std::abort();
    }
  } catch (const attnscope::Error&) {
  }
  return 0;
}
