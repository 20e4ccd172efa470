#include "base/error_message.h"

#include <c10/util/Exception.h>

#include <new>
#include <regex>

#include "base/byte_size.h"
#include "base/machine_memory.h"

namespace attnscope {
namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// torch's CPU allocator: "... DefaultCPUAllocator: can't allocate memory: you tried to allocate N
// bytes. Error code 12 (Cannot allocate memory)".
std::string host_memory_message(double asked) {
  std::string text = "not enough memory: a step needed " + byte_size(asked) + " at once";
  if (const int64_t machine = physical_memory(); machine > 0)
    text += ", and this machine has " + byte_size(static_cast<double>(machine)) + " in all";
  return text + "; a shorter text needs less";
}

}  // namespace

std::string error_message(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e))
    return "not enough GPU memory: " + first_line(static_cast<const c10::Error&>(e).what_without_backtrace()) +
           " A shorter text needs less, or run on the CPU";
  if (const auto* torch_error = dynamic_cast<const c10::Error*>(&e)) {
    const std::string text = torch_error->what_without_backtrace();
    static const std::regex asked(R"(can't allocate memory: you tried to allocate (\d+) bytes)");
    if (std::smatch m; std::regex_search(text, m, asked)) return host_memory_message(std::stod(m[1].str()));
    return first_line(text);
  }
  if (dynamic_cast<const std::bad_alloc*>(&e)) return "not enough memory for the next step; a shorter text needs less";
  return e.what();
}

}  // namespace attnscope
