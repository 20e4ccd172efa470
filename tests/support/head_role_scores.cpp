#include "support/head_role_scores.h"

#include <gtest/gtest.h>

namespace attnscope::test {

void expect_scores_near(const HeadRoleScores& got, const HeadRoleScores& want, double tolerance,
                        const std::string& where) {
  ASSERT_EQ(got.layers(), want.layers());
  ASSERT_EQ(got.heads(), want.heads());
  for (const HeadRole role : kHeadRoles)
    for (int64_t l = 0; l < want.layers(); ++l)
      for (int64_t h = 0; h < want.heads(); ++h) {
        const auto g = got.score(role, l, h), w = want.score(role, l, h);
        ASSERT_EQ(g.has_value(), w.has_value()) << head_role_name(role) << " " << l << ":" << h << where;
        if (w) EXPECT_NEAR(*g, *w, tolerance) << head_role_name(role) << " " << l << ":" << h << where;
      }
}

}  // namespace attnscope::test
