// The Pairs view's line above its table (ui/panels/pairs_panel.h): a long text's head lists its
// first pairs by position or its strongest, and a table of the first sorted by value must not
// pass them off as the strongest.
#include <gtest/gtest.h>

#include "panels/pairs_panel.h"

namespace attnscope::ui {
namespace {

TEST(PairTableNote, NoneWhereEveryPairIsListed) {
  for (const PairListing listing : {PairListing::FirstInText, PairListing::Strongest}) {
    EXPECT_FALSE(pair_table_note(100, 100, listing, true));
    EXPECT_FALSE(pair_table_note(100, 100, listing, false));
  }
}

TEST(PairTableNote, SaysHowManyAreListedAndWhichOnes) {
  EXPECT_EQ(pair_table_note(262144, 677660, PairListing::FirstInText, true),
            "The table lists the first 262,144 (by position); the map shows them all.");
  const auto sorted = pair_table_note(262144, 677660, PairListing::FirstInText, false);
  ASSERT_TRUE(sorted);
  EXPECT_NE(sorted->find("sorts the first 262,144 (by position) only"), std::string::npos) << *sorted;
  EXPECT_NE(sorted->find("Listing the strongest (above)"), std::string::npos) << *sorted;
  for (const bool by_position : {true, false})
    EXPECT_EQ(pair_table_note(262144, 677660, PairListing::Strongest, by_position),
              "The table lists the 262,144 strongest of the 677,660; the map shows them all.");
}

}  // namespace
}  // namespace attnscope::ui
