#pragma once
// The one exception type of the core: its message is written for the user ("what file, what
// thing, what was expected"), so the command line and the GUI can show it as is.
#include <stdexcept>
#include <string>

namespace attnscope {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Work stopped because its caller asked (a newer request made it stale), not because it failed.
class Cancelled : public Error {
 public:
  Cancelled() : Error("cancelled") {}
};

}  // namespace attnscope
