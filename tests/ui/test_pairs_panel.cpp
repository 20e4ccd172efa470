// The Pairs view's line above its table (ui/panels/pairs_panel.h): a long text's head lists only
// its first pairs by position, and a table sorted by value must not pass them off as the strongest.
#include <gtest/gtest.h>

#include "panels/pairs_panel.h"

namespace attnscope::ui {
namespace {

TEST(PairTableNote, NoneWhereEveryPairIsListed) {
  EXPECT_FALSE(pair_table_note(100, 100, true));
  EXPECT_FALSE(pair_table_note(100, 100, false));
}

TEST(PairTableNote, SaysHowManyAreListedAndWhatASortByValueOrders) {
  EXPECT_EQ(pair_table_note(262144, 677660, true),
            "The table lists the first 262,144 (by position); the map shows them all.");
  const auto sorted = pair_table_note(262144, 677660, false);
  ASSERT_TRUE(sorted);
  EXPECT_NE(sorted->find("sorts the first 262,144 (by position) only"), std::string::npos) << *sorted;
  EXPECT_NE(sorted->find("attnscope-cli pairs --top N"), std::string::npos) << *sorted;
}

}  // namespace
}  // namespace attnscope::ui
