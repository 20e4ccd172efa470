#include "base/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "base/error.h"

namespace attnscope {

void write_file_atomically(const std::filesystem::path& target, const std::function<void(std::ostream&)>& write) {
  const auto dir = target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
  if (!std::filesystem::is_directory(dir))
    throw Error(target.string() + ": the folder " + dir.string() + " does not exist");
  const auto temp = dir / (target.filename().string() + ".tmp-" + std::to_string(std::random_device{}()));
  try {
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      if (!out) throw Error(target.string() + ": cannot write in " + dir.string() + " (" + std::strerror(errno) + ")");
      write(out);
      out.flush();
      if (!out) throw Error(target.string() + ": writing failed (disk full?)");
    }
    const int fd = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
      if (fd >= 0) ::close(fd);
      throw Error(target.string() + ": could not flush the file to disk (" + std::strerror(errno) + ")");
    }
    ::close(fd);
    std::filesystem::rename(temp, target);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw;
  }
}

void write_file_atomically(const std::filesystem::path& target, std::string_view content) {
  write_file_atomically(
      target, [&](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); });
}

}  // namespace attnscope
