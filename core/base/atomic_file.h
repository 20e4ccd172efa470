#pragma once
// Writes a file so that it is either the old one or the complete new one: the content goes to a
// temporary file in the same folder, is flushed to disk, and is then renamed over the target.
#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace attnscope {

void write_file_atomically(const std::filesystem::path& target, const std::function<void(std::ostream&)>& write);
void write_file_atomically(const std::filesystem::path& target, std::string_view content);

}  // namespace attnscope
