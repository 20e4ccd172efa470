#include "support/strongest_pairs_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "analysis/strongest_pairs.h"
#include "base/error.h"

namespace attnscope::test {

void expect_strongest_pairs_are_the_sorted_list(const TextAnalysis& a, int64_t layer, int64_t head) {
  SCOPED_TRACE("the strongest pairs of layer " + std::to_string(layer) + ", head " + std::to_string(head));
  std::vector<TokenPair> sorted = head_pairs(a, layer, head);
  ASSERT_FALSE(sorted.empty()) << "a head with pairs";
  std::sort(sorted.begin(), sorted.end(), [](const TokenPair& p, const TokenPair& q) {
    return std::make_tuple(-p.value, p.i, p.j) < std::make_tuple(-q.value, q.i, q.j);
  });
  const auto count = static_cast<int64_t>(sorted.size());
  for (const int64_t top : {int64_t{1}, std::max<int64_t>(count / 3, 1), count, count + 5}) {
    double last_share = -1;
    const std::vector<TokenPair> strongest =
        strongest_head_pairs(a, layer, head, top, {.progress = [&](double share) { last_share = share; }});
    ASSERT_EQ(static_cast<int64_t>(strongest.size()), std::min(top, count)) << "top " << top;
    for (size_t k = 0; k < strongest.size(); ++k)
      EXPECT_TRUE(strongest[k].i == sorted[k].i && strongest[k].j == sorted[k].j &&
                  strongest[k].value == sorted[k].value)
          << "top " << top << ", rank " << k << ": (" << strongest[k].i << ", " << strongest[k].j << ") "
          << strongest[k].value << " against (" << sorted[k].i << ", " << sorted[k].j << ") " << sorted[k].value;
    EXPECT_EQ(last_share, 1.0) << "top " << top;
  }
  EXPECT_THROW(strongest_head_pairs(a, layer, head, 3, {.keep_going = [] { return false; }}), Cancelled);
}

}  // namespace attnscope::test
