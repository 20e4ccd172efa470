#include "model/ggml_types.h"

#include <array>
#include <bit>
#include <cstring>

#include "base/error.h"

// Sections: the table of types; scalar conversions; one function per block format (each the
// arithmetic of ggml-quants.c's dequantize_row_*, in its order of operations, so that results
// equal the gguf package's to the bit); dequantize().

namespace attnscope {
namespace {

// From the gguf package's GGML_QUANT_SIZES (0.19): id, name, elements and bytes of a block.
constexpr std::array<GgmlType, 34> kTypes{{
    {0, "F32", 1, 4, true},          {1, "F16", 1, 2, true},          {2, "Q4_0", 32, 18, true},
    {3, "Q4_1", 32, 20, true},       {6, "Q5_0", 32, 22, true},       {7, "Q5_1", 32, 24, true},
    {8, "Q8_0", 32, 34, true},       {9, "Q8_1", 32, 40, false},      {10, "Q2_K", 256, 84, false},
    {11, "Q3_K", 256, 110, false},   {12, "Q4_K", 256, 144, true},    {13, "Q5_K", 256, 176, true},
    {14, "Q6_K", 256, 210, true},    {15, "Q8_K", 256, 292, false},   {16, "IQ2_XXS", 256, 66, false},
    {17, "IQ2_XS", 256, 74, false},  {18, "IQ3_XXS", 256, 98, false}, {19, "IQ1_S", 256, 50, false},
    {20, "IQ4_NL", 32, 18, false},   {21, "IQ3_S", 256, 110, false},  {22, "IQ2_S", 256, 82, false},
    {23, "IQ4_XS", 256, 136, false}, {24, "I8", 1, 1, false},         {25, "I16", 1, 2, false},
    {26, "I32", 1, 4, false},        {27, "I64", 1, 8, false},        {28, "F64", 1, 8, false},
    {29, "IQ1_M", 256, 56, false},   {30, "BF16", 1, 2, true},        {34, "TQ1_0", 256, 54, false},
    {35, "TQ2_0", 256, 66, false},   {39, "MXFP4", 32, 17, false},    {40, "NVFP4", 64, 36, false},
    {41, "Q1_0", 128, 18, false},
}};

constexpr int64_t kSuperBlock = 256;  // QK_K

uint16_t u16(const std::byte* p) {
  return static_cast<uint16_t>(std::to_integer<unsigned>(p[0]) | (std::to_integer<unsigned>(p[1]) << 8));
}
uint8_t u8(const std::byte* p) { return std::to_integer<uint8_t>(*p); }
float f16(const std::byte* p) { return half_to_float(u16(p)); }

void block_q4_0(const std::byte* b, float* y) {
  const float d = f16(b);
  const std::byte* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((u8(qs + j) & 0x0F) - 8) * d;
    y[j + 16] = static_cast<float>((u8(qs + j) >> 4) - 8) * d;
  }
}

void block_q4_1(const std::byte* b, float* y) {
  const float d = f16(b), m = f16(b + 2);
  const std::byte* qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(u8(qs + j) & 0x0F) * d + m;
    y[j + 16] = static_cast<float>(u8(qs + j) >> 4) * d + m;
  }
}

// Q5_0 and Q5_1: four bytes hold the fifth bit of each of the 32 values.
void block_q5(const std::byte* b, float* y, bool with_min) {
  const float d = f16(b), m = with_min ? f16(b + 2) : 0.0f;
  const std::byte* qh_bytes = b + (with_min ? 4 : 2);
  uint32_t qh = 0;
  std::memcpy(&qh, qh_bytes, 4);  // little-endian, as the files are
  const std::byte* qs = qh_bytes + 4;
  const int offset = with_min ? 0 : 16;
  for (int j = 0; j < 16; ++j) {
    const int high0 = static_cast<int>(((qh >> j) << 4) & 0x10);
    const int high1 = static_cast<int>((qh >> (j + 12)) & 0x10);
    const auto x0 = static_cast<float>(((u8(qs + j) & 0x0F) | high0) - offset);
    const auto x1 = static_cast<float>(((u8(qs + j) >> 4) | high1) - offset);
    y[j] = with_min ? x0 * d + m : x0 * d;
    y[j + 16] = with_min ? x1 * d + m : x1 * d;
  }
}

void block_q8_0(const std::byte* b, float* y) {
  const float d = f16(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(u8(b + 2 + j))) * d;
}

// The 6-bit scale and minimum of sub-block j of a Q4_K/Q5_K super-block, packed in 12 bytes.
void scale_min_k4(int j, const std::byte* q, uint8_t& scale, uint8_t& min) {
  if (j < 4) {
    scale = u8(q + j) & 63;
    min = u8(q + j + 4) & 63;
  } else {
    scale = static_cast<uint8_t>((u8(q + j + 4) & 0x0F) | ((u8(q + j - 4) >> 6) << 4));
    min = static_cast<uint8_t>((u8(q + j + 4) >> 4) | ((u8(q + j) >> 6) << 4));
  }
}

// Q4_K and Q5_K: d, dmin, 12 bytes of scales, for Q5_K 32 bytes of fifth bits, then the nibbles.
void block_q45_k(const std::byte* b, float* y, bool five_bits) {
  const float d = f16(b), dmin = f16(b + 2);
  const std::byte* scales = b + 4;
  const std::byte* qh = b + 16;
  const std::byte* ql = b + (five_bits ? 48 : 16);
  int is = 0;
  unsigned u1 = 1, u2 = 2;
  for (int j = 0; j < kSuperBlock; j += 64) {
    uint8_t sc = 0, m = 0;
    scale_min_k4(is, scales, sc, m);
    const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
    scale_min_k4(is + 1, scales, sc, m);
    const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
    for (int l = 0; l < 32; ++l) {
      const int high1 = five_bits && (u8(qh + l) & u1) ? 16 : 0;
      const int high2 = five_bits && (u8(qh + l) & u2) ? 16 : 0;
      y[l] = d1 * static_cast<float>((u8(ql + l) & 0x0F) + high1) - m1;
      y[l + 32] = d2 * static_cast<float>((u8(ql + l) >> 4) + high2) - m2;
    }
    y += 64;
    ql += 32;
    is += 2;
    u1 <<= 2;
    u2 <<= 2;
  }
}

// Q6_K: 128 bytes of low nibbles, 64 of high bit pairs, 16 signed scales, then d.
void block_q6_k(const std::byte* b, float* y) {
  const std::byte* ql = b;
  const std::byte* qh = b + 128;
  const std::byte* sc = b + 192;
  const float d = f16(b + 208);
  for (int n = 0; n < kSuperBlock; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int h = u8(qh + l);
      const int q1 = ((u8(ql + l) & 0x0F) | (((h >> 0) & 3) << 4)) - 32;
      const int q2 = ((u8(ql + l + 32) & 0x0F) | (((h >> 2) & 3) << 4)) - 32;
      const int q3 = ((u8(ql + l) >> 4) | (((h >> 4) & 3) << 4)) - 32;
      const int q4 = ((u8(ql + l + 32) >> 4) | (((h >> 6) & 3) << 4)) - 32;
      const auto scale = [&](int k) { return d * static_cast<float>(static_cast<int8_t>(u8(sc + is + k))); };
      y[l] = scale(0) * static_cast<float>(q1);
      y[l + 32] = scale(2) * static_cast<float>(q2);
      y[l + 64] = scale(4) * static_cast<float>(q3);
      y[l + 96] = scale(6) * static_cast<float>(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

void convert_block(uint32_t id, const std::byte* b, float* y) {
  switch (id) {
    case 0: std::memcpy(y, b, 4); break;
    case 1: *y = f16(b); break;
    case 30: *y = bfloat16_to_float(u16(b)); break;
    case 2: block_q4_0(b, y); break;
    case 3: block_q4_1(b, y); break;
    case 6: block_q5(b, y, false); break;
    case 7: block_q5(b, y, true); break;
    case 8: block_q8_0(b, y); break;
    case 12: block_q45_k(b, y, false); break;
    case 13: block_q45_k(b, y, true); break;
    case 14: block_q6_k(b, y); break;
    default: throw Error("internal: no conversion for ggml type " + std::to_string(id));
  }
}

}  // namespace

const GgmlType* ggml_type(uint32_t id) {
  for (const GgmlType& type : kTypes)
    if (type.id == id) return &type;
  return nullptr;
}

float half_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1F;
  uint32_t mantissa = bits & 0x3FF;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return std::bit_cast<float>(sign);
  // Subnormal: 2^-24 times the mantissa, exact in float32.
  const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
  return sign ? -magnitude : magnitude;
}

float bfloat16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

void dequantize(const GgmlType& type, std::span<const std::byte> bytes, std::span<float> out) {
  if (!type.converts)
    throw Error("tensors of ggml type " + std::string(type.name) +
                " cannot be read yet (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K and Q6_K can)");
  const auto elements = static_cast<int64_t>(out.size());
  if (elements % type.block_elements != 0 ||
      bytes.size() != static_cast<size_t>(elements / type.block_elements) * type.block_bytes)
    throw Error("a " + std::string(type.name) + " tensor of " + std::to_string(elements) + " values does not fit " +
                std::to_string(bytes.size()) + " bytes");
  const int64_t blocks = elements / type.block_elements;
  for (int64_t k = 0; k < blocks; ++k)
    convert_block(type.id, bytes.data() + k * type.block_bytes, out.data() + k * type.block_elements);
}

}  // namespace attnscope
