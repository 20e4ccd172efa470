// A matrix kept in ggml's Q8_0 blocks (model/q8_rows.h): its rows equal the format's
// dequantisation to the bit, its product with a vector is the product (float64 within float32's
// rounding), the same every time and the same on both kernels; sizes that do not fit, an id
// outside and a wrong-sized vector are one line each.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <random>
#include <vector>

#include "base/error.h"
#include "model/ggml_types.h"
#include "model/q8_rows.h"
#include "model/token_matrix.h"

namespace attnscope {
namespace {

// rows x columns / 32 random blocks: a float16 scale of either sign between 2^-14 and 2^1
// (subnormal ones too), then 32 random bytes.
std::vector<std::byte> random_blocks(int64_t rows, int64_t columns, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<std::byte> bytes(static_cast<size_t>(rows * columns / 32 * 34));
  for (size_t b = 0; b < bytes.size(); b += 34) {
    const uint32_t exponent = random() % 17, sign = random() % 2;
    const auto scale = static_cast<uint16_t>((sign << 15) | (exponent << 10) | (random() & 0x3FF));
    std::memcpy(&bytes[b], &scale, 2);
    for (size_t j = 2; j < 34; ++j) bytes[b + j] = static_cast<std::byte>(random());
  }
  return bytes;
}

at::Tensor dequantized(const std::vector<std::byte>& bytes, int64_t rows, int64_t columns) {
  at::Tensor out = at::empty({rows, columns}, at::kFloat);
  dequantize(*ggml_type(8), bytes, std::span<float>(out.data_ptr<float>(), static_cast<size_t>(out.numel())));
  return out;
}

TEST(Q8Rows, RowsAreTheFormatsDequantisation) {
  const int64_t rows = 301, columns = 96;
  const auto bytes = random_blocks(rows, columns, 1);
  const Q8Rows m(bytes, rows, columns);
  EXPECT_EQ(m.bytes(), static_cast<size_t>(rows * columns + rows * columns / 32 * 4));
  const at::Tensor dense = dequantized(bytes, rows, columns);
  const at::Tensor ids = at::tensor({300, 0, 7, 7, 150, 299}, at::kLong).view({2, 3});
  const at::Tensor got = m.rows_of(ids);
  ASSERT_EQ(got.sizes(), (std::vector<int64_t>{2, 3, columns}));
  EXPECT_TRUE(at::equal(got, at::embedding(dense, ids))) << "to the bit";
  EXPECT_TRUE(at::equal(m.rows_of(at::arange(rows)), dense));
  EXPECT_TRUE(at::equal(TokenMatrix(Q8Rows(bytes, rows, columns)).lookup(ids), got));
}

TEST(Q8Rows, TimesIsTheProductOnEitherKernel) {
  for (const int64_t columns : {32, 96, 640}) {
    const int64_t rows = 2053;
    const auto bytes = random_blocks(rows, columns, static_cast<unsigned>(columns));
    const Q8Rows m(bytes, rows, columns);
    const at::Tensor dense = dequantized(bytes, rows, columns), x = at::randn({columns});
    const at::Tensor scores = m.times(x);
    const at::Tensor exact = at::mv(dense.to(at::kDouble), x.to(at::kDouble));
    const at::Tensor sizes = at::mv(dense.abs().to(at::kDouble), x.abs().to(at::kDouble));
    EXPECT_TRUE((scores.to(at::kDouble) - exact).abs().le(sizes * 1e-6).all().item<bool>()) << "width " << columns;
    EXPECT_TRUE(at::equal(scores, m.times(x, Q8Kernel::Portable))) << "both kernels agree to the bit";
    EXPECT_TRUE(at::equal(scores, m.times(x))) << "the same every time";
    EXPECT_TRUE(at::equal(TokenMatrix(Q8Rows(bytes, rows, columns)).scores(x.to(at::kDouble)), scores))
        << "a state of another dtype is converted first";
  }
}

TEST(Q8Rows, RefusesWhatDoesNotFitInOneLine) {
  const auto bytes = random_blocks(4, 64, 2);
  EXPECT_THROW(Q8Rows(bytes, 4, 48), Error) << "rows of no whole blocks";
  EXPECT_THROW(Q8Rows(bytes, 5, 64), Error) << "more rows than the bytes hold";
  EXPECT_THROW(Q8Rows(std::span(bytes).first(bytes.size() - 1), 4, 64), Error) << "a block cut";
  const Q8Rows m(bytes, 4, 64);
  EXPECT_THROW(m.rows_of(at::tensor({4}, at::kLong)), Error);
  EXPECT_THROW(m.rows_of(at::tensor({-1}, at::kLong)), Error);
  EXPECT_THROW(m.times(at::randn({63})), Error);
  EXPECT_THROW(m.times(at::randn({2, 32})), Error);
}

}  // namespace
}  // namespace attnscope
