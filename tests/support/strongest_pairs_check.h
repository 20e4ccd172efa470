#pragma once
// strongest_head_pairs checked against the analysis's own list of every pair (head_pairs), sorted
// here by value, then position: the same pairs with the same values, bit for bit, for a `top`
// below, at and past the head's count; its progress ends at the whole; asked to stop, it stops.
#include <cstdint>

#include "analysis/text_analysis.h"

namespace attnscope::test {

void expect_strongest_pairs_are_the_sorted_list(const TextAnalysis& analysis, int64_t layer, int64_t head);

}  // namespace attnscope::test
