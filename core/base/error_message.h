#pragma once
// What the user reads of any exception a command or the explorer catches. attnscope::Error's
// message is written for the user already; libtorch's errors carry a C++ backtrace of twenty
// frames, and its failed allocations say nothing about what to do.
#include <exception>
#include <string>

namespace attnscope {

// One line: an attnscope::Error's message as it is; a libtorch error's first line without its
// backtrace; an allocation that failed (host or GPU memory) as how much was asked, how much the
// machine has, and what needs less.
std::string error_message(const std::exception& e);

}  // namespace attnscope
