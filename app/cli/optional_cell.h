#pragma once
// A table cell of the command line's text tables: a value printed with `format`, or "-" where it
// is undefined (a statistic of a head without pairs, a role a model cannot have).
#include <cstdio>
#include <optional>
#include <string>

namespace attnscope::cli {

inline std::string optional_cell(const std::optional<double>& v, const char* format = "%.3f") {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

}  // namespace attnscope::cli
