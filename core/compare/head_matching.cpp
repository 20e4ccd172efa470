#include "compare/head_matching.h"

#include <cmath>
#include <limits>
#include <string>

#include "base/error.h"

namespace attnscope {
namespace {

// Minimum-cost assignment by the Hungarian method with row and column potentials: rows are
// added one at a time, each by a shortest augmenting path in reduced costs (Dijkstra-like), so
// the potentials stay feasible and the matching optimal for the rows added so far. Index 0 of
// the column arrays is a virtual column that holds the row being added.
std::vector<int> min_cost_assignment(const std::vector<double>& cost, int k) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> row_potential(k + 1, 0.0), col_potential(k + 1, 0.0);
  std::vector<int> row_of_col(k + 1, 0), previous_col(k + 1, 0);
  for (int row = 1; row <= k; ++row) {
    row_of_col[0] = row;
    int col = 0;
    std::vector<double> slack(k + 1, inf);
    std::vector<bool> visited(k + 1, false);
    do {  // grow the tree of tight edges until it reaches a free column
      visited[col] = true;
      const int r = row_of_col[col];
      double step = inf;
      int next = 0;
      for (int c = 1; c <= k; ++c) {
        if (visited[c]) continue;
        const double reduced = cost[(r - 1) * k + (c - 1)] - row_potential[r] - col_potential[c];
        if (reduced < slack[c]) slack[c] = reduced, previous_col[c] = col;
        if (slack[c] < step) step = slack[c], next = c;
      }
      for (int c = 0; c <= k; ++c) {
        if (visited[c])
          row_potential[row_of_col[c]] += step, col_potential[c] -= step;
        else
          slack[c] -= step;
      }
      col = next;
    } while (row_of_col[col] != 0);
    do {  // flip the augmenting path back to the virtual column
      const int before = previous_col[col];
      row_of_col[col] = row_of_col[before];
      col = before;
    } while (col != 0);
  }
  std::vector<int> assign(k, -1);
  for (int c = 1; c <= k; ++c) assign[row_of_col[c] - 1] = c - 1;
  return assign;
}

}  // namespace

std::vector<int> max_weight_matching(const std::vector<double>& score, int k) {
  if (k < 0 || score.size() != static_cast<size_t>(k) * static_cast<size_t>(k))
    throw Error("head matching needs a square score matrix (" + std::to_string(score.size()) + " values for " +
                std::to_string(k) + " heads)");
  std::vector<double> cost(score.size());
  for (size_t i = 0; i < score.size(); ++i) {
    if (!std::isfinite(score[i])) throw Error("head matching needs finite scores");
    cost[i] = -score[i];
  }
  return min_cost_assignment(cost, k);
}

}  // namespace attnscope
