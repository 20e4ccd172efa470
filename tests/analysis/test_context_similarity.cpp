// S = C C^T with its diagonal zeroed, norms, cosine: small matrices worked out by hand.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "analysis/context_similarity.h"

namespace attnscope {
namespace {

at::Tensor matrix(std::vector<std::vector<float>> rows) {
  at::Tensor t = at::empty({static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows[0].size())});
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < rows[i].size(); ++j) t[static_cast<int64_t>(i)][static_cast<int64_t>(j)] = rows[i][j];
  return t;
}

TEST(ContextSimilarity, HandComputed) {
  // c0 = (1, 0), c1 = (0, 2), c2 = (1, 1), c3 = (-1, 0)
  const auto r = context_similarity(matrix({{1, 0}, {0, 2}, {1, 1}, {-1, 0}}));
  // S = [[1, 0, 1, -1], [0, 4, 2, 0], [1, 2, 2, -1], [-1, 0, -1, 1]], diagonal then zeroed
  EXPECT_TRUE(at::equal(r.similarity, matrix({{0, 0, 1, -1}, {0, 0, 2, 0}, {1, 2, 0, -1}, {-1, 0, -1, 0}})));
  EXPECT_TRUE(at::allclose(r.norms, at::tensor({1.0f, 2.0f, std::sqrt(2.0f), 1.0f})));
  const float h = 1.0f / std::sqrt(2.0f);  // cos 45 degrees
  EXPECT_TRUE(at::allclose(cosine_from_similarity(r.similarity, r.norms),
                           matrix({{0, 0, h, -1}, {0, 0, h, 0}, {h, h, 0, -h}, {-1, 0, -h, 0}})));
}

TEST(ContextSimilarity, ZeroVectorsHaveCosineZeroNotNaN) {
  const auto r = context_similarity(matrix({{0, 0}, {3, 4}}));
  EXPECT_EQ(r.norms[1].item<float>(), 5.0f);
  const at::Tensor cosine = cosine_from_similarity(r.similarity, r.norms);
  EXPECT_FALSE(at::isnan(cosine).any().item<bool>());
  EXPECT_EQ(cosine[0][1].item<float>(), 0.0f);
}

TEST(ContextSimilarity, BatchedOverLayersAndHeadsAndSymmetric) {
  const at::Tensor c = at::randn({3, 4, 10, 8}, at::TensorOptions().dtype(at::kFloat));
  const auto r = context_similarity(c);
  EXPECT_EQ(r.similarity.sizes(), (std::vector<int64_t>{3, 4, 10, 10}));
  EXPECT_TRUE(at::allclose(r.similarity, r.similarity.transpose(-1, -2)));
  EXPECT_TRUE(at::equal(r.similarity.diagonal(0, -2, -1), at::zeros({3, 4, 10})));
  EXPECT_TRUE(at::allclose(r.similarity[2][1], context_similarity(c[2][1]).similarity));
}

}  // namespace
}  // namespace attnscope
