#include "analysis/pair_mask.h"

#include <bit>
#include <cstring>
#include <string>

#include "base/error.h"

namespace attnscope {
namespace {

// Sets `count` flags (0 or 1 each) from bit `k` of `bits`; returns how many were set. Eight flags
// at a time where a whole byte is covered: a byte-at-a-time loop, each write depending on the last
// one to the same byte, was 9% of the analysis at 512 tokens.
int64_t write_flags(uint8_t* bits, int64_t k, const uint8_t* flags, int64_t count) {
  int64_t set = 0, j = 0;
  const auto one = [&] {
    bits[k >> 3] |= static_cast<uint8_t>(flags[j] << (k & 7));
    set += flags[j];
    ++k, ++j;
  };
  while (j < count && (k & 7) != 0) one();
  for (; j + 8 <= count; j += 8, k += 8) {
    uint64_t eight = 0;  // flag m in byte m (little-endian), each 0 or 1
    std::memcpy(&eight, flags + j, 8);
    if constexpr (std::endian::native == std::endian::big) eight = __builtin_bswap64(eight);
    // The multiplication moves byte m's low bit to bit 56 + m, and nothing else there.
    const auto byte = static_cast<uint8_t>((eight * 0x0102040810204080ULL) >> 56);
    bits[k >> 3] |= byte;
    set += std::popcount(byte);
  }
  while (j < count) one();
  return set;
}

// Bits [0, size) of a chunk's bytes set: for a full chunk made mixed, and to compare with.
void fill_ones(uint8_t* bytes, int64_t size) {
  std::memset(bytes, 0xff, static_cast<size_t>(size >> 3));
  if (size & 7) bytes[size >> 3] = static_cast<uint8_t>((1u << (size & 7)) - 1);
}

// Eight bytes at a time (a whole chunk is 64 words): byte by byte, settling each chunk showed in
// the analysis's time.
int64_t popcount(const uint8_t* bytes, int64_t size) {
  const int64_t used = (size + 7) >> 3;
  int64_t count = 0, b = 0;
  for (; b + 8 <= used; b += 8) {
    uint64_t word = 0;
    std::memcpy(&word, bytes + b, 8);
    count += std::popcount(word);
  }
  for (; b < used; ++b) count += std::popcount(bytes[b]);
  return count;
}

}  // namespace

PairMask::PairMask(int n)
    : n_(n), kind_(static_cast<size_t>((triangle(std::max(n, 0)) + kChunkBits - 1) / kChunkBits), kEmpty) {
  slot_.assign(kind_.size(), 0);
}

namespace {

void check_packed_size(int n, std::span<const uint8_t> bits) {
  if (n < 0 || bits.size() != static_cast<size_t>((PairMask::triangle(n) + 7) / 8))
    throw Error("a pair mask of " + std::to_string(n) + " tokens needs " +
                std::to_string((PairMask::triangle(std::max(n, 0)) + 7) / 8) + " bytes, found " +
                std::to_string(bits.size()));
}

}  // namespace

int64_t PairMask::count_packed(int n, std::span<const uint8_t> bits) {
  check_packed_size(n, bits);
  const int64_t size = triangle(n), whole = size >> 3;
  int64_t count = popcount(bits.data(), whole << 3);
  if (size & 7)
    count += std::popcount(static_cast<uint8_t>(bits[static_cast<size_t>(whole)] & ((1u << (size & 7)) - 1)));
  return count;
}

PairMask::PairMask(int n, std::span<const uint8_t> bits) : PairMask(n) {
  check_packed_size(n, bits);
  for (int64_t c = 0; c < static_cast<int64_t>(kind_.size()); ++c) {
    const int64_t size = chunk_size(c);
    uint8_t* bytes = mixed(c);
    std::memcpy(bytes, bits.data() + c * kChunkBytes, static_cast<size_t>((size + 7) >> 3));
    if (size & 7) bytes[size >> 3] &= static_cast<uint8_t>((1u << (size & 7)) - 1);  // bits past the end mean nothing
    count_ += popcount(bytes, size);
    settle(c);
  }
}

const std::vector<uint8_t>& PairMask::pool() const {
  static const std::vector<uint8_t> none;
  return pool_ ? *pool_ : none;
}

std::vector<uint8_t>& PairMask::own_pool() {
  if (!pool_)
    pool_ = std::make_shared<std::vector<uint8_t>>();
  else if (pool_.use_count() > 1)
    pool_ = std::make_shared<std::vector<uint8_t>>(*pool_);
  return *pool_;
}

uint8_t* PairMask::mixed(int64_t c) {
  const auto k = static_cast<size_t>(c);
  std::vector<uint8_t>& pool = own_pool();
  if (kind_[k] != kMixed) {
    const bool full = kind_[k] == kFull;
    slot_[k] = static_cast<uint32_t>(pool.size() / kChunkBytes);
    pool.resize(pool.size() + kChunkBytes, 0);
    kind_[k] = kMixed;
    if (full) fill_ones(pool.data() + static_cast<size_t>(slot_[k]) * kChunkBytes, chunk_size(c));
  }
  return pool.data() + static_cast<size_t>(slot_[k]) * kChunkBytes;
}

// Only the last chunk of the pool goes back: rows set in order leave every earlier chunk settled.
void PairMask::settle(int64_t c) {
  const auto k = static_cast<size_t>(c);
  if (kind_[k] != kMixed || (static_cast<size_t>(slot_[k]) + 1) * kChunkBytes != pool().size()) return;
  std::vector<uint8_t>& pool = own_pool();
  const int64_t size = chunk_size(c), set = popcount(pool.data() + pool.size() - kChunkBytes, size);
  if (set != 0 && set != size) return;
  kind_[k] = set == 0 ? kEmpty : kFull;
  pool.resize(pool.size() - kChunkBytes);
}

bool PairMask::test(int i, int j) const {
  if (i == j) return false;
  if (i > j) std::swap(i, j);
  const int64_t k = index(n_, i, j);
  return chunk_bit(k / kChunkBits, k % kChunkBits);
}

void PairMask::set_row(int i, const uint8_t* flags) {
  int64_t k = index(n_, i, i + 1);
  const int64_t count = n_ - i - 1;
  for (int64_t done = 0; done < count;) {
    const int64_t c = k / kChunkBits, within = k % kChunkBits, part = std::min(count - done, kChunkBits - within);
    if (c > open_) {  // a chunk after the last one written: rows come in order, so that one is done
      if (open_ >= 0) settle(open_);
      open_ = c;
    }
    count_ += write_flags(mixed(c), within, flags + done, part);
    done += part;
    k += part;
  }
}

std::vector<uint8_t> PairMask::bits() const {
  std::vector<uint8_t> out(static_cast<size_t>((triangle(n_) + 7) / 8), 0);
  for (int64_t c = 0; c < static_cast<int64_t>(kind_.size()); ++c) {
    uint8_t* bytes = out.data() + c * kChunkBytes;
    const int64_t size = chunk_size(c);
    if (kind_[static_cast<size_t>(c)] == kFull) fill_ones(bytes, size);
    if (kind_[static_cast<size_t>(c)] == kMixed)
      std::memcpy(bytes, chunk_bytes(c), static_cast<size_t>((size + 7) >> 3));
  }
  return out;
}

int64_t PairMask::count_both(const PairMask& other) const {
  if (other.n_ != n_) throw Error("pairs in both masks need masks over the same tokens");
  int64_t both = 0;
  std::vector<uint8_t> ones(kChunkBytes);
  for (int64_t c = 0; c < static_cast<int64_t>(kind_.size()); ++c) {
    const auto ka = kind_[static_cast<size_t>(c)], kb = other.kind_[static_cast<size_t>(c)];
    const int64_t size = chunk_size(c);
    if (ka == kEmpty || kb == kEmpty) continue;
    if (ka == kFull && kb == kFull) {
      both += size;
      continue;
    }
    fill_ones(ones.data(), size);
    const uint8_t* a = ka == kMixed ? chunk_bytes(c) : ones.data();
    const uint8_t* b = kb == kMixed ? other.chunk_bytes(c) : ones.data();
    for (int64_t byte = 0; byte < (size + 7) >> 3; ++byte)
      both += std::popcount(static_cast<unsigned>(a[byte] & b[byte]));
  }
  return both;
}

}  // namespace attnscope
