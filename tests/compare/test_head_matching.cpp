// The Hungarian method against cases worked by hand and against every permutation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "compare/head_matching.h"
#include "base/error.h"

namespace attnscope {
namespace {

double total(const std::vector<double>& score, const std::vector<int>& assign, int k) {
  double sum = 0;
  for (int r = 0; r < k; ++r) sum += score[static_cast<size_t>(r * k + assign[static_cast<size_t>(r)])];
  return sum;
}

TEST(HeadMatching, BeatsTheGreedyChoice) {
  // Greedy takes (0, 0) = 10 and ends at 11; the best is (0, 1) + (1, 0) + (2, 2) = 19.
  const std::vector<double> score{10, 9, 0, 9, 0, 0, 0, 0, 1};
  EXPECT_EQ(max_weight_matching(score, 3), (std::vector<int>{1, 0, 2}));
}

TEST(HeadMatching, RecoversAPermutationOfTheIdentity) {
  const std::vector<int> permutation{2, 0, 3, 1};
  std::vector<double> score(16, 0.1);
  for (int r = 0; r < 4; ++r) score[static_cast<size_t>(r * 4 + permutation[static_cast<size_t>(r)])] = 1.0;
  EXPECT_EQ(max_weight_matching(score, 4), permutation);
}

TEST(HeadMatching, EqualsTheBestOfEveryPermutation) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const int k = 1 + trial % 6;
    std::vector<double> score(static_cast<size_t>(k * k));
    for (double& s : score) s = uniform(random);
    std::vector<int> order(static_cast<size_t>(k));
    std::iota(order.begin(), order.end(), 0);
    double best = -INFINITY;
    do best = std::max(best, total(score, order, k));
    while (std::next_permutation(order.begin(), order.end()));
    const std::vector<int> assign = max_weight_matching(score, k);
    std::vector<int> sorted = assign;
    std::sort(sorted.begin(), sorted.end());
    std::iota(order.begin(), order.end(), 0);
    EXPECT_EQ(sorted, order) << "not one to one";
    EXPECT_NEAR(total(score, assign, k), best, 1e-12) << k << " heads, trial " << trial;
  }
}

TEST(HeadMatching, RefusesBadScores) {
  EXPECT_THROW(max_weight_matching({1, 2, 3}, 2), Error);
  EXPECT_THROW(max_weight_matching({1, NAN, 3, 4}, 2), Error);
  EXPECT_TRUE(max_weight_matching({}, 0).empty());
}

}  // namespace
}  // namespace attnscope
