#pragma once
// Two head-role score tables compared role by role, layer by layer, head by head: the same scores
// defined, each within `tolerance` (roles made from maps made again are their values within rounding).
#include <string>

#include "analysis/head_roles.h"

namespace attnscope::test {

void expect_scores_near(const HeadRoleScores& got, const HeadRoleScores& want, double tolerance,
                        const std::string& where = "");

}  // namespace attnscope::test
