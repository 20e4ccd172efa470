// The per-token Gram matrices of the vectors the heads move (the norm-based lens): the CPU kernel,
// which skips the mirrored half and works a slice of tokens at a time, and the tensor-operation
// form other devices use, both against f_h(x_j) = W_O[:, head h] v_j^h built explicitly; and
// both made from a slice on, as a continued forward makes them.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "base/error.h"
#include "model/value_gram.h"

namespace attnscope {
namespace {

struct Case {
  at::Tensor w_o, values;  // [D, D] (a linear layer's weight: out = merged W_O^T), [B, H, d, n]
};

// The values as the forward leaves them: one head's [d, n] rows inside a [B, 3D, n] projection.
Case random_case(int64_t B, int64_t H, int64_t d, int64_t n, at::ScalarType dtype) {
  at::manual_seed(7);
  const int64_t D = H * d;
  const at::Tensor projection = at::randn({B, 3 * D, n}, at::kDouble).to(dtype);
  return {at::randn({D, D}, at::kDouble).to(dtype) / std::sqrt(static_cast<double>(D)),
          projection.view({B, H, 3, d, n}).select(2, 2)};
}

// G[b, j, h, h'] from the f_h(x_j) themselves, in float64.
at::Tensor explicit_gram(const Case& c) {
  const int64_t B = c.values.size(0), H = c.values.size(1), d = c.values.size(2), n = c.values.size(3), D = H * d;
  const at::Tensor w = c.w_o.to(at::kDouble).view({D, H, d}).permute({1, 0, 2});  // [H, D, d]: head h's columns of W_O
  const at::Tensor f = at::matmul(w, c.values.to(at::kDouble));                   // [B, H, D, n]: f_h(x_j) as columns
  const at::Tensor f_tokens = f.permute({0, 3, 1, 2});                            // [B, n, H, D]
  return at::matmul(f_tokens, f_tokens.transpose(2, 3));                          // [B, n, H, H]
}

void expect_matches(const Case& c, double tolerance) {
  const int64_t B = c.values.size(0), H = c.values.size(1), n = c.values.size(3);
  const auto options = c.values.options();
  at::Tensor gram = at::full({B, n, H, H}, -1.0, options), norms = at::full({B, H, n}, -1.0, options);
  value_gram_into(at::mm(c.w_o.t(), c.w_o).contiguous(), c.values, gram, norms);
  const at::Tensor expected = explicit_gram(c);
  const double scale = expected.abs().max().item<double>();
  EXPECT_LT((gram.to(at::kDouble) - expected).abs().max().item<double>(), tolerance * scale);
  const at::Tensor expected_norms = expected.diagonal(0, 2, 3).sqrt().permute({0, 2, 1});
  EXPECT_LT((norms.to(at::kDouble) - expected_norms).abs().max().item<double>(), tolerance * std::sqrt(scale));
  if (c.values.scalar_type() == at::kFloat)
    EXPECT_TRUE(at::equal(gram, gram.transpose(2, 3)))
        << "the kernel writes each pair it computes on both sides of the diagonal";
}

TEST(ValueGram, MiniLMShapedOnTheCpuKernel) { expect_matches(random_case(1, 12, 32, 128, at::kFloat), 1e-5); }

TEST(ValueGram, OddHeadsSeveralTextsAndATokenSliceCutShort) {
  // 3 heads (the middle one has no partner), 2 texts, 300 tokens: slices of 128, 128 and 44.
  expect_matches(random_case(2, 3, 4, 300, at::kFloat), 1e-5);
}

TEST(ValueGram, TensorOperationsForOtherDevicesAndDtypes) {
  expect_matches(random_case(2, 5, 3, 7, at::kDouble), 1e-12);  // float64 is not the kernel's: the general form
}

// From a slice on (what a continued forward makes, the slices before taken from the run before):
// the tokens before are left as they were, the later ones are those of the whole computation (the
// kernel's to the bit: the same slices at the same positions).
TEST(ValueGram, FromASliceOnLeavesTheTokensBeforeAsTheyAre) {
  for (const auto dtype : {at::kFloat, at::kDouble}) {  // the kernel, then the tensor operations
    const Case c = random_case(1, 3, 4, 300, dtype);
    const at::Tensor product = at::mm(c.w_o.t(), c.w_o).contiguous();
    const auto options = c.values.options();
    at::Tensor whole = at::empty({1, 300, 3, 3}, options), whole_norms = at::empty({1, 3, 300}, options);
    value_gram_into(product, c.values, whole, whole_norms);
    at::Tensor gram = at::full({1, 300, 3, 3}, -1.0, options), norms = at::full({1, 3, 300}, -1.0, options);
    value_gram_into(product, c.values, gram, norms, kValueGramSlice);
    EXPECT_TRUE(at::equal(gram.narrow(1, 0, 128), at::full({1, 128, 3, 3}, -1.0, options)));
    EXPECT_TRUE(at::equal(norms.narrow(2, 0, 128), at::full({1, 3, 128}, -1.0, options)));
    EXPECT_TRUE(at::allclose(gram.narrow(1, 128, 172), whole.narrow(1, 128, 172), 1e-12, 0));
    EXPECT_TRUE(at::allclose(norms.narrow(2, 128, 172), whole_norms.narrow(2, 128, 172), 1e-12, 0));
    if (dtype == at::kFloat) EXPECT_TRUE(at::equal(gram.narrow(1, 128, 172), whole.narrow(1, 128, 172)));
    EXPECT_THROW(value_gram_into(product, c.values, gram, norms, 100), Error) << "not where a slice starts";
    EXPECT_THROW(value_gram_into(product, c.values, gram, norms, 384), Error) << "past the last token";
    EXPECT_THROW(value_gram_into(product, c.values, gram, norms, -128), Error);
  }
}

TEST(ValueGram, ShapesThatDoNotMatchAreRefused) {
  const Case c = random_case(1, 2, 3, 4, at::kFloat);
  at::Tensor gram = at::empty({1, 4, 2, 2}), norms = at::empty({1, 2, 4});
  EXPECT_THROW(value_gram_into(at::eye(5), c.values, gram, norms), Error);
  at::Tensor wrong_norms = at::empty({1, 2, 5});
  EXPECT_THROW(value_gram_into(at::eye(6), c.values, gram, wrong_norms), Error);
}

}  // namespace
}  // namespace attnscope
