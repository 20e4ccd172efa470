#pragma once
// A read-only memory map of a whole file (RAII, move-only).
#include <cstddef>
#include <filesystem>
#include <span>

namespace attnscope {

class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& file);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  // The whole pages of `part` (of bytes()) leave this process's memory (they are read again from
  // the file if touched): a reader that copied them out does not hold them twice.
  void release(std::span<const std::byte> part) const;

 private:
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace attnscope
