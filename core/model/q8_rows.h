#pragma once
// A matrix [rows, columns] kept as a GGUF file stores it in ggml's Q8_0 type: per block of 32
// values of a row, one scale (float16 in the file, float32 here) and 32 signed bytes, each value
// being byte times scale. The quantities are held apart from the scales (32 bytes and 4 per
// block, against the file's 34), so a row's bytes lie together. Two reads: rows by index (an
// embedding look-up), each value equal to the float32 dequantisation (ggml_types.h) to the bit;
// and the matrix times a vector, reading a quarter of float32's bytes (a decoder's next-token
// scores: Gemma 3's 262,144 x 640 matrix in some 10 ms on two cores, against 20 in float32).
#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace attnscope {

// How the product is computed: the best the processor allows (AVX2 where it has it), or the
// portable loop; both add the same terms in the same order, so they agree to the bit.
enum class Q8Kernel { Best, Portable };

class Q8Rows {
 public:
  // From the file's blocks, row after row (rows * columns / 32 blocks of 34 bytes); one line when
  // the columns are not whole blocks or the bytes do not fit.
  Q8Rows(std::span<const std::byte> blocks, int64_t rows, int64_t columns);

  int64_t rows() const { return rows_; }
  int64_t columns() const { return columns_; }
  size_t bytes() const;

  // The rows with these indices, float32 [ids' shape..., columns]; one line for an index outside.
  at::Tensor rows_of(const at::Tensor& ids) const;
  // The matrix times `x` [columns]: [rows] in float32, each row summed in a fixed order (per block
  // the 32 products in four lanes of eight, times the block's scale, then the lanes) whatever the
  // threads. One line for a wrong-sized vector.
  at::Tensor times(const at::Tensor& x, Q8Kernel kernel = Q8Kernel::Best) const;

 private:
  int64_t rows_ = 0, columns_ = 0;
  at::Tensor quantities_;  // int8 [rows, columns]
  at::Tensor scales_;      // float32 [rows, columns / 32]
};

}  // namespace attnscope
