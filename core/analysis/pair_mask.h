#pragma once
// The high-similarity elements B_ij = 1 (i < j) of one head, as a packed bit set over the upper
// triangle: n (n - 1) / 2 bits in row-major order, (0,1), (0,2), ..., (1,2), ... (the order of
// numpy's triu_indices(n, 1)), bit k in byte k / 8 at position k % 8 (numpy's bitorder="little").
// A dense head of a 512-token text takes 16 KB this way, where a pair list would take megabytes;
// pair lists are made from it for the one head a view or a command shows.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace attnscope {

struct TokenPair {
  int i = 0, j = 0;    // token positions, i < j
  float value = 0.0f;  // S_hat_ij
};

class PairMask {
 public:
  PairMask() = default;
  explicit PairMask(int n) : n_(n), bits_((triangle(n) + 7) / 8, 0) {}
  // From packed bits as stored in a result file; throws attnscope::Error when the size is wrong.
  PairMask(int n, std::vector<uint8_t> bits);

  static int64_t triangle(int n) { return static_cast<int64_t>(n) * (n - 1) / 2; }
  // Position of (i, j), i < j, in the upper triangle.
  static int64_t index(int n, int i, int j) {
    return static_cast<int64_t>(i) * n - static_cast<int64_t>(i) * (i + 1) / 2 + (j - i - 1);
  }

  int tokens() const { return n_; }
  int64_t count() const { return count_; }
  bool test(int i, int j) const;  // either order; false on the diagonal
  // Row i's flags for j = i + 1 .. n - 1 (0 or 1 each), as the pair scan produces them.
  void set_row(int i, const uint8_t* flags);
  const std::vector<uint8_t>& bits() const { return bits_; }

  // Calls f(i, j) for every pair, in row-major order.
  template <typename F>
  void for_each(F&& f) const {
    int64_t k = 0;
    for (int i = 0; i < n_; ++i)
      for (int j = i + 1; j < n_; ++j, ++k)
        if (bits_[static_cast<size_t>(k >> 3)] >> (k & 7) & 1) f(i, j);
  }

 private:
  int n_ = 0;
  int64_t count_ = 0;
  std::vector<uint8_t> bits_;
};

}  // namespace attnscope
