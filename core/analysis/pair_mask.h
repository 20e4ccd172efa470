#pragma once
// The high-similarity elements B_ij = 1 (i < j) of one head, as a packed bit set over the upper
// triangle: n (n - 1) / 2 bits in row-major order, (0,1), (0,2), ..., (1,2), ... (the order of
// numpy's triu_indices(n, 1)), bit k in byte k / 8 at position k % 8 (numpy's bitorder="little").
// A dense head of a 512-token text takes 16 KB this way, where a pair list would take megabytes;
// pair lists are made from it for the one head a view or a command shows. Held in chunks, those
// with no pair or every pair kept as a tag alone. Copies share their chunks' bytes until one of them
// is written to (a layer's rollout pairs are every one of its heads': twelve copies of one mask).
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
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
  explicit PairMask(int n);
  // From packed bits as stored in a result file; throws attnscope::Error when the size is wrong.
  PairMask(int n, std::span<const uint8_t> bits);
  PairMask(int n, const std::vector<uint8_t>& bits) : PairMask(n, std::span<const uint8_t>(bits)) {}
  // The pairs in packed bits as above, counted where they lie (a long text's result file holds
  // gigabytes of them, which need not be copied to be counted); the same size check.
  static int64_t count_packed(int n, std::span<const uint8_t> bits);

  static int64_t triangle(int n) { return static_cast<int64_t>(n) * (n - 1) / 2; }
  // Position of (i, j), i < j, in the upper triangle.
  static int64_t index(int n, int i, int j) {
    return static_cast<int64_t>(i) * n - static_cast<int64_t>(i) * (i + 1) / 2 + (j - i - 1);
  }

  int tokens() const { return n_; }
  int64_t count() const { return count_; }
  bool test(int i, int j) const;  // either order; false on the diagonal
  // Row i's flags for j = i + 1 .. n - 1 (0 or 1 each), as the pair scan produces them. Rows set in
  // order (as the scan does) are kept the smallest.
  void set_row(int i, const uint8_t* flags);
  // The packed bits, (triangle(n) + 7) / 8 bytes, made when asked (a result file writes them).
  std::vector<uint8_t> bits() const;
  // Pairs set in both masks (of the same tokens).
  int64_t count_both(const PairMask& other) const;
  // Bytes the mask holds beyond its object: what the chunks that are neither empty nor full take
  // (shared with its copies, counted in each).
  size_t stored_bytes() const { return pool().size() + kind_.size() + slot_.size() * sizeof(uint32_t); }
  // Whether this mask and `other` share their chunks' bytes (copies of one another not written to since).
  bool shares_bytes_with(const PairMask& other) const { return pool_ && pool_ == other.pool_; }

  // Calls f(i, j) for every pair, in row-major order.
  template <typename F>
  void for_each(F&& f) const {
    int i = 0;
    int64_t row_end = n_ - 1;  // one past row i's last bit
    for (int64_t c = 0; c < static_cast<int64_t>(kind_.size()); ++c) {
      if (kind_[static_cast<size_t>(c)] == kEmpty) continue;
      const int64_t first = c * kChunkBits, last = std::min(first + kChunkBits, triangle(n_));
      while (first >= row_end) row_end += n_ - 1 - ++i;  // the row holding the chunk's first bit
      int row = i;
      int64_t end = row_end;
      for (int64_t k = first; k < last; ++k) {
        while (k >= end) end += n_ - 1 - ++row;
        if (chunk_bit(c, k - first)) f(row, n_ - static_cast<int>(end - k));
      }
    }
  }

 private:
  // The bits in chunks of 4,096 (a third of a row at 12,288 tokens): a chunk with no pair or with
  // every pair is a tag alone; only mixed chunks hold their 512 bytes. A head of a trained model
  // leaves most chunks empty, a random model's dense heads most full (at 8,192 tokens a packed
  // mask is 4 MB a head, 1.1 GB for 264 heads, whatever its density).
  static constexpr int64_t kChunkBits = 4096, kChunkBytes = kChunkBits / 8;
  enum Kind : uint8_t { kEmpty, kFull, kMixed };
  bool chunk_bit(int64_t c, int64_t k) const {
    const Kind kind = static_cast<Kind>(kind_[static_cast<size_t>(c)]);
    if (kind != kMixed) return kind == kFull;
    return chunk_bytes(c)[k >> 3] >> (k & 7) & 1;
  }
  // The mixed chunks' bytes (none: an empty pool); own_pool() makes them this mask's alone first.
  const std::vector<uint8_t>& pool() const;
  std::vector<uint8_t>& own_pool();
  const uint8_t* chunk_bytes(int64_t c) const {  // a mixed chunk's
    return pool_->data() + static_cast<size_t>(slot_[static_cast<size_t>(c)]) * kChunkBytes;
  }
  int64_t chunk_size(int64_t c) const { return std::min(kChunkBits, triangle(n_) - c * kChunkBits); }
  uint8_t* mixed(int64_t c);  // chunk c's bytes, made mixed first where it is a tag
  void settle(int64_t c);     // chunk c back to a tag where it is uniform (when it is the last made)

  int n_ = 0;
  int64_t count_ = 0;
  std::vector<uint8_t> kind_;   // per chunk
  std::vector<uint32_t> slot_;  // per chunk: where a mixed one's bytes are in the pool
  // Mixed chunks' bytes, kChunkBytes each; shared by copies (copy on write), null while none is mixed.
  std::shared_ptr<std::vector<uint8_t>> pool_;
  int64_t open_ = -1;  // the last chunk set_row wrote
};

}  // namespace attnscope
