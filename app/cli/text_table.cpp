#include "text_table.h"

#include <algorithm>
#include <stdexcept>

#include "text_cell.h"
#include "tokenizer/utf8.h"

namespace attnscope::cli {

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::header() { entries_.push_back({Entry::Kind::header, {}}); }

void TextTable::row(std::vector<std::string> cells) {
  if (cells.size() != columns_.size()) throw std::logic_error("TextTable::row: a cell for each column");
  entries_.push_back({Entry::Kind::row, std::move(cells)});
}

void TextTable::line(std::string text) { entries_.push_back({Entry::Kind::line, {std::move(text)}}); }

// Cells one space apart; two before a left-aligned column, whose text would otherwise run on from
// the number before it. The last column is not padded, so no line ends in spaces.
std::string TextTable::format(const std::vector<std::string>& cells, const std::vector<size_t>& widths) const {
  std::string out;
  for (size_t c = 0; c < cells.size(); ++c) {
    if (c > 0) out += columns_[c].left ? "  " : " ";
    const bool last = c + 1 == cells.size();
    const size_t shown = count_code_points(cells[c]);
    if (columns_[c].left)
      out += last ? cells[c] : left_aligned(cells[c], widths[c]);
    else
      out += std::string(widths[c] > shown ? widths[c] - shown : 0, ' ') + cells[c];
  }
  return out + "\n";
}

std::string TextTable::text() const {
  std::vector<std::string> headers;
  std::vector<size_t> widths;
  for (const Column& c : columns_) {
    headers.push_back(c.header);
    widths.push_back(std::max(c.width, count_code_points(c.header)));
  }
  for (const Entry& e : entries_)
    if (e.kind == Entry::Kind::row)
      for (size_t c = 0; c < e.cells.size(); ++c) widths[c] = std::max(widths[c], count_code_points(e.cells[c]));
  std::string out;
  for (const Entry& e : entries_) {
    if (e.kind == Entry::Kind::line)
      out += e.cells[0] + "\n";
    else
      out += format(e.kind == Entry::Kind::header ? headers : e.cells, widths);
  }
  return out;
}

void TextTable::print(std::FILE* out) const { std::fputs(text().c_str(), out); }

}  // namespace attnscope::cli
