#pragma once
// Internal to Q8Rows (q8_rows.cpp): the product of a Q8_0 matrix's rows with a vector, written
// once and compiled twice, portably in q8_rows.cpp and with AVX2 in q8_rows_avx2.cpp (a file of
// its own so that only it is built with -mavx2). Both files are built without contraction into
// FMA, so the two add the same terms in the same order and agree to the bit.
#include <cstdint>
#include <cstring>

namespace attnscope::q8_kernel {

constexpr int64_t kBlock = 32;  // values per Q8_0 block

using Floats8 = float __attribute__((vector_size(32)));

// A row of the matrix times x: per block the 32 products in four lanes of eight, added in pairs,
// times the block's scale, into one sum of eight lanes; the lanes added last, in order. `widen`
// turns eight signed bytes into eight floats.
template <class Widen>
inline float row_times(const int8_t* q, const float* scales, const float* x, int64_t blocks, const Widen& widen) {
  Floats8 sum = {};
  for (int64_t b = 0; b < blocks; ++b, q += kBlock, x += kBlock) {
    Floats8 part[4];
    for (int k = 0; k < 4; ++k) {
      Floats8 values, xs;
      widen(q + 8 * k, values);
      std::memcpy(&xs, x + 8 * k, sizeof xs);
      part[k] = values * xs;
    }
    sum += ((part[0] + part[1]) + (part[2] + part[3])) * scales[b];
  }
  float total = 0;
  for (int l = 0; l < 8; ++l) total += sum[l];
  return total;
}

struct RowsTimes {
  const int8_t* quantities;  // [rows, columns]
  const float* scales;       // [rows, columns / 32]
  const float* x;            // [columns]
  float* out;                // [rows]
  int64_t columns;

  template <class Widen>
  void rows(int64_t first, int64_t end, const Widen& widen) const {
    const int64_t blocks = columns / kBlock;
    for (int64_t r = first; r < end; ++r)
      out[r] = row_times(quantities + r * columns, scales + r * blocks, x, blocks, widen);
  }
};

// Rows [first, end) with AVX2's sign extension and conversion of eight bytes at once; only where
// the processor has AVX2 (q8_rows_avx2.cpp, x86-64 builds).
void rows_times_avx2(const RowsTimes& m, int64_t first, int64_t end);

}  // namespace attnscope::q8_kernel
