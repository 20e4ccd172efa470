#pragma once

#include <string>

namespace attnscope {

// A size as people read it, in decimal units: "0 B", "340 kB", "1.2 MB", "71.0 GB". The one form
// of every size the tool states (downloads, and the refusals that say what a run would need).
std::string byte_size(double bytes);

}  // namespace attnscope
