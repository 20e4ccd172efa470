#pragma once
// ggml's tensor types, as GGUF files store them: each type's block (elements and bytes, as the
// gguf package's GGML_QUANT_SIZES gives them) and the conversion of whole blocks to float32,
// exactly as the format defines it (ggml-quants.c's dequantize_row_*, which the gguf package
// mirrors): F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K and Q6_K. Every other type
// is known by its geometry only, so that a file holding it can still be read, and refused by name
// where it would have to be converted.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace attnscope {

struct GgmlType {
  uint32_t id = 0;
  std::string_view name;
  int64_t block_elements = 1;
  size_t block_bytes = 4;
  bool converts = false;  // dequantize() handles it
};

// The type with this id, or nullptr for an id ggml does not define (or this table does not know).
const GgmlType* ggml_type(uint32_t id);

// Converts `out.size()` elements, a whole number of the type's blocks, from `bytes` (exactly
// their size) into `out`. Throws attnscope::Error naming the type when it does not convert, or
// when the sizes do not fit.
void dequantize(const GgmlType& type, std::span<const std::byte> bytes, std::span<float> out);

// IEEE half and bfloat16 bit patterns to float32 (every value, subnormals, infinities and NaNs
// included).
float half_to_float(uint16_t bits);
float bfloat16_to_float(uint16_t bits);

}  // namespace attnscope
