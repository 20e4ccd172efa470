#pragma once
// Heads are unordered across pre-training seeds: head 3 of one seed may do what head 7 of the
// other does. The matching pairs each head of A with one head of B, one to one, so that the summed
// similarity of the pairs is the largest possible (the assignment problem, solved exactly by the
// Hungarian method with potentials in O(k^3); k <= a few dozen heads per layer).
#include <vector>

namespace attnscope {

// score: k x k, row-major, score[r * k + c] = similarity of A's head r with B's head c (finite).
// Returns assign[r] = the column given to row r, maximising sum_r score[r][assign[r]]. Throws
// attnscope::Error when score is not k x k or holds a non-finite value.
std::vector<int> max_weight_matching(const std::vector<double>& score, int k);

}  // namespace attnscope
