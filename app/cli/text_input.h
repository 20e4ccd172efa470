#pragma once
// The text a command works on: --text or --file, exactly one of them.
#include <string>

namespace attnscope::cli {

struct TextInput {
  std::string text;
  std::string file;
};

// Returns the text; throws attnscope::Error when neither or both are given, the file cannot be
// read, or the text is empty.
std::string read_text_input(const TextInput& input);

}  // namespace attnscope::cli
