// The command line's text tables (app/cli/text_table.h): each column as wide as its widest cell
// over the whole table, so a long text's large counts keep the columns after them in line.
#include <gtest/gtest.h>

#include "cli/text_table.h"

namespace attnscope {
namespace {

using cli::TextTable;

TEST(TextTable, ColumnsWidenToTheirWidestCellOverEveryRow) {
  TextTable table({{"layer"}, {"pairs", false, 6}, {"anchor", true}, {"note", true}});
  table.header();
  table.row({"0", "12", "the", "a"});
  table.line("layer 0: one line of its own");
  table.header();
  table.row({"1", "8386545", "\u2581caf\u00e9", "b"});  // 7 digits, past the minimum of 6
  EXPECT_EQ(table.text(),
            "layer   pairs  anchor  note\n"
            "    0      12  the     a\n"
            "layer 0: one line of its own\n"
            "layer   pairs  anchor  note\n"
            "    1 8386545  \u2581caf\u00e9   b\n");
}

TEST(TextTable, AColumnKeepsItsMinimumWidthAndTheLastIsNotPadded) {
  TextTable table({{"CKA", false, 6}, {"role", true}});
  table.header();
  table.row({"0.5", "previous token"});
  table.row({"-", "-"});
  EXPECT_EQ(table.text(),
            "   CKA  role\n"
            "   0.5  previous token\n"
            "     -  -\n");
}

TEST(TextTable, ARowNeedsACellForEveryColumn) {
  TextTable table({{"a"}, {"b"}});
  EXPECT_THROW(table.row({"1"}), std::logic_error);
}

}  // namespace
}  // namespace attnscope
