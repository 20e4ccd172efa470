#pragma once
// A text table of the command line whose columns are as wide as their widest cell, header
// included, over the whole table: a count of pairs on a long text (8,386,545 of 4,096 tokens) or a
// mean distance of four digits keeps its row's later columns under their headers, as printf's
// fixed widths did not. Widths count code points (text_cell.h), so pieces such as "▁the" align.
// Lines of free text (a layer's summary, a blank line) and repeated headers may sit between rows.
#include <cstdio>
#include <string>
#include <vector>

namespace attnscope::cli {

class TextTable {
 public:
  struct Column {
    std::string header;
    bool left = false;  // text (a token, a role) left-aligned; numbers right-aligned
    size_t width = 0;   // at least, for a steady look across runs where values are short
  };
  explicit TextTable(std::vector<Column> columns);

  void header();                             // the columns' headers, here
  void row(std::vector<std::string> cells);  // as many cells as columns
  void line(std::string text);               // free text, printed as it is
  std::string text() const;                  // every line, each ending in '\n'
  void print(std::FILE* out = stdout) const;

 private:
  struct Entry {
    enum class Kind { header, row, line } kind;
    std::vector<std::string> cells;  // a row's; a line's text is its one cell
  };
  std::string format(const std::vector<std::string>& cells, const std::vector<size_t>& widths) const;

  std::vector<Column> columns_;
  std::vector<Entry> entries_;
};

}  // namespace attnscope::cli
